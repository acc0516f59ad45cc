package weft.ucp;

import weft.ucs.Status;

/**
 * The endpoint's own queued requests: CONTROL messages (wireup, acks, rendezvous answers, replies) sent
 * in order once the lane has room, and the CONNECT gate of a sockaddr endpoint, which holds the queue
 * until the server accepts ({@link Lifecycle} removes it).
 */
final class ControlSend extends SendProtocol {
    static final ControlSend INSTANCE = new ControlSend();

    private ControlSend() {
    }

    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        return r.kind == Request.CONNECT ? Status.NO_RESOURCE : ep.sendQueuedControl(r);
    }

    /** Control traffic never waits behind a message that flow control holds: the peer may need it to drain. */
    @Override
    boolean bypassesFlowStop(final Request r) {
        return r.kind == Request.CONTROL;
    }
}
