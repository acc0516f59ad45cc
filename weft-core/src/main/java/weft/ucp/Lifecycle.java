package weft.ucp;

import weft.ucs.KeepaliveRamp;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The slow-path services of a worker, run from {@link Worker#progress()} once every
 * {@link #SERVICE_EVERY} calls (so the fast path pays one decrement and compare) and from
 * {@link Worker#waitForEvents}:
 * <ul>
 *   <li>keepalive: every {@code WEFT_KEEPALIVE_INTERVAL} each endpoint's keepalive lane is checked
 *   ({@code uct check()}: pid liveness on shm/cma, a keepalive frame plus reset/EOF detection on tcp);
 *   a dead peer fails the endpoint, which completes everything outstanding with the error and calls
 *   its error handler;</li>
 *   <li>peer notices: an EP_REMOVED message (the peer closed its endpoint) fails ours;</li>
 *   <li>listeners: connection requests queued by listener threads go to their handlers;</li>
 *   <li>sockaddr clients: a failed handshake fails the endpoint; the server's decision (or the accepting
 *   worker's wireup, whichever comes first) binds it to the accepting worker and opens its gate, or fails
 *   it;</li>
 *   <li>endpoint closes in FLUSH mode: wait for the endpoint's operations, tell the peer, flush the
 *   lanes, release them;</li>
 *   <li>the optional progress thread.</li>
 * </ul>
 * Everything here runs with the worker's guard held, except {@link #incoming} (listener threads).
 */
final class Lifecycle {
    private static final System.Logger LOG = System.getLogger(Lifecycle.class.getName());
    static final int SERVICE_EVERY = 32;

    static final ConfigVar<Long> KEEPALIVE_INTERVAL = ConfigRegistry.register("KEEPALIVE_INTERVAL", ConfigType.TIME,
        "500ms", "How often each endpoint's peer is checked (pid liveness, tcp reset/EOF); a dead peer fails its "
            + "endpoint within about this time plus the transport's own detection.");
    static final ConfigVar<Long> KEEPALIVE_TIMEOUT = ConfigRegistry.register("KEEPALIVE_TIMEOUT", ConfigType.TIME,
        "inf", "An endpoint whose peer sent no keepalive for this long fails with ENDPOINT_TIMEOUT: a peer that is "
            + "alive but stopped progressing (hung, or computing without calling progress). Off by default (inf), "
            + "as a long compute phase is normal; dead peers are found without it (pid checks on one node, resets "
            + "and the kernel's keepalive and TCP_USER_TIMEOUT over tcp).");
    static final ConfigVar<Long> EP_CLOSE_TIMEOUT = ConfigRegistry.register("EP_CLOSE_TIMEOUT", ConfigType.TIME,
        "2s", "Longest an endpoint close in FLUSH mode waits for outstanding operations before canceling them.");

    private final Worker worker;
    private final long keepaliveNs;
    private final long keepaliveTimeoutNs;
    private final long closeTimeoutNs;
    /** When keepalive rounds are due: soon after an endpoint appears, then every interval. */
    private final KeepaliveRamp keepaliveRamp;
    /** Keepalive rounds run so far (written by the progressing thread, read relaxed by tools and tests). */
    private long keepaliveRounds;

    private final ConcurrentLinkedQueue<ConnectionRequest> incoming = new ConcurrentLinkedQueue<>();
    private final List<ConnectionRequest> undecided = new ArrayList<>();
    private final List<Listener> listeners = new ArrayList<>();
    private final List<SockaddrConnect> connecting = new ArrayList<>();
    private final List<Endpoint> failing = new ArrayList<>();
    private final List<Status> failingStatus = new ArrayList<>();
    private final List<Request> closing = new ArrayList<>();
    private ProgressThread progressThread;

    Lifecycle(final Worker worker) {
        this.worker = worker;
        this.keepaliveNs = Math.max(1_000_000L, worker.context.config().get(KEEPALIVE_INTERVAL));
        this.keepaliveRamp = new KeepaliveRamp(keepaliveNs, System.nanoTime());
        final long kt = worker.context.config().get(KEEPALIVE_TIMEOUT);
        this.keepaliveTimeoutNs = kt <= 0 ? Long.MAX_VALUE : kt;
        this.closeTimeoutNs = Math.max(0L, worker.context.config().get(EP_CLOSE_TIMEOUT));
    }

    /** KEEPALIVE from a peer: it is alive and progressing. */
    Status onKeepalive(final MemorySegment data, final long off, final long len, final int flags) {
        final Endpoint ep = worker.epTable.named(data, off, len, "KEEPALIVE");
        if (ep != null) {
            ep.lastHeard = System.nanoTime(); // slow path: one message per keepalive interval
        }
        return Status.OK;
    }

    /** EP_REMOVED: the peer closed its endpoint to us. */
    Status onEpRemoved(final MemorySegment data, final long off, final long len, final int flags) {
        final Endpoint ep = worker.epTable.named(data, off, len, "EP_REMOVED");
        if (ep != null) {
            peerRemoved(ep); // handled from progress, outside this transport callback
        }
        return Status.OK;
    }

    /** A transport reports a broken connection: fail the endpoints that use it. */
    void onTransportError(final weft.uct.Endpoint uctEp, final Status st) {
        for (final Endpoint ep : new ArrayList<>(worker.epTable.live())) {
            if (ep.usesUct(uctEp)) {
                failLater(ep, st); // next progress call, outside the transport's callback
            }
        }
    }

    /** A new endpoint: its peer is checked, and sent keepalives, soon (see {@link KeepaliveRamp}). */
    void endpointAdded() {
        keepaliveRamp.restart();
    }

    /** Keepalive rounds run so far. */
    long keepaliveRounds() {
        return keepaliveRounds;
    }

    /** Longest a sleeping worker waits before checking its peers again (ms). */
    int sleepSliceMs() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, keepaliveNs / 1_000_000L));
    }

    /** Runs every service that is due; returns the work done. */
    int service() {
        return service(System.nanoTime());
    }

    /** {@link #service()} with the clock the caller just read. */
    int service(final long now) {
        int work = 0;
        final long gap = keepaliveRamp.sinceLastRound(now);
        if (keepaliveRamp.due(now)) {
            // if this worker itself was not progressed for a while, the peers' keepalives may be waiting
            // unread: restart their clocks instead of timing them out
            work += keepalive(now, gap > 4 * keepaliveNs);
        }
        if (!failing.isEmpty()) {
            work += handleFailures();
        }
        if (!connecting.isEmpty()) {
            work += pollConnecting(now);
        }
        if (!incoming.isEmpty()) {
            work += deliverRequests();
        }
        if (!closing.isEmpty()) {
            work += progressCloses(now);
        }
        return work;
    }

    // ------------------------------------------------------------------ keepalive and failures

    private int keepalive(final long now, final boolean wasAway) {
        keepaliveRounds++;
        int failed = 0;
        final ArrayList<Endpoint> eps = worker.epTable.live();
        for (int i = eps.size() - 1; i >= 0; i--) { // backwards: a failure may remove an endpoint
            if (i >= eps.size()) {
                continue;
            }
            final Endpoint ep = eps.get(i);
            if (ep.status() != Status.OK) {
                continue;
            }
            if (wasAway) {
                ep.lastHeard = now;
            }
            final Lane lane = ep.keepaliveLane();
            Status st = lane == null ? Status.OK : lane.uct.check();
            if (!st.isError() && keepaliveTimeoutNs != Long.MAX_VALUE && now - ep.lastHeard > keepaliveTimeoutNs) {
                st = Status.ENDPOINT_TIMEOUT;
            }
            if (st.isError()) {
                fail(ep, st);
                failed++;
            } else {
                EndpointClose.sendKeepalive(ep);
            }
        }
        return failed;
    }

    /** Fails {@code ep} (outstanding operations, error handler) and drops it if no user holds it. */
    private void fail(final Endpoint ep, final Status st) {
        ep.fail(st);
        if (!ep.userOwned) {
            ep.closeForce(st); // made by a peer's wireup and never claimed: nobody else will close it
        }
    }

    /** The peer closed its endpoint (EP_REMOVED, from a transport callback): fail ours from progress. */
    void peerRemoved(final Endpoint ep) {
        ep.removedNoticeSent = true; // the peer's side is gone: do not answer with a notice
        ep.removedByPeer = true;
        failLater(ep, Status.CONNECTION_RESET);
    }

    /**
     * A transport reported a failed lane (from inside its progress): the endpoint fails on the next
     * progress call, outside the transport's callback, so an error handler may close the endpoint.
     */
    void failLater(final Endpoint ep, final Status st) {
        if (!failing.contains(ep)) {
            failing.add(ep);
            failingStatus.add(st);
        }
        worker.serviceCountdown = 0;
    }

    private int handleFailures() {
        final int n = failing.size();
        for (int i = 0; i < failing.size(); i++) { // a handler may add more: they are handled too
            final Endpoint ep = failing.get(i);
            if (!ep.isClosed()) {
                fail(ep, failingStatus.get(i));
            }
        }
        failing.clear();
        failingStatus.clear();
        return n;
    }

    // ------------------------------------------------------------------ listeners (server side)

    Listener listen(final java.net.InetSocketAddress address, final ConnectionHandler handler) {
        if (handler == null) {
            throw new WeftException(Status.INVALID_PARAM, "a listener needs a connection handler");
        }
        final Listener l = new Listener(worker, address, handler);
        listeners.add(l);
        return l;
    }

    /** From a listener thread: an authenticated request for the handler. */
    void incoming(final ConnectionRequest r) {
        incoming.add(r);
        if (worker.hasWakeup()) {
            try {
                worker.signal();
            } catch (final WeftException e) {
                r.abandon(); // the worker closed meanwhile
            }
        }
    }

    private int deliverRequests() {
        int n = 0;
        ConnectionRequest r;
        while ((r = incoming.poll()) != null) {
            n++;
            if (r.listener().isClosed()) {
                r.abandon();
                continue;
            }
            undecided.removeIf(ConnectionRequest::isDecided); // decided since, maybe on another worker's thread
            undecided.add(r);
            r.listener().handler.onConnectionRequest(r); // may throw: progress rethrows, nothing is lost
        }
        return n;
    }

    void listenerClosed(final Listener l) {
        worker.guard.enter();
        try {
            listeners.remove(l);
            for (final ConnectionRequest r : new ArrayList<>(undecided)) {
                if (r.listener() == l) {
                    undecided.remove(r);
                    r.abandon();
                }
            }
            incoming.removeIf(r -> {
                if (r.listener() == l) {
                    r.abandon();
                    return true;
                }
                return false;
            });
        } finally {
            worker.guard.exit();
        }
    }

    // ------------------------------------------------------------------ sockaddr clients

    /**
     * See {@link Worker#connect(java.net.InetSocketAddress, long)}: the endpoint is a shell, with its connect
     * gate closed, until the server accepts (on the listener's worker or another: it binds to that one).
     * {@code blocking}: the handshake runs on the caller's thread (outside the worker lock) and its failure is
     * thrown; otherwise on a thread of its own, and progress fails the endpoint if it fails.
     */
    Endpoint connect(final java.net.InetSocketAddress address, final long clientId, final boolean blocking) {
        if (address == null) {
            throw new WeftException(Status.INVALID_PARAM, "connect: null socket address");
        }
        final ThreadGuard guard = worker.guard;
        final SockaddrConnect c;
        guard.enter();
        try {
            worker.checkOpen();
            final Endpoint ep = new Endpoint(worker);
            c = new SockaddrConnect(ep, address, clientId);
            ep.connecting = c;
            ep.closeGate(worker.acquire(Request.CONNECT));
            connecting.add(c); // listed before the handshake: the accepting worker's WIREUP may come first
            if (!blocking) {
                c.startThread(this::handshakeEnded);
                return ep;
            }
        } finally {
            guard.exit();
        }
        c.run();
        guard.enter();
        try {
            WeftException e = c.error();
            if (e == null && worker.isClosed()) { // closed while the handshake ran
                e = new WeftException(Status.CLOSED, "connect to " + address + ": the worker closed meanwhile");
            }
            if (e != null) {
                connecting.remove(c);
                c.ep.closeForce(e.status());
                throw e;
            }
            return c.ep;
        } finally {
            guard.exit();
        }
    }

    /** Whether a connect is in progress (its endpoint may hold operations waiting for the bind). */
    boolean anyConnecting() {
        return !connecting.isEmpty();
    }

    /** Adds the endpoints still connecting (shells not bound yet, not closed) to {@code out}, in connect order. */
    List<Endpoint> addConnecting(final List<Endpoint> out) {
        for (int i = 0; i < connecting.size(); i++) {
            final Endpoint ep = connecting.get(i).ep;
            if (ep.connecting != null && !ep.isClosed()) {
                out.add(ep);
            }
        }
        return out;
    }

    /** From a handshake thread: wake a sleeping worker so that progress sees the end of the handshake now. */
    private void handshakeEnded() {
        if (worker.hasWakeup()) {
            try {
                worker.signal();
            } catch (final WeftException e) {
                LOG.log(System.Logger.Level.DEBUG, "connect ended after the worker closed: " + e.getMessage());
            }
        }
    }

    /** Binds the shell to the worker that accepted it and starts what waits in it (may throw: no lane). */
    private void bind(final SockaddrConnect c, final WorkerAddress accepting) {
        final Endpoint ep = c.ep;
        final SockaddrHandshake.Client hs = c.result();
        worker.epTable.client(ep, accepting, c.sn);
        ep.localSocket = hs.local();
        ep.remoteSocket = hs.server();
        ep.connecting = null;
        c.bound();
    }

    /**
     * A WIREUP request with connection number {@code sn} from {@code remote}'s endpoint {@code src}: if it is
     * the accepting worker of one of our connects not bound yet, binds that endpoint to it and returns it. If
     * that connect's handshake thread has not ended yet (the server accepted before this side read its last
     * reply), the request is kept in the connect, answered once the handshake ends ({@link #pollConnecting}),
     * and the shell is returned unbound. Null if no connect of ours waits for that number.
     */
    Endpoint bindByWireup(final long sn, final WorkerAddress remote, final long src) {
        for (int i = 0; i < connecting.size(); i++) {
            final SockaddrConnect c = connecting.get(i);
            final Endpoint ep = c.ep;
            if (c.sn != sn || ep.isBound() || ep.status() != Status.OK) {
                continue;
            }
            if (!c.finished()) {
                c.earlySrc = src;
                c.earlyRemote = remote;
                return ep;
            }
            if (c.error() != null) {
                return null;
            }
            try {
                bind(c, remote);
                return ep;
            } catch (final WeftException e) {
                connecting.remove(i).close();
                failLater(ep, e.status()); // from progress, not inside this transport callback
                return null;
            }
        }
        return null;
    }

    /** The server accepted (decision or its wireup request): let the queued sends go. */
    void accepted(final Endpoint ep) {
        for (int i = 0; i < connecting.size(); i++) {
            if (connecting.get(i).ep == ep) {
                connecting.remove(i).close();
                break;
            }
        }
        ep.openGate();
    }

    private int pollConnecting(final long now) {
        int work = 0;
        for (int i = connecting.size() - 1; i >= 0; i--) {
            final SockaddrConnect c = connecting.get(i);
            final Endpoint ep = c.ep;
            if (ep.isClosed() || ep.failure() != null) {
                connecting.remove(i).close();
                continue;
            }
            if (!c.finished()) {
                continue; // the handshake thread is still at it (bounded by the connect timeout)
            }
            final WeftException e = c.error();
            if (e != null) {
                work++;
                connecting.remove(i).close();
                LOG.log(System.Logger.Level.DEBUG, "connect to " + c.server + " failed: " + e.getMessage());
                ep.fail(e.status());
                continue;
            }
            if (c.earlySrc >= 0 && !ep.isBound()) { // the accepting worker's WIREUP came before the handshake ended
                work++;
                try {
                    bind(c, c.earlyRemote);
                } catch (final WeftException x) {
                    connecting.remove(i).close();
                    ep.fail(x.status());
                    continue;
                }
                worker.epTable.answerWireup(ep, c.earlySrc); // its acceptance too: takes c off the list
                continue;
            }
            final int d = c.result().pollDecision();
            if (d == 0 && now - c.deadline() < 0) {
                continue;
            }
            work++;
            Status st = d == SockaddrHandshake.DECISION_REJECT ? Status.REJECTED
                : d == 0 ? Status.TIMED_OUT : Status.CONNECTION_RESET;
            if (d == SockaddrHandshake.DECISION_ACCEPT) {
                if (ep.isBound()) { // bound by the accepting worker's wireup already
                    accepted(ep);
                    continue;
                }
                try {
                    bind(c, c.result().accepting());
                    accepted(ep);
                    continue;
                } catch (final WeftException x) {
                    st = x.status(); // no transport reaches the accepting worker
                }
            }
            connecting.remove(i).close();
            LOG.log(System.Logger.Level.DEBUG, "connect to " + c.server + " failed: " + st);
            ep.fail(st);
        }
        return work;
    }

    // ------------------------------------------------------------------ endpoint close (FLUSH)

    Request startClose(final Endpoint ep) {
        for (final Request c : closing) {
            if (c.ep == ep) {
                throw new WeftException(Status.BUSY, "endpoint " + ep + " is already closing");
            }
        }
        final Request r = worker.acquire(Request.CLOSE);
        r.ep = ep;
        r.remoteAddress = System.nanoTime() + closeTimeoutNs; // the deadline
        r.sendStage = 0;
        closing.add(r);
        worker.serviceCountdown = 0;
        return r;
    }

    private int progressCloses(final long now) {
        int work = 0;
        for (int i = closing.size() - 1; i >= 0; i--) {
            final Request r = closing.get(i);
            final Endpoint ep = r.ep;
            final boolean late = now - r.remoteAddress >= 0;
            if (ep.isClosed() || ep.failure() != null) {
                closing.remove(i);
                ep.closeForce(Status.CANCELED);
                worker.complete(r, Status.OK);
                work++;
                continue;
            }
            if (r.sendStage == 0) {
                if (!late && (!ep.queue.isEmpty() || worker.inflight.has(ep) || worker.getPending.has(ep))) {
                    continue; // operations still running
                }
                EndpointClose.sendRemovedNotice(ep);
                r.completion.reset(1); // our reference
                for (final Lane l : ep.lanes) {
                    r.completion.expect(1);
                    final Status st = l.uct.flush(weft.uct.Interface.FLUSH_REMOTE, r.completion);
                    if (st != Status.IN_PROGRESS) {
                        r.completion.complete(Status.OK); // done, or cannot flush: the close proceeds anyway
                    }
                }
                r.completion.complete(Status.OK);
                r.sendStage = 1;
            }
            if (r.completion.isDone() || late) {
                closing.remove(i);
                ep.closeForce(Status.CANCELED);
                worker.complete(r, late ? Status.TIMED_OUT : Status.OK);
                work++;
            }
        }
        return work;
    }

    // ------------------------------------------------------------------ progress thread

    /** True while a progress thread runs this worker. */
    synchronized boolean hasProgressThread() {
        return progressThread != null;
    }

    synchronized void startProgressThread() {
        if (progressThread != null) {
            throw new WeftException(Status.BUSY, "the worker already has a progress thread");
        }
        progressThread = new ProgressThread(worker);
    }

    void stopProgressThread() {
        final ProgressThread t;
        synchronized (this) {
            t = progressThread;
            progressThread = null;
        }
        if (t != null) {
            t.stop();
        }
    }

    // ------------------------------------------------------------------ worker close

    /**
     * Worker close: listeners, pending connects and closes, undecided requests, then every endpoint
     * (outstanding operations CANCELED), posted receive and unexpected message (guard held).
     */
    void close() {
        for (final Listener l : new ArrayList<>(listeners)) {
            l.close();
        }
        for (final SockaddrConnect c : connecting) {
            c.close();
            if (!c.ep.isBound()) {
                c.ep.closeForce(Status.CANCELED); // a shell is in no table: closed here
            }
        }
        connecting.clear();
        for (final ConnectionRequest r : undecided) {
            r.abandon();
        }
        undecided.clear();
        ConnectionRequest r;
        while ((r = incoming.poll()) != null) {
            r.abandon();
        }
        for (final Request c : closing) {
            c.ep.closeForce(Status.CANCELED);
            worker.complete(c, Status.CANCELED);
        }
        closing.clear();
        failing.clear();
        failingStatus.clear();
        for (final Endpoint ep : new ArrayList<>(worker.epTable.live())) {
            ep.closeForce(Status.CANCELED);
        }
        worker.matcher.drainExpected(q -> worker.complete(q, Status.CANCELED));
        worker.matcher.drainUnexpected(worker.unexpected::release);
        worker.requests.drainDone();
    }
}
