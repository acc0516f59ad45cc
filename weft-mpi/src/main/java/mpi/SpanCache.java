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
    private static final ThreadLocal<SpanCache> CACHE = ThreadLocal.withInitial(SpanCache::new);

    private final java.util.List<WeakReference<Object>> keys = new java.util.ArrayList<>(
        java.util.Collections.nCopies(ENTRIES, (WeakReference<Object>) null));
    private final Span[] spans = new Span[ENTRIES];
    private int next;

    /** The cached span of {@code buf}, or null. */
    static Span lookup(final Object buf) {
        final SpanCache c = CACHE.get();
        for (int i = 0; i < ENTRIES; i++) {
            final WeakReference<Object> k = c.keys.get(i);
            if (k != null && k.get() == buf) {
                return c.spans[i];
            }
        }
        return null;
    }

    /** Remembers {@code span} as the span of {@code buf}; returns it. */
    static Span remember(final Object buf, final Span span) {
        final SpanCache c = CACHE.get();
        c.keys.set(c.next, new WeakReference<>(buf));
        c.spans[c.next] = span;
        c.next = (c.next + 1) % ENTRIES;
        return span;
    }
}
