package weft.uct.cma;

import weft.ucs.sys.ProcessLiveness;
import weft.ucs.Status;
import weft.uct.AbstractEndpoint;
import weft.uct.Completion;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.PendingRequest;
import weft.uct.RemoteKey;

/**
 * Endpoint to one same-node process. Only put/get zcopy; every other operation answers
 * UNSUPPORTED (from {@link AbstractEndpoint}). Once the peer is found gone (ESRCH, or a failed
 * {@link #check()}), every operation answers CONNECTION_RESET.
 */
final class CmaEndpoint extends AbstractEndpoint {
    private final CmaInterface iface;
    final int peerPid;
    /** Peer start time from its interface address; -1 if unknown. */
    final long peerStartTime;
    /** Queued transfers (not flush markers) of this endpoint. */
    int outstanding;
    /** Non-null once the peer is known dead; then every operation fails with it. */
    Status failure;
    boolean closed;

    CmaEndpoint(final CmaInterface iface, final int peerPid, final long peerStartTime) {
        this.iface = iface;
        this.peerPid = peerPid;
        this.peerStartTime = peerStartTime;
    }

    @Override
    public Interface iface() {
        return iface;
    }

    @Override
    protected boolean hasResources() {
        return iface.hasRoom();
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    @Override
    protected void pendingAdded() {
        iface.pendingAdded();
    }

    int dispatchPending() {
        return pending.isEmpty() ? 0 : pending.dispatch();
    }

    @Override
    public Status putZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                           final Completion completion) {
        return iface.submit(this, CmaOp.PUT, iov, remoteAddress, rkey, completion);
    }

    @Override
    public Status getZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                           final Completion completion) {
        return iface.submit(this, CmaOp.GET, iov, remoteAddress, rkey, completion);
    }

    @Override
    public Status flush(final int flags, final Completion completion) {
        if (closed) {
            return Status.CLOSED;
        }
        if ((flags & Interface.FLUSH_CANCEL) != 0) {
            iface.cancel(this, Status.CANCELED);
            return Status.OK;
        }
        if (failure != null) {
            return failure;
        }
        if (!pending.isEmpty()) {
            return Status.NO_RESOURCE;
        }
        if (outstanding == 0) {
            return Status.OK;
        }
        return completion == null ? Status.IN_PROGRESS : iface.enqueueFlush(this, completion);
    }

    /** The interface executes its ring in order, so operations are already ordered. */
    @Override
    public Status fence() {
        return closed ? Status.CLOSED : Status.OK;
    }

    /**
     * Alive means: {@code /proc/<pid>} exists, is not a zombie, and has the start time the peer
     * advertised (so a recycled pid is not mistaken for the peer). Reads procfs: not a data path call.
     */
    @Override
    public Status check() {
        if (closed) {
            return Status.CLOSED;
        }
        if (failure != null) {
            return failure;
        }
        final long start = ProcessLiveness.startTime(peerPid);
        if (start < 0 || (peerStartTime >= 0 && start != peerStartTime)) {
            iface.failEndpoint(this, Status.CONNECTION_RESET);
            return Status.CONNECTION_RESET;
        }
        return Status.OK;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        iface.cancel(this, Status.CANCELED);
        closed = true;
        pending.purge(PendingRequest::dispatch); // each request sees CLOSED and can release its resources
        iface.endpointClosed(this);
    }
}
