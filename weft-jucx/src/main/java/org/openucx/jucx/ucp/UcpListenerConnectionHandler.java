package org.openucx.jucx.ucp;

/** Receives a listener's connection requests (from progress). */
public interface UcpListenerConnectionHandler {
    void onConnectionRequest(UcpConnectionRequest connectionRequest);
}
