package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucp.wire.WireupMessage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A worker's endpoints (one table per worker): by id ({@code slot | generation << 32}, an array index on
 * receipt, so a message for a closed endpoint names nothing), the live ones in creation order, and the
 * pairing of the endpoints two workers make to each other: the n-th endpoint a worker makes to a peer
 * worker is paired with the peer's n-th endpoint to it, whichever side connected first. The WIREUP handler
 * lives here: a request creates or finds the paired endpoint and is answered with its id.
 */
final class EndpointTable {
    private static final System.Logger LOG = System.getLogger(EndpointTable.class.getName());

    private final Worker worker;
    private Endpoint[] eps = new Endpoint[16];
    private int[] epGen = new int[16];
    private int epHigh;
    private final ArrayList<Endpoint> liveEps = new ArrayList<>();
    private final Map<Long, Peer> peers = new HashMap<>();

    /** The peer-worker record used to pair endpoints created from both sides (by connection number). */
    private static final class Peer {
        long nextSn;
        final Map<Long, Endpoint> bySn = new HashMap<>();
    }

    EndpointTable(final Worker worker) {
        this.worker = worker;
    }

    /** The user's next endpoint to {@code remote}: the one the peer already made toward us, or a new one. */
    Endpoint connect(final WorkerAddress remote) {
        final Peer peer = peers.computeIfAbsent(remote.uuid(), k -> new Peer());
        final long sn = peer.nextSn++;
        Endpoint ep = peer.bySn.get(sn);
        if (ep != null) { // the peer connected to us first: that endpoint is ours too
            ep.userOwned = true;
            return ep;
        }
        ep = create(remote, sn);
        ep.userOwned = true;
        peer.bySn.put(sn, ep);
        ep.sendWireup(WireupMessage.REQUEST, -1);
        return ep;
    }

    /** Binds the shell of a sockaddr connect to the worker that accepted it, numbered by the handshake. */
    void client(final Endpoint shell, final WorkerAddress remote, final long sn) {
        final Peer peer = peers.computeIfAbsent(remote.uuid(), k -> new Peer());
        bind(shell, remote, sn);
        shell.userOwned = true;
        peer.bySn.put(sn, shell);
    }

    /** The server side of an accepted connection request: the endpoint, paired by the client's number. */
    Endpoint accepted(final WorkerAddress remote, final long sn) {
        // not entered in the peer's connection table: only the client's endpoint is found by this number
        // (when our WIREUP_REQUEST reaches it), which also lets a worker connect to its own listener
        final Endpoint ep = create(remote, sn);
        ep.userOwned = true;
        ep.sendWireup(WireupMessage.REQUEST, -1); // tells the client it was accepted and gives it our id
        return ep;
    }

    private Endpoint create(final WorkerAddress remote, final long sn) {
        final Endpoint ep = new Endpoint(worker);
        bind(ep, remote, sn);
        return ep;
    }

    /** Chooses and connects {@code ep}'s lanes, gives it an id and lists it (throws before listing it). */
    private void bind(final Endpoint ep, final WorkerAddress remote, final long sn) {
        final LaneSelector.Selection sel = LaneSelector.select(worker.ifaces, remote, worker.context);
        final int slot = allocSlot();
        ep.bind(slot | (long) epGen[slot] << 32, remote, sn, sel);
        eps[slot] = ep;
        liveEps.add(ep);
        worker.lifecycle.endpointAdded();
        for (final Lane l : ep.lanes) {
            l.local.lanes++; // the interface is now in use: progressed on every call
        }
    }

    private int allocSlot() {
        for (int i = 0; i < epHigh; i++) {
            if (eps[i] == null) {
                return i;
            }
        }
        if (epHigh == eps.length) {
            eps = Arrays.copyOf(eps, epHigh * 2);
            epGen = Arrays.copyOf(epGen, epHigh * 2);
        }
        return epHigh++;
    }

    /** The endpoint a peer named, or null (closed since, or an id the peer made up). */
    Endpoint byId(final long id) {
        final int slot = (int) id;
        if (slot < 0 || slot >= epHigh) {
            return null;
        }
        final Endpoint ep = eps[slot];
        return ep != null && ep.id == id ? ep : null;
    }

