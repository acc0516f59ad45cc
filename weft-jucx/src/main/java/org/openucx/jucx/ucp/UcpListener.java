package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxNativeStruct;
import org.openucx.jucx.ucs.UcsConstants;
import weft.ucp.Listener;
import weft.ucs.WeftException;

import java.io.Closeable;
import java.net.InetSocketAddress;

/** Listens for socket-address connections; each request goes to the connection handler (from progress). */
public class UcpListener extends UcxNativeStruct implements Closeable {
    final UcpWorker worker;
    private final Listener weft;

    @SuppressWarnings("this-escape") // JUCX's classes are open (its API) and register themselves when made, as JUCX's do
    public UcpListener(UcpWorker worker, UcpListenerParams params) {
        if (params.getSockAddr() == null || params.connectionHandler == null) {
            throw new UcxException("a listener needs a socket address and a connection handler",
                UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
        }
        this.worker = worker;
        final UcpListenerConnectionHandler h = params.connectionHandler;
        try {
            this.weft = worker.weft.listen(params.getSockAddr(),
                r -> h.onConnectionRequest(new UcpConnectionRequest(r)));
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
        setNativeId(newId());
    }

    /** The address it listens on (with the port chosen when 0 was asked for). */
    public InetSocketAddress getAddress() {
        return weft.address();
    }

    @Override
    public void close() {
        if (getNativeId() != null) {
            setNativeId(null);
            weft.close();
        }
    }
}
