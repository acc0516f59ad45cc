package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxParams;

import java.net.InetSocketAddress;

/** Parameters of a {@link UcpListener}. */
public class UcpListenerParams extends UcxParams {
    private InetSocketAddress sockAddr;
    UcpListenerConnectionHandler connectionHandler;

    @Override
    public UcpListenerParams clear() {
        super.clear();
        sockAddr = null;
        connectionHandler = null;
        return this;
    }

    /** Where to listen (port 0: a free port, see {@link UcpListener#getAddress()}). */
    public UcpListenerParams setSockAddr(InetSocketAddress sockAddr) {
        this.sockAddr = sockAddr;
        fieldMask |= UcpConstants.UCP_LISTENER_PARAM_FIELD_SOCK_ADDR;
        return this;
    }

    public InetSocketAddress getSockAddr() {
        return sockAddr;
    }

    /** Called (from progress) with each connection request: accept it by making an endpoint, or reject it. */
    public UcpListenerParams setConnectionHandler(UcpListenerConnectionHandler handler) {
        this.connectionHandler = handler;
        fieldMask |= UcpConstants.UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
        return this;
    }
}
