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
    /**
     * The one cache of a session below THREAD_MULTIPLE, whose calls come one at a time (a ThreadLocal lookup
     * cost a tenth of a short non-blocking send); null: a cache per thread. See {@link #shareAcrossThreads}.
     */
    private static SpanCache shared;

    private final Entry[] entries = new Entry[ENTRIES];
    private int next;

    /** A buffer, held weakly, and its span. */
    private static final class Entry extends WeakReference<Object> {
        final Span span;

        Entry(final Object buf, final Span span) {
            super(buf);
            this.span = span;
        }
    }

    /**
     * Called by {@code MPI.Init}: below THREAD_MULTIPLE ({@code one} true) the program makes its MPI calls one
     * at a time (ordered by its own synchronization when threads take turns), so one cache serves them all.
     */
    static void shareAcrossThreads(final boolean one) {
        shared = one ? new SpanCache() : null;
    }

    private static SpanCache cache() {
        final SpanCache c = shared;
        return c != null ? c : CACHE.get();
    }

    /** The cached span of {@code buf}, or null. */
    static Span lookup(final Object buf) {
        final Entry[] es = cache().entries;
        for (final Entry e : es) {
            if (e != null && e.refersTo(buf)) {
                return e.span;
            }
        }
        return null;
    }

    /** Remembers {@code span} as the span of {@code buf}; returns it. */
    static Span remember(final Object buf, final Span span) {
        final SpanCache c = cache();
        c.entries[c.next] = new Entry(buf, span);
        c.next = (c.next + 1) % ENTRIES;
        return span;
    }
}
