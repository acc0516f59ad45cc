package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxParams;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** Parameters of a {@link UcpEndpoint}: a worker address, a socket address or a connection request. */
public class UcpEndpointParams extends UcxParams {
    ByteBuffer ucpAddress;
    boolean peerErrorHandling;
    InetSocketAddress localSocketAddress;
    InetSocketAddress socketAddress;
    long flags;
    UcpConnectionRequest connectionRequest;
    UcpEndpointErrorHandler errorHandler;
    String name;

    @Override
    public String toString() {
        return "UcpEndpointParams{" + (name != null ? "name=" + name + ", " : "")
            + (ucpAddress != null ? "ucpAddress, " : "")
            + (socketAddress != null ? "socketAddress=" + socketAddress + ", " : "")
            + (connectionRequest != null ? "connectionRequest=" + connectionRequest.getClientAddress() + ", " : "")
            + "errorHandlingMode=" + (peerErrorHandling ? "PEER" : "NONE") + "}";
    }

    @Override
    public UcpEndpointParams clear() {
        super.clear();
        ucpAddress = null;
        peerErrorHandling = false;
        localSocketAddress = null;
        socketAddress = null;
        flags = 0L;
        connectionRequest = null;
        errorHandler = null;
        name = null;
        return this;
    }

    /** Connect to the worker whose address ({@link UcpWorker#getAddress()}) this buffer holds. */
    public UcpEndpointParams setUcpAddress(ByteBuffer ucpAddress) {
        this.ucpAddress = ucpAddress;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        return this;
    }

    /** Report peer failures to the error handler (Weft always detects them; this records the request). */
    public UcpEndpointParams setPeerErrorHandlingMode() {
        this.peerErrorHandling = true;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
        return this;
    }

    /** The local address to connect from: recorded, not applied (the kernel picks the source address and port). */
    public UcpEndpointParams setLocalSocketAddress(InetSocketAddress localSocketAddress) {
        this.localSocketAddress = localSocketAddress;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_LOCAL_SOCK_ADDR;
        return this;
    }

    /** Connect to a {@link UcpListener} at this address. */
    public UcpEndpointParams setSocketAddress(InetSocketAddress socketAddress) {
        this.socketAddress = socketAddress;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_SOCK_ADDR | UcpConstants.UCP_EP_PARAM_FIELD_FLAGS;
        flags |= UcpConstants.UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
        return this;
    }

    /** Do not use loopback to reach a worker of this process (recorded). */
    public UcpEndpointParams setNoLoopbackMode() {
        flags |= UcpConstants.UCP_EP_PARAMS_FLAGS_NO_LOOPBACK;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_FLAGS;
        return this;
    }

    /** Accept this connection request (the server side of a socket-address connection). */
    public UcpEndpointParams setConnectionRequest(UcpConnectionRequest connectionRequest) {
        this.connectionRequest = connectionRequest;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_CONN_REQUEST;
        return this;
    }

    /** Called (from progress) when the endpoint fails. */
    public UcpEndpointParams setErrorHandler(UcpEndpointErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_ERR_HANDLER;
        return this;
    }

    /** A name for diagnostics (shows in the endpoint's toString and errors). */
    public UcpEndpointParams setName(String name) {
        this.name = name;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_NAME;
        return this;
    }

    /** Send the worker's client id to the listener (see {@link UcpWorkerParams#setClientId}). */
    public UcpEndpointParams sendClientId() {
        flags |= UcpConstants.UCP_EP_PARAMS_FLAGS_SEND_CLIENT_ID;
        fieldMask |= UcpConstants.UCP_EP_PARAM_FIELD_FLAGS;
        return this;
    }
}
