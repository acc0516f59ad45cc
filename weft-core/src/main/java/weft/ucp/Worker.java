package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;
import weft.ucs.wakeup.EventFd;
import weft.ucs.wakeup.EventSet;
import weft.uct.AmHandler;
import weft.uct.Capability;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.Transport;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The progress engine: owns one transport interface per usable device, the endpoints, the tag
 * matcher and the request pool. Nothing happens unless some thread calls {@link #progress()} (or a
 * blocking wait such as {@link Request#await()}).
 *
 * <pre>{@code
 * Worker w = ctx.newWorker();
 * Request r = w.recvTag(buf, 0, 1024, 42, -1L);   // exact tag 42
 * while (!r.isCompleted()) w.progress();
 * r.release();
 * }</pre>
 *
 * <p>Thread safety follows the {@link ThreadMode} given at creation, and is enforced.
 */
public final class Worker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Worker.class.getName());
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    final Context context;
    final ThreadGuard guard;
    private final UctWorker uct = new UctWorker();
    final WorkerIface[] ifaces;
    final long uuid;
    private final byte[] address;
    final TagMatcher matcher = new TagMatcher();
    final UnexpectedPool unexpected;
    private final Arena arena = Arena.ofShared();

    // endpoints by id: slot | generation << 32
    private Endpoint[] eps = new Endpoint[16];
    private int[] epGen = new int[16];
    private int epHigh;
    private final ArrayList<Endpoint> liveEps = new ArrayList<>();
    private final Map<Long, Peer> peers = new HashMap<>();

    // requests a peer names by id (sync sends, rendezvous)
    private Request[] inflight = new Request[64];
    private int[] inflightGen = new int[64];
    private int[] inflightFree = new int[64];
    private int inflightFreeCount;
    private int inflightHigh;

    private Request[] pool = new Request[64];
    private int poolSize;
    private Request doneHead;
    private Request doneTail;
    final ArrayList<Endpoint> sendPending = new ArrayList<>();
    final ArrayList<Request> getPending = new ArrayList<>();
    private RuntimeException callbackFailure;

    private final EventSet events;
    private final EventFd signalFd;
    private boolean closed;
    /** Counts progress calls; idle interfaces get their turn when its low bits are zero. */
    private int progressTick;

    /** The peer-worker record used to pair endpoints created from both sides (by connection number). */
    private static final class Peer {
        long nextSn;
        final Map<Long, Endpoint> bySn = new HashMap<>();
    }

    Worker(final Context context, final ThreadMode mode) {
        this.context = context;
        this.guard = new ThreadGuard(mode);
        // identity only (no secret): random bits mixed with pid and time, without opening /dev/random
        this.uuid = java.util.concurrent.ThreadLocalRandom.current().nextLong()
            ^ (ProcessHandle.current().pid() << 40) ^ System.nanoTime();
        this.unexpected = new UnexpectedPool(context.unexpectedBudget);
        final List<WorkerIface> list = new ArrayList<>();
        final InterfaceParams params = InterfaceParams.defaults().withConfig(context.config())
            .withErrorHandler(this::onTransportError);
        try {
            for (final Transport t : context.transports()) {
                for (final Device d : t.devices()) {
                    final Interface iface = t.openInterface(uct, d, params);
                    list.add(new WorkerIface(list.size(), t, d, iface));
                }
            }
        } catch (final RuntimeException e) {
            uct.close();
            throw e;
        }
        this.ifaces = list.toArray(new WorkerIface[0]);
        for (final WorkerIface wi : ifaces) {
            if (wi.attrs.has(Capability.AM_BCOPY)) {
                final Interface i = wi.iface;
                i.setAmHandler(AmId.WIREUP, this::onWireup);
                i.setAmHandler(AmId.EAGER, this::onEager);
                i.setAmHandler(AmId.EAGER_FIRST, this::onEagerFirst);
                i.setAmHandler(AmId.EAGER_MIDDLE, this::onEagerMiddle);
                i.setAmHandler(AmId.SYNC_ACK, this::onSyncAck);
                i.setAmHandler(AmId.RNDV_RTS, this::onRts);
                i.setAmHandler(AmId.RNDV_ATS, this::onAts);
                i.setAmHandler(AmId.RNDV_RTR, this::onRtr);
                i.setAmHandler(AmId.RNDV_DATA, this::onRndvData);
            }
        }
        final List<WorkerAddress.Entry> entries = new ArrayList<>();
        for (final WorkerIface wi : ifaces) {
            entries.add(wi.addressEntry());
        }
        this.address = new WorkerAddress(uuid, entries).pack();
        if (context.features().contains(Feature.WAKEUP)) {
            events = new EventSet(ifaces.length + 1);
            signalFd = new EventFd();
            events.add(signalFd.fd(), LibC.EPOLLIN, -1);
            for (final WorkerIface wi : ifaces) {
                if (wi.iface.eventFd() >= 0) {
                    events.add(wi.iface.eventFd(), LibC.EPOLLIN, wi.index);
                }
            }
        } else {
            events = null;
            signalFd = null;
        }
    }

    /** The context this worker belongs to. */
    public Context context() {
        return context;
    }

    /** The thread mode given at creation. */
    public ThreadMode threadMode() {
        return guard.mode();
    }

    /** This worker's address: give it to peers (out of band) so they can {@link #connect} to it. */
    public byte[] address() {
        return address.clone();
    }

    /** Names of the opened resources, e.g. {@code [self/self, shm/memory, tcp/lo]}. */
    public List<String> resources() {
        final List<String> l = new ArrayList<>();
        for (final WorkerIface wi : ifaces) {
            l.add(wi.name());
        }
        return l;
    }

    // ------------------------------------------------------------------ endpoints

    /**
     * An endpoint to the worker whose {@link #address()} is given. Lanes are chosen at once and the
     * endpoint can send immediately; wireup (learning the peer's endpoint id) completes in the
     * background, and only sends that need it (synchronous, multi-fragment, rendezvous) wait for it.
     *
     * @throws WeftException UNREACHABLE if no transport reaches the peer, INVALID_PARAM for a bad address
     */
    public Endpoint connect(final byte[] remoteAddress) {
        guard.enter();
        try {
            checkOpen();
            final WorkerAddress remote = WorkerAddress.unpack(remoteAddress);
            final Peer peer = peers.computeIfAbsent(remote.uuid(), k -> new Peer());
            final long sn = peer.nextSn++;
            Endpoint ep = peer.bySn.get(sn);
            if (ep != null) { // the peer connected to us first: that endpoint is ours too
                ep.userOwned = true;
                return ep;
            }
            ep = newEndpoint(remote, sn);
            ep.userOwned = true;
            peer.bySn.put(sn, ep);
            ep.sendWireup(AmId.WIREUP_REQUEST, -1);
            return ep;
        } finally {
            guard.exit();
        }
    }

    private Endpoint newEndpoint(final WorkerAddress remote, final long sn) {
        final LaneSelector.Selection sel = LaneSelector.select(ifaces, remote, context);
        final int slot = allocEpSlot();
        final long id = slot | (long) epGen[slot] << 32;
        final Endpoint ep = new Endpoint(this, id, remote, sn, sel);
        eps[slot] = ep;
        liveEps.add(ep);
        for (final Lane l : ep.lanes) {
            l.local.lanes++; // the interface is now in use: progressed on every call
        }
        return ep;
    }

    private int allocEpSlot() {
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

    Endpoint endpointById(final long id) {
        final int slot = (int) id;
        if (slot < 0 || slot >= epHigh) {
            return null;
        }
        final Endpoint ep = eps[slot];
        return ep != null && ep.id == id ? ep : null;
    }

    void removeEndpoint(final Endpoint ep) {
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
        sendPending.remove(ep);
        final Peer p = peers.get(ep.remote.uuid());
        if (p != null) {
            p.bySn.remove(ep.connSn, ep);
        }
    }

    /** Endpoints open on this worker (including ones peers created toward it). */
    public List<Endpoint> endpoints() {
        guard.enter();
        try {
            return List.copyOf(liveEps);
        } finally {
            guard.exit();
        }
    }

    // ------------------------------------------------------------------ tag receive

    /** Receives into all of {@code buf} a message whose tag matches {@code tag} under {@code mask}. */
    public Request recvTag(final MemorySegment buf, final long tag, final long mask) {
        return recvTag(buf, 0, buf.byteSize(), tag, mask, null, null);
    }

    /** Receives into {@code buf[offset, offset+length)}; mask -1 means exact tag, 0 means any tag. */
    public Request recvTag(final MemorySegment buf, final long offset, final long length, final long tag,
                           final long mask) {
        return recvTag(buf, offset, length, tag, mask, null, null);
    }

    /**
     * Posts a tag receive.
     *
     * @param info     filled with the sender's tag and length on completion (may be null); the only way
     *                 to learn them when the receive completes at once and returns {@link Request#done}
     * @param callback called from progress on completion (may be null); see {@link Request}
     * @return the request; a receive that completes with data already here returns a done request
     *     (status OK or MESSAGE_TRUNCATED) when no callback is given
     */
    public Request recvTag(final MemorySegment buf, final long offset, final long length, final long tag,
                           final long mask, final TagInfo info, final RequestCallback callback) {
        guard.enter();
        try {
            checkOpen();
            checkRange(buf, offset, length);
            final TagMessage m = matcher.matchUnexpected(tag, mask, true);
            if (m == null) {
                final Request r = acquire(Request.RECV);
                r.buffer = buf;
                r.offset = offset;
                r.capacity = length;
                r.tag = tag;
                r.mask = mask;
                r.info = info;
                r.callback = callback;
                matcher.addExpected(r);
                return r;
            }
            return receiveUnexpected(m, buf, offset, length, info, callback);
        } finally {
            guard.exit();
        }
    }

    /**
     * Looks for an unexpected message matching (tag, mask) without posting a receive.
     *
     * @param remove if true the message is taken out of the queue and must be received with
     *               {@link #recvTag(TagMessage, MemorySegment, long, long)}
     * @return the message, or null if none has arrived
     */
    public TagMessage probeTag(final long tag, final long mask, final boolean remove) {
        guard.enter();
        try {
            checkOpen();
            final TagMessage m = matcher.matchUnexpected(tag, mask, remove);
            if (m != null && remove) {
                m.probedOut = true;
            }
            return m;
        } finally {
            guard.exit();
        }
    }

    /** Receives a message taken out by {@link #probeTag} with {@code remove = true}. */
    public Request recvTag(final TagMessage message, final MemorySegment buf, final long offset, final long length) {
        return recvTag(message, buf, offset, length, null, null);
    }

    /** Receives a probed-out message, with info and callback as in {@link #recvTag(MemorySegment, long, long, long, long, TagInfo, RequestCallback)}. */
    public Request recvTag(final TagMessage message, final MemorySegment buf, final long offset, final long length,
                           final TagInfo info, final RequestCallback callback) {
        guard.enter();
        try {
            checkOpen();
            checkRange(buf, offset, length);
            if (!message.probedOut) {
                throw new WeftException(Status.INVALID_PARAM, "message was not removed by probeTag(..., true) "
                    + "or was already received");
            }
            message.probedOut = false;
            return receiveUnexpected(message, buf, offset, length, info, callback);
        } finally {
            guard.exit();
        }
    }

    /**
     * Cancels a receive that has not matched yet: it completes with {@link Status#CANCELED}. A request
     * that already matched (or a send) is left alone and completes normally.
     *
     * @return true if the request was canceled
     */
    public boolean cancel(final Request r) {
        guard.enter();
        try {
            if (r.worker != this || r.completed || r.kind != Request.RECV || !matcher.removeExpected(r)) {
                return false;
            }
            complete(r, Status.CANCELED);
            return true;
        } finally {
            guard.exit();
        }
    }

    private Request receiveUnexpected(final TagMessage m, final MemorySegment buf, final long offset,
                                      final long length, final TagInfo info, final RequestCallback callback) {
        final Request r = acquire(Request.RECV);
        r.buffer = buf;
        r.offset = offset;
        r.capacity = length;
        r.tag = m.tag;
        r.mask = -1;
        r.info = info;
        r.callback = callback;
        r.length = m.length;
        if (m.rts) {
            r.kind = Request.RNDV_RECV;
            final Endpoint ep = m.ep;
            final long sreq = m.syncReqId;
            final long addr = m.rtsAddress;
            final byte[][] keys = m.rkeys;
            unexpected.release(m);
            ep.startRndvReceive(r, sreq, addr, keys);
        } else {
            final long n = Math.min(m.received, length);
            MemorySegment.copy(m.data, 0, buf, offset, n);
            r.received = m.received;
            if (m.syncReqId >= 0 && m.ep != null) {
                m.ep.sendControl(AmId.SYNC_ACK, m.syncReqId, 0);
            }
            if (m.isComplete()) {
                unexpected.release(m);
                complete(r, r.length > length ? Status.MESSAGE_TRUNCATED : Status.OK);
            } else { // fragments still arriving: they go straight into the user's buffer from now on
                m.ep.rxRequest = r;
                m.ep.rxMessage = null;
                unexpected.release(m);
                return r;
            }
        }
        return finishImmediate(r);
    }

    /** Returns a shared done request for an operation that completed inside its call, if allowed. */
    Request finishImmediate(final Request r) {
        if (r.completed && r.callback == null && r.future == null && !r.queuedDone) {
            final Status st = r.status;
            if (r.info != null) {
                r.info.set(r.tag, r.length);
            }
            recycle(r);
            return Request.done(st);
        }
        return r;
    }

    // ------------------------------------------------------------------ progress and waiting

    /**
     * Makes progress on every interface and runs completion callbacks.
     *
     * @return the amount of work done (0 when nothing happened)
     */
    public int progress() {
        guard.enter();
        try {
            if (closed) {
                return 0;
            }
            int work = drainDone();
            work += progressInterfaces();
            if (!sendPending.isEmpty()) {
                work += progressPendingSends();
            }
            if (!getPending.isEmpty()) {
                work += progressPendingGets();
            }
            work += drainDone();
            final RuntimeException f = callbackFailure;
            if (f != null) {
                callbackFailure = null;
                throw f;
            }
            return work;
        } finally {
            guard.exit();
        }
    }

    /**
     * Adaptive progress (UCX's idea): interfaces that carry a lane of some endpoint are progressed on
     * every call; idle ones (no lane: e.g. tcp when every peer is reached over shm, whose progress is an
     * epoll_wait syscall) once every {@link #IDLE_PERIOD} calls, which is enough to notice a peer's
     * first message (wireup, a connection). An idle interface that did work stays "hot", progressed on
     * every call, for {@link #HOT_CALLS} calls, so that traffic on it is never throttled for long.
     */
    private int progressInterfaces() {
        final boolean idleTurn = (++progressTick & (IDLE_PERIOD - 1)) == 0;
        int work = 0;
        for (final WorkerIface wi : ifaces) {
            if (wi.lanes > 0) {
                work += wi.iface.progress();
            } else if (idleTurn || wi.hot > 0) {
                final int n = wi.iface.progress();
                wi.hot = n > 0 ? HOT_CALLS : wi.hot - (wi.hot > 0 ? 1 : 0);
                work += n;
            }
        }
        return work;
    }

    /** An idle interface is progressed once in this many calls (a power of two). */
    static final int IDLE_PERIOD = 32;
    /** Calls for which an idle interface that did work is progressed every time. */
    static final int HOT_CALLS = 4096;

    /** Progresses until {@code r} completes. */
    void await(final Request r) {
        int idle = 0;
        while (!r.completed) {
            if (closed) {
                throw new WeftException(Status.CLOSED, "worker closed while waiting for " + r);
            }
            if (progress() == 0) {
                if (++idle > 2000) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            } else {
                idle = 0;
            }
        }
    }

    /**
     * Blocks until an interface has an event or {@link #signal()} is called, or {@code timeoutMs} passes
     * (-1 = no limit). Returns at once if there is work to do. Needs {@link Feature#WAKEUP}.
     *
     * @return true if woken by an event, false on timeout
     */
    public boolean waitForEvents(final int timeoutMs) {
        if (events == null) {
            throw new WeftException(Status.UNSUPPORTED, "waitForEvents needs Feature.WAKEUP in the context");
        }
        guard.enter();
        try {
            if (doneHead != null || !sendPending.isEmpty() || !getPending.isEmpty()) {
                return true;
            }
            for (final WorkerIface wi : ifaces) {
                if (wi.iface.eventFd() >= 0 && wi.iface.arm() != Status.OK) {
                    return true; // events are pending: progress instead of sleeping
                }
            }
        } finally {
            guard.exit();
        }
        final boolean woke = events.await(timeoutMs) > 0;
        signalFd.drain();
        if (woke) {
            guard.enter();
            try {
                for (final WorkerIface wi : ifaces) {
                    wi.hot = HOT_CALLS; // the event may be on an idle interface: progress it at once
                }
            } finally {
                guard.exit();
            }
        }
        return woke;
    }

    /** Wakes a thread blocked in {@link #waitForEvents}; callable from any thread. */
    public void signal() {
        if (signalFd == null) {
            throw new WeftException(Status.UNSUPPORTED, "signal needs Feature.WAKEUP in the context");
        }
        signalFd.signal();
    }

    private int progressPendingSends() {
        int work = 0;
        for (int i = 0; i < sendPending.size(); ) {
            final Endpoint ep = sendPending.get(i);
            work += ep.progressSendQueue();
            if (ep.sendQueueEmpty()) {
                sendPending.remove(i);
            } else {
                i++;
            }
        }
        return work;
    }

    private int progressPendingGets() {
        int work = 0;
        for (int i = 0; i < getPending.size(); ) {
            final Request r = getPending.get(i);
            if (r.ep.issueGets(r)) {
                getPending.remove(i);
                work++;
            } else {
                i++;
            }
        }
        return work;
    }

    // ------------------------------------------------------------------ requests

    Request acquire(final byte kind) {
        final Request r = poolSize == 0 ? new Request(this) : pool[--poolSize];
        r.reset();
        r.kind = kind;
        return r;
    }

    void recycle(final Request r) {
        if (r.worker != this) {
            return;
        }
        if (poolSize == pool.length) {
            pool = Arrays.copyOf(pool, poolSize * 2);
        }
        pool[poolSize++] = r;
    }

    long registerInflight(final Request r) {
        final int slot;
        if (inflightFreeCount > 0) {
            slot = inflightFree[--inflightFreeCount];
        } else {
            if (inflightHigh == inflight.length) {
                inflight = Arrays.copyOf(inflight, inflightHigh * 2);
                inflightGen = Arrays.copyOf(inflightGen, inflightHigh * 2);
                inflightFree = Arrays.copyOf(inflightFree, inflightHigh * 2);
            }
            slot = inflightHigh++;
        }
        inflight[slot] = r;
        r.id = slot | (long) inflightGen[slot] << 32;
        return r.id;
    }

    Request inflightById(final long id) {
        final int slot = (int) id;
        if (id < 0 || slot >= inflightHigh) {
            return null;
        }
        final Request r = inflight[slot];
        return r != null && r.id == id ? r : null;
    }

    private void releaseInflight(final Request r) {
        final int slot = (int) r.id;
        if (slot >= 0 && slot < inflightHigh && inflight[slot] == r) {
            inflight[slot] = null;
            inflightGen[slot]++;
            inflightFree[inflightFreeCount++] = slot;
        }
        r.id = -1;
    }

    /** Completes {@code r}: callbacks and futures run from progress, never from the caller's call. */
    void complete(final Request r, final Status st) {
        if (r.completed) {
            return;
        }
        r.status = st;
        if (r.id >= 0) {
            releaseInflight(r);
        }
        if (r.handles != null) {
            r.ep.releaseRendezvousResources(r);
        }
        r.completed = true;
        if (r.info != null) {
            r.info.set(r.tag, r.length);
        }
        if (r.callback != null || r.future != null) {
            r.queuedDone = true;
            if (doneTail == null) {
                doneHead = r;
            } else {
                doneTail.nextDone = r;
            }
            doneTail = r;
        } else if (r.released) {
            recycle(r);
        }
    }

    private int drainDone() {
        int n = 0;
        while (doneHead != null) {
            final Request r = doneHead;
            doneHead = r.nextDone;
            if (doneHead == null) {
                doneTail = null;
            }
            r.nextDone = null;
            r.queuedDone = false;
            n++;
            try {
                if (r.callback != null) {
                    r.callback.onComplete(r);
                }
                if (r.future != null) {
                    r.future.complete(r);
                }
            } catch (final RuntimeException e) {
                if (callbackFailure == null) {
                    callbackFailure = e; // rethrown by progress() once every completion has run
                } else {
                    callbackFailure.addSuppressed(e);
                }
            }
            if (r.callback != null || r.released) {
                r.released = true;
                recycle(r);
            }
        }
        return n;
    }

    /** Called by a request's uct completion (rendezvous gets). */
    void onTransportCompletion(final Request r, final Status st) {
        if (r.kind == Request.RNDV_RECV) {
            r.ep.finishRndvReceive(r, st);
        }
    }

    // ------------------------------------------------------------------ AM handlers

    private Status onWireup(final MemorySegment data, final long off, final long len, final int flags) {
        final byte type = data.get(ValueLayout.JAVA_BYTE, off);
        final long src = data.get(LONG, off + 1);
        final long dst = data.get(LONG, off + 9);
        final long sn = data.get(LONG, off + 17);
        if (type == AmId.WIREUP_REPLY) {
            final Endpoint ep = endpointById(dst);
            if (ep != null) {
                ep.onRemoteId(src);
            }
            return Status.OK;
        }
        final byte[] addr = data.asSlice(off + 25, len - 25).toArray(ValueLayout.JAVA_BYTE);
        final WorkerAddress remote;
        try {
            remote = WorkerAddress.unpack(addr);
        } catch (final WeftException e) {
            LOG.log(System.Logger.Level.WARNING, "dropping wireup request with a bad address: " + e.getMessage());
            return Status.OK;
        }
        final Peer peer = peers.computeIfAbsent(remote.uuid(), k -> new Peer());
        Endpoint ep = peer.bySn.get(sn);
        if (ep == null) {
            try {
                ep = newEndpoint(remote, sn);
            } catch (final WeftException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot create the endpoint a peer asked for: " + e.getMessage());
                return Status.OK;
            }
            peer.bySn.put(sn, ep);
        }
        ep.onRemoteId(src);
        ep.sendWireup(AmId.WIREUP_REPLY, src);
        return Status.OK;
    }

    private Status onEager(final MemorySegment data, final long off, final long len, final int flags) {
        final long tag = data.get(LONG, off);
        final long plen = len - 8;
        final Request r = matcher.matchExpected(tag);
        if (r != null) {
            final long n = Math.min(plen, r.capacity);
            MemorySegment.copy(data, off + 8, r.buffer, r.offset, n);
            r.tag = tag;
            r.length = plen;
            complete(r, plen > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            return Status.OK;
        }
        final TagMessage m = unexpected.acquire(plen);
        MemorySegment.copy(data, off + 8, m.data, 0, plen);
        m.tag = tag;
        m.length = plen;
        m.received = plen;
        matcher.addUnexpected(m);
        return Status.OK;
    }

    private Status onEagerFirst(final MemorySegment data, final long off, final long len, final int flags) {
        final long tag = data.get(LONG, off);
        final Endpoint ep = endpointById(data.get(LONG, off + 8));
        final long total = data.get(LONG, off + 16);
        final long sync = data.get(LONG, off + 24);
        final long plen = len - AmId.FIRST_HEADER;
        if (ep == null || plen > total || total < 0) {
            LOG.log(System.Logger.Level.WARNING, "dropping an eager fragment for an unknown endpoint or with a bad length");
            return Status.OK;
        }
        final long src = off + AmId.FIRST_HEADER;
        final Request r = matcher.matchExpected(tag);
        if (r != null) {
            r.tag = tag;
            r.length = total;
            final long n = Math.min(plen, r.capacity);
            MemorySegment.copy(data, src, r.buffer, r.offset, n);
            r.received = plen;
            if (sync >= 0) {
                ep.sendControl(AmId.SYNC_ACK, sync, 0);
            }
            if (plen == total) {
                complete(r, total > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            } else {
                ep.rxRequest = r;
            }
            return Status.OK;
        }
        final TagMessage m = unexpected.acquire(total);
        MemorySegment.copy(data, src, m.data, 0, plen);
        m.tag = tag;
        m.length = total;
        m.received = plen;
        m.ep = ep;
        m.syncReqId = sync;
        if (plen < total) {
            ep.rxMessage = m;
        }
        matcher.addUnexpected(m);
        return Status.OK;
    }

    private Status onEagerMiddle(final MemorySegment data, final long off, final long len, final int flags) {
        final Endpoint ep = endpointById(data.get(LONG, off));
        final long at = data.get(LONG, off + 8);
        final long plen = len - AmId.MIDDLE_HEADER;
        if (ep == null) {
            return Status.OK;
        }
        final Request r = ep.rxRequest;
        if (r != null) {
            if (at < r.capacity) {
                MemorySegment.copy(data, off + AmId.MIDDLE_HEADER, r.buffer, r.offset + at, Math.min(plen, r.capacity - at));
            }
            r.received += plen;
            if (r.received >= r.length) {
                ep.rxRequest = null;
                complete(r, r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            }
            return Status.OK;
        }
        final TagMessage m = ep.rxMessage;
        if (m != null && at + plen <= m.length) {
            MemorySegment.copy(data, off + AmId.MIDDLE_HEADER, m.data, at, plen);
            m.received += plen;
            if (m.received >= m.length) {
                ep.rxMessage = null;
            }
        }
        return Status.OK;
    }

    private Status onSyncAck(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = inflightById(data.get(LONG, off));
        if (r != null) {
            r.acked = true;
            if (r.localDone) {
                complete(r, Status.OK);
            }
        }
        return Status.OK;
    }

    private Status onRts(final MemorySegment data, final long off, final long len, final int flags) {
        final long tag = data.get(LONG, off);
        final Endpoint ep = endpointById(data.get(LONG, off + 8));
        final long total = data.get(LONG, off + 16);
        final long sreq = data.get(LONG, off + 24);
        final long addr = data.get(LONG, off + 32);
        final int n = data.get(ValueLayout.JAVA_INT_UNALIGNED, off + 40);
        if (ep == null || n < 0 || n > 16) {
            return Status.OK;
        }
        final byte[][] keys = new byte[n][];
        long p = off + AmId.RTS_HEADER;
        for (int i = 0; i < n; i++) {
            final int kl = data.get(ValueLayout.JAVA_SHORT_UNALIGNED, p) & 0xffff;
            keys[i] = data.asSlice(p + 2, kl).toArray(ValueLayout.JAVA_BYTE);
            p += 2 + kl;
        }
        final Request r = matcher.matchExpected(tag);
        if (r != null) {
            r.kind = Request.RNDV_RECV;
            r.tag = tag;
            r.length = total;
            ep.startRndvReceive(r, sreq, addr, keys);
            return Status.OK;
        }
        final TagMessage m = unexpected.acquire(0);
        m.tag = tag;
        m.length = total;
        m.rts = true;
        m.ep = ep;
        m.syncReqId = sreq;
        m.rtsAddress = addr;
        m.rkeys = keys;
        matcher.addUnexpected(m);
        return Status.OK;
    }

    private Status onAts(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = inflightById(data.get(LONG, off));
        if (r != null) {
            final Status st = Status.of((int) data.get(LONG, off + 8));
            complete(r, st == Status.MESSAGE_TRUNCATED ? Status.OK : st);
        }
        return Status.OK;
    }

    private Status onRtr(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = inflightById(data.get(LONG, off));
        if (r != null && r.kind == Request.RNDV_SEND) {
            r.remoteReqId = data.get(LONG, off + 8);
            r.ep.startRndvData(r);
        }
        return Status.OK;
    }

    private Status onRndvData(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = inflightById(data.get(LONG, off));
        final long at = data.get(LONG, off + 8);
        final long plen = len - AmId.DATA_HEADER;
        if (r == null || r.kind != Request.RNDV_RECV) {
            return Status.OK;
        }
        if (at < r.capacity) {
            MemorySegment.copy(data, off + AmId.DATA_HEADER, r.buffer, r.offset + at, Math.min(plen, r.capacity - at));
        }
        r.received += plen;
        if (r.received >= r.length) {
            complete(r, r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
        }
        return Status.OK;
    }

    // ------------------------------------------------------------------ errors and lifecycle

    private void onTransportError(final weft.uct.Endpoint uctEp, final Status st) {
        for (final Endpoint ep : new ArrayList<>(liveEps)) {
            if (ep.usesUct(uctEp)) {
                ep.fail(st);
            }
        }
    }

    /** Completes every in-flight request that belongs to {@code ep} with {@code st}. */
    void failInflight(final Endpoint ep, final Status st) {
        for (int i = 0; i < inflightHigh; i++) {
            final Request r = inflight[i];
            if (r != null && r.ep == ep) {
                complete(r, st);
            }
        }
        for (int i = getPending.size() - 1; i >= 0; i--) {
            if (getPending.get(i).ep == ep) {
                getPending.remove(i);
            }
        }
    }

    Arena arena() {
        return arena;
    }

    void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "worker is closed");
        }
    }

    void checkThread() {
        if (!guard.isHeldByCurrentThread() && guard.mode() == ThreadMode.SINGLE) {
            guard.enter(); // throws with the explanation
        }
    }

    static void checkRange(final MemorySegment buf, final long offset, final long length) {
        if (offset < 0 || length < 0 || length > buf.byteSize() - offset) {
            throw new WeftException(Status.INVALID_PARAM, "buffer range [" + offset + ", +" + length
                + ") is outside a segment of " + buf.byteSize() + " bytes");
        }
    }

    /**
     * Closes every endpoint (outstanding operations complete with CANCELED), every interface, and frees
     * the worker's memory. Callbacks of canceled operations run before this returns.
     */
    @Override
    public void close() {
        guard.enter();
        try {
            if (closed) {
                return;
            }
            for (final Endpoint ep : new ArrayList<>(liveEps)) {
                ep.closeForce(Status.CANCELED);
            }
            matcher.drainExpected(r -> complete(r, Status.CANCELED));
            matcher.drainUnexpected(unexpected::release);
            drainDone();
            closed = true;
            uct.close();
            unexpected.close();
            arena.close();
            if (events != null) {
                events.close();
                signalFd.close();
            }
        } finally {
            guard.exit();
            context.removeWorker(this);
        }
    }

    void closeFromContext() {
        close();
    }

    @Override
    public String toString() {
        return "Worker[" + Long.toHexString(uuid) + ", " + resources() + "]";
    }
}
