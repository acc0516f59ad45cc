package weft.ucp;

import weft.ucs.BlockedProgress;
import weft.ucs.Cpus;
import weft.ucs.Status;
import weft.ucs.WeftException;

/**
 * A worker's wait loops: {@link Worker#progress(int)} (polls until some work was done, spinning between idle
 * polls, the worker entered once for the batch or once per poll) and the blocking wait for one request.
 */
final class WorkerSpin {
    /** Idle polls of a wait before it yields between polls. */
    static final int SPINS = 2000;
    /**
     * The same when the node's processes of the job outnumber its CPUs: a spinning waiter then holds a CPU the
     * peer it waits for may need (3 PEs on 2 cores over tcp, with the shmem layer's waits alike: a 1 MiB
     * reduction 620 -> 90 ms).
     */
    static final int CROWDED_SPINS = 16;

    private WorkerSpin() {
    }

    /** Enters the worker's guard once and polls inside it (SINGLE, SERIALIZED: reentry costs no atomic). */
    static int entered(final Worker w, final int polls) {
        w.guard.enter();
        try {
            return eachPoll(w, polls);
        } finally {
            w.guard.exit();
        }
    }

    /** Polls, each poll entering the guard on its own (MULTI: other threads get the lock in between). */
    static int eachPoll(final Worker w, final int polls) {
        for (int i = 0; i < polls; i++) {
            final int work = w.progress();
            if (work != 0) {
                return work;
            }
            Thread.onSpinWait();
        }
        return 0;
    }

    /** Progresses {@code w} until {@code r} completes: spins, then yields once idle for a while. */
    static void await(final Worker w, final Request r) {
        final int configured = w.context().waitSpins;
        final int spins = configured >= 0 ? configured : Cpus.crowded() ? CROWDED_SPINS : SPINS;
        int idle = 0;
        while (!r.completedAcquire()) { // acquire: the status and a receive's TagInfo are seen with it
            if (w.isClosed()) {
                throw new WeftException(Status.CLOSED, "worker closed while waiting for " + r);
            }
            if (w.progress() == 0) {
                if ((++idle & 63) == 0) {
                    // the thread's other workers too: a peer's request to one of them (an OpenSHMEM context's
                    // worker waits while over tcp the peers' contexts reach the default worker) may be what
                    // this request waits for
                    BlockedProgress.run();
                }
                if (idle > spins) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            } else {
                idle = 0;
            }
        }
    }
}
