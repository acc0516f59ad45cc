package weft.ucp;

import weft.uct.Interface;

import java.util.Arrays;

/**
 * A worker's protocols by request kind ({@link #of}: what the send queue, the completions and
 * {@link Worker#cancel} call instead of switching over kinds) and the active-message handlers they
 * install on every interface.
 */
final class Protocols {
    private final Worker worker;
    private final SendProtocol[] byKind = new SendProtocol[Request.KINDS];

    Protocols(final Worker worker) {
        this.worker = worker;
        Arrays.fill(byKind, SendProtocol.NONE);
        byKind[Request.SEND] = worker.tagEager;
        byKind[Request.RECV] = worker.tagRecv;
        byKind[Request.RNDV_SEND] = worker.rndvSend;
        byKind[Request.RNDV_RECV] = worker.rndvRecv;
        byKind[Request.AM_SEND] = worker.ams;
        byKind[Request.STREAM_SEND] = worker.streams;
        byKind[Request.STREAM_RECV] = worker.streams;
        byKind[Request.RMA] = EndpointRma.PROTOCOL;
        byKind[Request.CONTROL] = worker.control;
        byKind[Request.CONNECT] = worker.control;
    }

    /** The protocol that drives requests of {@code kind} (see {@link SendProtocol}). */
    SendProtocol of(final byte kind) {
        return byKind[kind];
    }

    /** Installs every protocol's active-message handlers on {@code i} (the fuzz tests call it on a recorder). */
    void register(final Interface i) {
        ControlHandler.register(i, worker); // WIREUP, FLOW, EP_REMOVED, KEEPALIVE: one handler class (see there)
        worker.tagEager.register(i);
        worker.rndvSend.register(i);
        worker.rndvRecv.register(i);
        worker.ams.register(i);
        worker.streams.register(i);
        worker.softAtomics.register(i);
        worker.softRma.register(i);
        worker.eagerGet.register(i);
    }
}
