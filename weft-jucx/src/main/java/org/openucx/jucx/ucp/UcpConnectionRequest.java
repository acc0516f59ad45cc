package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxNativeStruct;
import weft.ucp.ConnectionRequest;
import weft.ucp.Endpoint;
import weft.ucs.WeftException;

import java.net.InetSocketAddress;

/** A client's request to connect, given to a listener's handler: accept it with an endpoint, or reject it. */
public class UcpConnectionRequest extends UcxNativeStruct {
    final ConnectionRequest weft;

    UcpConnectionRequest(final ConnectionRequest r) {
        this.weft = r;
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

    /** Accepts on {@code worker}: the listener's or another (the client's endpoint then connects to it). */
    Endpoint accept(final UcpWorker worker) {
        setNativeId(null);
        return weft.accept(worker.weft);
    }
}
