package mpi;

import weft.ucp.Worker;

/**
 * One step of a wait: progress the worker, and when it had nothing to do for a while, let other threads run
 * (spinning first keeps short waits short; yielding keeps a long one from starving the peer on a busy core).
 */
final class Progress {
    /** Idle steps spent spinning before the wait starts yielding. */
    private static final int SPIN = 2000;

    private Progress() {
    }

    /**
     * Progresses {@code w} once.
     *
     * @param idle the idle steps so far (0 to start)
     * @return the idle steps now: 0 after work was done
     */
    static int step(final Worker w, final int idle) {
        if (w.progress() != 0) {
            return 0;
        }
        if (idle >= SPIN) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        return idle + 1;
    }
}
