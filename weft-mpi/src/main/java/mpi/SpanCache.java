package mpi;

import java.lang.ref.WeakReference;

/**
 * The spans of the last few buffers a thread passed to MPI, by identity: a program that sends and receives
 * from the same arrays and buffers in a loop maps each once, so a call allocates nothing to find its memory.
 * A buffer's memory never moves relative to its array or address, so a span stays right as long as the
 * buffer lives; entries hold their buffers weakly and are replaced round robin.
 */
final class SpanCache {
    private static final int ENTRIES = 8;
    /** The caches, per caller ({@link PerCaller}). */
    static final PerCaller<SpanCache> CACHES = new PerCaller<>(SpanCache::new);

    private final Entry[] entries = new Entry[ENTRIES];
    private int next;

    private SpanCache() {
        java.util.Arrays.fill(entries, MISS);
    }

    /** A slot: a buffer, held weakly, and its span. */
    private static class Entry extends WeakReference<Object> {
        private final Span span;

        Entry(final Object buf, final Span span) {
            super(buf);
            this.span = span;
        }

        /** The span of {@code buf}, the buffer this entry holds. */
        Span span(final Object buf) throws MPIException {
            return span;
        }
    }

    /** The empty slot, and what a lookup that matched no slot ends in: maps the buffer and remembers it. */
    private static final class Miss extends Entry {
        Miss() {
            super(null, null);
        }

        @Override
        Span span(final Object buf) throws MPIException {
            return remember(buf, Span.map(buf));
        }
    }

    private static final Entry MISS = new Miss();

    /**
     * The span of {@code buf} (an array or a buffer, not a boolean[]), mapped on the first call and cached. Every
     * slot is compared and the call that finishes goes through the slot that matched: no branch here is taken
     * one way only while a program uses one buffer, so its first new buffer (OSU's double[] of means, after the
     * warm-up pass) traps nowhere that would throw away a compiled collective; a miss is a type check.
     */
    static Span spanOf(final Object buf) throws MPIException {
        Entry found = MISS;
        for (final Entry e : CACHES.get().entries) {
            if (e.refersTo(buf)) {
                found = e;
            }
        }
        return found.span(buf);
    }

    /** Remembers {@code span} as the span of {@code buf}; returns it. */
    private static Span remember(final Object buf, final Span span) {
        final SpanCache c = CACHES.get();
        c.entries[c.next] = new Entry(buf, span);
        c.next = (c.next + 1) % ENTRIES;
        return span;
    }
}
