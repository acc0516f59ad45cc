package org.openucx.jucx.ucp;

/** Called (from progress) when an endpoint fails: the peer died, the connection was refused or reset. */
public interface UcpEndpointErrorHandler {
    void onError(UcpEndpoint ep, int status, String errorMsg) throws Exception;
}
