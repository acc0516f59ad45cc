package weft.ucs;

/**
 * Progress a thread makes while it blocks outside Weft's own waits: in a bootstrap barrier or exchange
 * ({@code weft.runtime.Runtime.barrier()}), say. A peer may need this process's progress to finish what it
 * started (a wireup reply, a tcp socket switch, a flush), so a rank that waits in an out-of-band barrier
 * without progressing its workers could hold up the very ranks it waits for. Workers register themselves;
 * a blocking wait calls {@link #run()} between its polls.
 *
 * <p>A source progresses only for a thread that may already use it (a SINGLE-mode worker is never claimed
 * by the waiting thread); it is never called concurrently with itself from this class.
 */
public final class BlockedProgress {
    /** Something that can make progress for the calling thread. */
    public interface Source {
        /** Progresses if {@code thread} may do so now without taking ownership; returns the work done. */
        int progressFor(Thread thread);
    }

    /** Copied on add and remove: {@link #run} reads a snapshot without allocating (it runs in waits). */
    private static volatile Source[] sources = new Source[0];

    private BlockedProgress() {
    }

    /** Adds a source (a new worker). */
    public static synchronized void add(final Source s) {
        sources = CopyOnWriteArrays.with(sources, s);
    }

    /** Removes a source (a closed worker). */
    public static synchronized void remove(final Source s) {
        sources = CopyOnWriteArrays.without(sources, s);
    }

    /** True if any source is registered (a blocking wait then polls instead of sleeping for its whole bound). */
    public static boolean any() {
        return sources.length > 0;
    }

    /** Progresses every source the calling thread may progress; returns the work done. */
    public static int run() {
        final Thread t = Thread.currentThread();
        int work = 0;
        final Source[] a = sources;
        for (int i = 0; i < a.length; i++) {
            work += a[i].progressFor(t);
        }
        return work;
    }
}
