package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A client's request to connect, received by a {@link Listener} and handed to its
 * {@link ConnectionHandler}. The client has proven it knows the job secret. Decide once: accept
 * (you get the endpoint) or reject (the client's endpoint fails with {@link Status#REJECTED}).
 */
public final class ConnectionRequest {
    private final Listener listener;
    private final Socket socket;
    private final InetSocketAddress peer;
    final WorkerAddress remote;
    final long connSn;
    private final long clientId;
    private boolean decided;

    ConnectionRequest(final Listener listener, final Socket socket, final WorkerAddress remote, final long connSn,
                      final long clientId) {
        this.listener = listener;
        this.socket = socket;
        this.peer = (InetSocketAddress) socket.getRemoteSocketAddress();
        this.remote = remote;
        this.connSn = connSn;
        this.clientId = clientId;
    }

    /** The id the client gave {@link Worker#connect(InetSocketAddress, long)} (0 when it gave none). */
    public long clientId() {
        return clientId;
    }

    /** The client's socket address (as seen by the listener). */
    public InetSocketAddress peerAddress() {
        return peer;
    }

    /** The listener that received the request. */
    public Listener listener() {
        return listener;
    }

    /**
     * Accepts: creates this worker's endpoint to the client (lanes chosen from both worker addresses) and
     * tells the client, whose queued sends then go out.
     *
     * @throws WeftException INVALID_PARAM if already decided, CLOSED if the worker is closed
     */
    public Endpoint accept() {
        final Worker w = listener.worker;
        w.guard.enter();
        try {
            decide();
            final Endpoint ep;
            try {
                w.checkOpen();
                ep = w.epTable.accepted(remote, connSn);
            } catch (final RuntimeException e) {
                answer(SockaddrHandshake.DECISION_REJECT);
                throw e;
            }
            ep.localSocket = (InetSocketAddress) socket.getLocalSocketAddress();
            ep.remoteSocket = peer;
            answer(SockaddrHandshake.DECISION_ACCEPT);
            return ep;
        } finally {
            w.guard.exit();
        }
    }

    /** Rejects: the client's endpoint fails with {@link Status#REJECTED}. */
    public void reject() {
        final Worker w = listener.worker;
        w.guard.enter();
        try {
            decide();
            answer(SockaddrHandshake.DECISION_REJECT);
        } finally {
            w.guard.exit();
        }
    }

    /** True once accepted or rejected. */
    public boolean isDecided() {
        return decided;
    }

    private void decide() {
        if (decided) {
            throw new WeftException(Status.INVALID_PARAM, "connection request from " + peer + " was already "
                + "accepted or rejected");
        }
        decided = true;
        listener.worker.lifecycle.decided(this);
    }

    /** Rejects without throwing (listener or worker closing). */
    void abandon() {
        if (!decided) {
            decided = true;
            answer(SockaddrHandshake.DECISION_REJECT);
        }
    }

    private void answer(final int decision) {
        SockaddrHandshake.sendDecision(socket, decision);
    }

    @Override
    public String toString() {
        return "ConnectionRequest[from " + peer + ", worker " + remote + "]";
    }
}
