package mpi;

import java.util.function.Supplier;

/**
 * State the MPI layer keeps for whoever makes the calls (the {@link UcpOp} pool, the {@link SpanCache}): one for
 * the whole session below THREAD_MULTIPLE, where a program makes its calls one at a time (ordered by its own
 * synchronization when threads take turns), one per thread under it. A ThreadLocal lookup per use cost a tenth
 * of a short non-blocking send. {@code MPI.Init} chooses ({@link #shareAcrossThreads}); before it, per thread.
 *
 * @param <T> the state
 */
final class PerCaller<T> {
    private final Supplier<T> make;
    private final ThreadLocal<T> perThread;
    /** The session's one instance below THREAD_MULTIPLE, else null. */
    private T shared;

    PerCaller(final Supplier<T> make) {
        this.make = make;
        this.perThread = ThreadLocal.withInitial(make);
    }

    /** Called by {@code MPI.Init}: {@code one} (below THREAD_MULTIPLE) gives every thread the same instance. */
    void shareAcrossThreads(final boolean one) {
        shared = one ? make.get() : null;
    }

    /** The caller's instance. */
    T get() {
        final T s = shared;
        return s != null ? s : perThread.get();
    }
}
