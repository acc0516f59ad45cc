package weft.ucs.stats;

import java.util.EnumMap;
import java.util.Map;

/**
 * A set of {@link Counter}s owned by one interface. Updates are plain (the owner is single
 * threaded, like a UCT interface), reads from other threads are relaxed: good enough for
 * monitoring, never used for synchronisation.
 */
public final class Counters {
    private final long[] values = new long[Counter.values().length];

    /** An empty set of counters. */
    public Counters() {
    }

    /** Adds {@code delta} to {@code c}. No allocation, no lock. */
    public void add(final Counter c, final long delta) {
        values[c.ordinal()] += delta;
    }

    /** Adds one to {@code c}. */
    public void increment(final Counter c) {
        values[c.ordinal()]++;
    }

    public long get(final Counter c) {
        return values[c.ordinal()];
    }

    /** An independent copy (later counts here do not change it): a set of values to keep or print. */
    public Counters copy() {
        final Counters c = new Counters();
        System.arraycopy(values, 0, c.values, 0, values.length);
        return c;
    }

    /** A copy of all values, for printing. */
    public Map<Counter, Long> snapshot() {
        final Map<Counter, Long> m = new EnumMap<>(Counter.class);
        for (final Counter c : Counter.values()) {
            m.put(c, values[c.ordinal()]);
        }
        return m;
    }

    @Override
    public String toString() {
        final StringBuilder sb = new StringBuilder();
        for (final Counter c : Counter.values()) {
            if (values[c.ordinal()] != 0) {
                sb.append(sb.isEmpty() ? "" : " ").append(c.name().toLowerCase()).append('=')
                    .append(values[c.ordinal()]);
            }
        }
        return sb.toString();
    }
}
