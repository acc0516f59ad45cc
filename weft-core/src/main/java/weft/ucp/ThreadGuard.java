package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Enforces a worker's {@link ThreadMode} on entry to every public call. SINGLE costs one reference
 * compare; SERIALIZED one uncontended owner check; MULTI a reentrant lock. Reentry from the same thread
 * (a callback that calls the worker) is always allowed.
 */
final class ThreadGuard {
    private static final int SINGLE = 0;
    private static final int SERIALIZED = 1;
    private static final int MULTI = 2;

    private final ThreadMode mode;
    /** {@link #mode} as one of the int constants above. */
    private final int kind;
    private final ReentrantLock lock;
    /**
     * The bound (SINGLE) or current (SERIALIZED) thread. A plain field, read plainly on SINGLE's fast path:
     * it is written once, under {@link #bindSingle}'s lock, and a thread that sees a stale null is sent
     * there; SERIALIZED reads and writes it through {@link #OWNER} with volatile semantics.
     */
    private Thread owner;
    private int depth;

    ThreadGuard(final ThreadMode mode) {
        this.mode = mode;
        this.kind = mode == ThreadMode.SINGLE ? SINGLE : mode == ThreadMode.SERIALIZED ? SERIALIZED : MULTI;
        this.lock = mode == ThreadMode.MULTI ? new ReentrantLock() : null;
    }

    ThreadMode mode() {
        return mode;
    }

    void enter() {
        // the common case in a few bytecodes, so that the JIT inlines it at every call site whatever
        // the profile says (a 133-byte enter() was left out of line: "too big" for a call site it
        // judged cold)
        if (kind != SINGLE || owner != Thread.currentThread()) {
            enterSlow();
        }
    }

    private void enterSlow() {
        // int compares rather than a switch on the enum (its ordinal map costs loads on every call)
        if (kind == SINGLE) {
            final Thread t = Thread.currentThread();
            final Thread o = owner;
            if (o != t) {
                bindSingle(t, o);
            }
        } else if (kind == SERIALIZED) {
            final Thread t = Thread.currentThread();
            final Thread o = (Thread) OWNER.getVolatile(this);
            if (o == t) {
                depth++;
            } else if (o == null && OWNER.compareAndSet(this, null, t)) {
                depth = 1;
            } else {
                throw new WeftException(Status.BUSY, "worker in SERIALIZED mode entered by " + t.getName()
                    + " while " + (o == null ? "another thread" : o.getName())
                    + " is inside it; use ThreadMode.MULTI for concurrent use");
            }
        } else {
            lock.lock();
        }
    }

    void exit() {
        if (kind != SINGLE) {
            exitSlow();
        }
    }

    private void exitSlow() {
        if (kind == SERIALIZED) {
            if (--depth == 0) {
                OWNER.setRelease(this, null); // publishes the worker state to the next thread
            }
        } else if (kind == MULTI) {
            lock.unlock();
        }
    }

    /**
     * Enters for the worker's {@code close()}, which is not a data-path call: any thread may close a worker
     * once its users are done with it (as UCX's {@code ucp_worker_destroy} and {@code ucp_cleanup}). SINGLE
     * lends the worker to the calling thread (callbacks of the operations the close cancels may call it)
     * until {@link #exitClose}; the other modes enter as {@link #enter()} does (SERIALIZED refuses with
     * BUSY, before anything changed, while another thread is inside).
     *
     * @return what {@link #exitClose} must be given
     */
    Thread enterClose() {
        if (kind != SINGLE) {
            enterSlow();
            return null;
        }
        return swapOwner(Thread.currentThread());
    }

    /** Leaves {@link #enterClose}: a SINGLE worker goes back to {@code previous} (its thread, or unbound). */
    void exitClose(final Thread previous) {
        if (kind != SINGLE) {
            exitSlow();
        } else {
            swapOwner(previous);
        }
    }

    private synchronized Thread swapOwner(final Thread t) {
        final Thread o = owner;
        owner = t;
        return o;
    }

    /**
     * True if {@code t} may call the worker now without binding it: a SINGLE worker already bound to
     * {@code t}, or a MULTI worker (its lock serializes). Never a SERIALIZED one, whose callers serialize
     * among themselves in ways a thread outside their protocol cannot know.
     */
    boolean usableWithoutClaim(final Thread t) {
        return switch (mode) {
            case SINGLE -> OWNER.getVolatile(this) == t;
            case SERIALIZED -> false;
            case MULTI -> true;
        };
    }

    /** For checks that must not take the lock (MULTI): true if the calling thread may touch state. */
    boolean isHeldByCurrentThread() {
        final Thread o = (Thread) OWNER.getVolatile(this);
        return switch (mode) {
            case SINGLE -> o == null || o == Thread.currentThread();
            case SERIALIZED -> o == Thread.currentThread();
            case MULTI -> lock.isHeldByCurrentThread();
        };
    }

    private synchronized void bindSingle(final Thread t, final Thread o) {
        if (o == null && owner == null) {
            owner = t;
            return;
        }
        throw new WeftException(Status.INVALID_PARAM, "worker in SINGLE thread mode belongs to thread '"
            + owner.getName() + "' but was called from '" + t.getName()
            + "'; create one worker per thread, or use ThreadMode.SERIALIZED/MULTI");
    }

    private static final java.lang.invoke.VarHandle OWNER;

    static {
        try {
            OWNER = java.lang.invoke.MethodHandles.lookup().findVarHandle(ThreadGuard.class, "owner", Thread.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
