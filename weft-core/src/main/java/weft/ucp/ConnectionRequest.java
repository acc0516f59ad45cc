package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A client's request to connect, received by a {@link Listener} and handed to its
 * {@link ConnectionHandler}. The client has proven it knows the job secret. Decide once, from any
 * thread: accept (you get the endpoint, on the listener's worker or another) or reject (the client's
 * endpoint fails with {@link Status#REJECTED}).
 */
public final class ConnectionRequest {
    private final Listener listener;
    private final Socket socket;
    private final InetSocketAddress peer;
    private final SockaddrHandshake.Incoming in;
    private final byte[] key;
    private boolean decided; // guarded by this: accept or reject may come from another worker's thread

    ConnectionRequest(final Listener listener, final Socket socket, final SockaddrHandshake.Incoming in,
                      final byte[] key) {
        this.listener = listener;
        this.socket = socket;
        this.peer = (InetSocketAddress) socket.getRemoteSocketAddress();
        this.in = in;
        this.key = key;
    }

    /** The id the client gave {@link Worker#connect(InetSocketAddress, long)} (0 when it gave none). */
    public long clientId() {
        return in.clientId();
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
     * Accepts on the listener's worker: creates its endpoint to the client (lanes chosen from both worker
     * addresses) and tells the client, whose queued sends then go out.
     *
     * @throws WeftException INVALID_PARAM if already decided, CLOSED if the worker is closed
     */
    public Endpoint accept() {
        return accept(listener.worker);
    }

    /**
     * Accepts on {@code worker}, the listener's or another (of this process, as UCX's {@code ucp_ep_create}
     * with a connection request on any worker): the client's endpoint connects to that worker. Call it with
     * that worker's thread rights (its thread mode).
     *
     * @throws WeftException INVALID_PARAM if already decided, CLOSED if the worker is closed
     */
    public Endpoint accept(final Worker worker) {
        final Worker w = worker == null ? listener.worker : worker;
        w.guard.enter();
        try {
            decide();
            final Endpoint ep;
            try {
                w.checkOpen();
                ep = w.epTable.accepted(in.remote(), in.connSn());
            } catch (final RuntimeException e) {
                answer(SockaddrHandshake.DECISION_REJECT, null);
                throw e;
            }
            ep.localSocket = (InetSocketAddress) socket.getLocalSocketAddress();
            ep.remoteSocket = peer;
            answer(SockaddrHandshake.DECISION_ACCEPT, w.address());
            return ep;
        } finally {
            w.guard.exit();
        }
    }

    /** Rejects: the client's endpoint fails with {@link Status#REJECTED}. */
    public void reject() {
        decide();
        answer(SockaddrHandshake.DECISION_REJECT, null);
    }

    /** True once accepted or rejected. */
    public synchronized boolean isDecided() {
        return decided;
    }

    private void decide() {
        if (!claim()) {
            throw new WeftException(Status.INVALID_PARAM, "connection request from " + peer + " was already "
                + "accepted or rejected");
        }
    }

    private synchronized boolean claim() {
        if (decided) {
            return false;
        }
        decided = true;
        return true;
    }

    /** Rejects without throwing (listener or worker closing). */
    void abandon() {
        if (claim()) {
            answer(SockaddrHandshake.DECISION_REJECT, null);
        }
    }

    private void answer(final int decision, final byte[] acceptingAddress) {
        SockaddrHandshake.sendDecision(socket, decision, key, in, acceptingAddress);
    }

    @Override
    public String toString() {
        return "ConnectionRequest[from " + peer + ", worker " + in.remote() + "]";
    }
}
