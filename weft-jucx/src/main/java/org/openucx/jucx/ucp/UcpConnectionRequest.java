package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxNativeStruct;
import weft.ucp.ConnectionRequest;
import weft.ucp.Endpoint;
import weft.ucs.WeftException;

import java.net.InetSocketAddress;

/** A client's request to connect, given to a listener's handler: accept it with an endpoint, or reject it. */
public class UcpConnectionRequest extends UcxNativeStruct {
    final ConnectionRequest weft;
    private final UcpListener listener;

    UcpConnectionRequest(final ConnectionRequest r, final UcpListener listener) {
        this.weft = r;
        this.listener = listener;
        setNativeId(newId());
    }

    /** The client's socket address. */
    public InetSocketAddress getClientAddress() {
        return weft.peerAddress();
    }

    /** Refuses the request: the client's endpoint fails with UCS_ERR_REJECTED. */
    public void reject() {
        try {
            weft.reject();
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
        setNativeId(null);
    }

    /**
     * The id of the client's worker ({@link UcpWorkerParams#setClientId}), when its endpoint was made with
     * {@link UcpEndpointParams#sendClientId()}; else 0.
     */
    public long getClientId() {
        return weft.clientId();
    }

    /** Accepts on {@code worker}, which must be the listener's (another worker is refused clearly). */
    Endpoint accept(final UcpWorker worker) {
        if (worker != listener.worker) {
            throw Jucx.unsupported("accepting a connection request on another worker than the listener's");
        }
        setNativeId(null);
        return weft.accept();
    }
}
