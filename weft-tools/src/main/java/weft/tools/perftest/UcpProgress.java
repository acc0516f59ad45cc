package weft.tools.perftest;

import weft.ucp.Request;
import weft.ucp.Worker;

/**
 * How a protocol-layer initiator waits: one round of progress is its worker's and, in loopback, the
 * in-process responder's; every wait runs under the {@link Watchdog}. Allocation free.
 */
final class UcpProgress {
    private final Worker worker;
    /** In loopback, the responder (with its own worker) runs inside this side's waits; else null. */
    private final UcpResponding loopback;
    private final Watchdog watchdog;

    UcpProgress(final Worker worker, final UcpResponding loopback, final Watchdog watchdog) {
        this.worker = worker;
        this.loopback = loopback;
        this.watchdog = watchdog;
    }

    /** One round of progress. */
    void progress() {
        worker.progress();
        if (loopback != null) {
            loopback.poll();
        }
    }

    /** Waits until {@code r} completes, then checks its status and releases it ({@code what} names the wait). */
    void await(final Request r, final String what) {
        if (!r.isCompleted()) {
            watchdog.begin();
            while (!r.isCompleted()) {
                progress();
                watchdog.check(what);
            }
        }
        UcpOutstanding.finish(r, what);
    }
}
