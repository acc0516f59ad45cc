package weft.ucp;

/**
 * {@link Worker#progress(int)}: polls until some work was done, spinning between idle polls, with the worker
 * entered once for the whole batch or once per poll.
 */
final class WorkerSpin {
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
}
