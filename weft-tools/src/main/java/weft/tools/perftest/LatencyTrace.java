package weft.tools.perftest;

/**
 * The per-iteration times of a run, kept in a fixed array for {@link SteadyState}: every timed iteration
 * while they fit, then every second one, every fourth, ... (when the array fills, every second kept sample
 * is dropped and the stride doubles), so a run of any length keeps its whole course at a bounded cost: a
 * store per kept iteration, no allocation after construction.
 */
final class LatencyTrace {
    /** Samples kept (a power of two): 512 KiB of longs. */
    static final int CAPACITY = 1 << 16;

    private final long[] samples;
    private final long[] scratch;
    private int count;
    private long seen;
    private long stride = 1;

    LatencyTrace() {
        this(CAPACITY);
    }

    LatencyTrace(final int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two >= 2, got " + capacity);
        }
        samples = new long[capacity];
        scratch = new long[capacity];
    }

    /** One timed iteration took {@code ns}. */
    void add(final long ns) {
        if ((seen++ & (stride - 1)) != 0) {
            return;
        }
        if (count == samples.length) {
            for (int i = 0; i < count / 2; i++) {
                samples[i] = samples[2 * i];
            }
            count /= 2;
            stride *= 2;
            if (((seen - 1) & (stride - 1)) != 0) {
                return;
            }
        }
        samples[count++] = ns;
    }

    /** Timed iterations between two kept samples. */
    long stride() {
        return stride;
    }

    int count() {
        return count;
    }

    /** The steady state of the samples so far; its sample index times {@link #stride()} is a timed iteration. */
    SteadyState.Result steadyState() {
        return SteadyState.find(samples, count, scratch);
    }

    /**
     * Writes the kept samples, one line each: the timed iteration it was (0-based; {@code every} timed
     * iterations per counted one, as the meter samples them) and its time in ns.
     */
    void write(final java.io.Writer w, final long every) throws java.io.IOException {
        for (int i = 0; i < count; i++) {
            w.write(Long.toString(i * stride * every));
            w.write(' ');
            w.write(Long.toString(samples[i]));
            w.write('\n');
        }
    }
}
