package weft.ucp;

import weft.ucp.wire.ControlMessage;
import weft.ucs.Status;

/**
 * How an endpoint ends: failing it (the peer died, a lane broke, keepalive timed out), closing it at once,
 * and the best-effort messages that tell the peer (EP_REMOVED) or keep it from timing out (KEEPALIVE).
 * A FLUSH close waits in {@link Lifecycle} and ends here too. Stateless: the state is the endpoint's
 * ({@link Endpoint#failure}, {@link Endpoint#closed}).
 */
final class EndpointClose {
    private EndpointClose() {
    }

    /** Fails {@code ep}: every queued and in-flight operation completes with {@code st}; its handler runs. */
    static void fail(final Endpoint ep, final Status st) {
        if (ep.failure != null || ep.closed) {
            return;
        }
        ep.failure = st;
        abortAll(ep, st);
        final Worker worker = ep.worker;
        if (worker.eagerGet.lent() > 0 && ep.isBound() && (ep.removedByPeer || ep.amEp.check().isError())) {
            // the peer is gone, or dropped its endpoint (its answers for slots it read came before the
            // notice, on the same ordered lane): it will never read (nor give back) the slots still lent
            worker.eagerGet.reclaim(ep);
        }
        if (ep.errorHandler != null) {
            ep.errorHandler.onError(ep, st);
        }
    }

    /** Closes {@code ep} now: tells the peer, completes what is outstanding with {@code st}, releases lanes. */
    static void closeForce(final Endpoint ep, final Status st) {
        if (ep.closed) {
            return;
        }
        sendRemovedNotice(ep);
        abortAll(ep, st);
        ep.closed = true;
        if (ep.connecting != null) {
            ep.connecting.close(); // a shell: stop its handshake
        }
        ep.rndvCache.close();
        ep.eagerGetPeer.close();
        ep.laneSet.close();
        ep.worker.epTable.remove(ep);
    }

    /** Completes every operation of {@code ep} (queued, being received, in flight, pending) with {@code st}. */
    private static void abortAll(final Endpoint ep, final Status st) {
        final Worker worker = ep.worker;
        if (ep.connecting != null) {
            ep.connecting.failWaiting(st);
        }
        ep.queue.abort(st);
        if (ep.rxRequest != null) {
            final Request r = ep.rxRequest;
            ep.rxRequest = null;
            worker.complete(r, st);
        }
        if (ep.rxMessage != null) {
            ep.rxMessage.length = ep.rxMessage.received; // truncated by the failure; deliver what arrived
            ep.rxMessage = null;
        }
        worker.ams.dropRx(ep);
        worker.streams.abort(ep, st);
        worker.inflight.fail(ep, st);
        worker.getPending.fail(ep, st);
        ep.rma.failSoftAmoWaiters(st);
    }

    /** Tells the peer (best effort) that {@code ep} is going away, so its endpoint fails at once. */
    static void sendRemovedNotice(final Endpoint ep) {
        if (ep.removedNoticeSent || ep.failure != null || ep.remoteId < 0) {
            return;
        }
        ep.removedNoticeSent = true;
        ControlMessage.writePayload(ep.ctl, 0L);
        // NO_RESOURCE: the peer learns it from keepalive
        ep.amEp.amShort(AmId.EP_REMOVED, ep.remoteId, ep.ctl, 0, ControlMessage.PAYLOAD_LENGTH);
    }

    /** Tells the peer we are alive (best effort: a busy lane skips one round). */
    static void sendKeepalive(final Endpoint ep) {
        if (ep.failure == null && !ep.closed && ep.remoteId >= 0) {
            ControlMessage.writePayload(ep.ctl, 0L);
            ep.amEp.amShort(AmId.KEEPALIVE, ep.remoteId, ep.ctl, 0, ControlMessage.PAYLOAD_LENGTH);
        }
    }
}