    /**
     * The endpoint a control message ({@link weft.ucp.wire.ControlMessage}) names, or null: a message too
     * short is counted as malformed control ({@code what} names it in the log), an unknown id is ignored.
     */
    Endpoint named(final MemorySegment data, final long off, final long len, final String what) {
        if (!weft.ucp.wire.ControlMessage.fits(len)) {
            worker.control.dropMalformed(what, len);
            return null;
        }
        return byId(weft.ucp.wire.ControlMessage.id(data, off));
    }

    /** The live endpoints themselves (not a copy), for allocation-free scans (Lifecycle, FlowControl). */
    ArrayList<Endpoint> live() {
        return liveEps;
    }

    void remove(final Endpoint ep) {
        final int slot = (int) ep.id;
        if (slot >= 0 && slot < epHigh && eps[slot] == ep) {
            eps[slot] = null;
            epGen[slot]++;
        }
        if (liveEps.remove(ep)) {
            for (final Lane l : ep.lanes) {
                l.local.lanes--;
            }
        }
        worker.sendPending.remove(ep);
        if (!ep.isBound()) {
            return; // a shell was never listed
        }
        final Peer p = peers.get(ep.remote.uuid());
        if (p != null) {
            p.bySn.remove(ep.connSn, ep);
        }
    }

    /** The peer told {@code ep}'s id there: sends that name it may go (and a sockaddr client is accepted). */
    private void wired(final Endpoint ep, final long rid) {
        if (ep.remoteId < 0) {
            ep.remoteId = rid;
            worker.flow.onWired(ep);
        }
        if (ep.gate != null && !ep.gate.completed) {
            worker.lifecycle.accepted(ep); // the server's wireup request is its acceptance too
        }
        ep.queue.wake();
    }

    /** WIREUP: a peer's request (create or find the paired endpoint, answer with its id) or its reply. */
    Status onWireup(final MemorySegment data, final long off, final long len, final int flags) {
        if (!WireupMessage.fits(len)) {
            return worker.control.dropMalformed("WIREUP", len);
        }
        final byte type = WireupMessage.type(data, off);
        final long src = WireupMessage.srcEp(data, off);
        final long dst = WireupMessage.dstEp(data, off);
        final long sn = WireupMessage.connSn(data, off);
        if (type == WireupMessage.REPLY) {
            final Endpoint ep = byId(dst);
            if (ep != null) {
                wired(ep, src);
            }
            return Status.OK;
        }
        final byte[] addr = data.asSlice(off + WireupMessage.LENGTH, len - WireupMessage.LENGTH)
            .toArray(ValueLayout.JAVA_BYTE);
        final WorkerAddress remote;
        try {
            remote = WorkerAddress.unpack(addr);
        } catch (final WeftException e) {
            return worker.control.dropMalformed("WIREUP (bad address: " + e.getMessage() + ")", len);
        }
        final Peer peer = peers.computeIfAbsent(remote.uuid(), k -> new Peer());
        Endpoint ep = peer.bySn.get(sn);
        if (ep == null && (sn & SockaddrHandshake.LISTENER_SN) != 0) {
            ep = worker.lifecycle.bindByWireup(sn, remote, src); // our sockaddr client, accepted by that worker
            if (ep != null && !ep.isBound()) {
                return Status.OK; // its handshake has not ended: answered when it does (answerWireup)
            }
        }
        if (ep == null) {
            try {
                ep = create(remote, sn);
            } catch (final WeftException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot create the endpoint a peer asked for: " + e.getMessage());
                return Status.OK;
            }
            peer.bySn.put(sn, ep);
        }
        answerWireup(ep, src);
        return Status.OK;
    }

    /** Takes a peer's WIREUP request to {@code ep} (sent by its endpoint {@code src}) and answers it. */
    void answerWireup(final Endpoint ep, final long src) {
        wired(ep, src);
        try {
            ep.sendWireup(WireupMessage.REPLY, src);
        } catch (final WeftException e) {
            // the peer died after asking (its request was still in our FIFO): fail that endpoint, do not
            // throw out of progress()
            LOG.log(System.Logger.Level.INFO, "wireup reply not sent: " + e.getMessage());
            worker.lifecycle.failLater(ep, e.status());
        }
    }
}
