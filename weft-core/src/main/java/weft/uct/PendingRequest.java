package weft.uct;

import weft.ucs.Status;

/**
 * A request queued with {@link Endpoint#pendingAdd} after an operation returned
 * {@link Status#NO_RESOURCE}. The transport calls {@link #dispatch()} from progress when
 * resources may be available. Intrusive (no allocation on queueing); one request is in at most
 * one queue at a time.
 */
public abstract class PendingRequest {
    PendingRequest next;
    boolean queued;

    /** For subclasses: a request not in any pending queue. */
    public PendingRequest() {
    }

    /**
     * Tries the operation again.
     *
     * @return {@link Status#OK} when done (the request leaves the queue),
     *     {@link Status#IN_PROGRESS} when started (it leaves the queue too), or
     *     {@link Status#NO_RESOURCE} to stay at the head of the queue and be retried later
     */
    public abstract Status dispatch();

    /** True while the request sits in a pending queue. */
    public final boolean isQueued() {
        return queued;
    }
}
