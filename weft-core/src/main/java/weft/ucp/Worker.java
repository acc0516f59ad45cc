package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counters;
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
import java.util.LinkedHashMap;
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
    /**
     * Loaded with this class: C2 never inlines a method whose signature names a class that is not loaded
     * yet ("unloaded signature classes"), so a program that never passes a callback or a TagInfo kept
     * Endpoint.send and Worker.recvTag out of line for good (seen in perftest's PrintInlining).
     */
    @SuppressWarnings("unused")
    private static final Class<?>[] SIGNATURE_CLASSES = {RequestCallback.class, TagInfo.class, GenericDatatype.class};

    final Context context;
    final ThreadGuard guard;
    /** Unpacked remote keys shared by this worker's Rkeys (symmetric keys: one copy for every PE). */
    final SharedRemoteKeys remoteKeys = new SharedRemoteKeys();
    private final UctWorker uct = new UctWorker();
    final WorkerIface[] ifaces;
    final long uuid;
    private final byte[] address;
    final TagMatcher matcher = new TagMatcher();
    final UnexpectedPool unexpected;
    final ActiveMessages ams;
    final Streams streams;
    final SoftAtomics softAtomics = new SoftAtomics(this);
    final TagEager tagEager;
    final TagRecv tagRecv = new TagRecv(this);
    final RndvSend rndvSend;
    final RndvRecv rndvRecv;
    /** The protocol of each request kind ({@link #protocol(byte)}). */
    private final SendProtocol[] protocols = new SendProtocol[Request.KINDS];
    final EagerGet eagerGet;
    final FlowControl flow;
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
    /** See {@link #rmaSpare()}. */
    private Request rmaSpare;
    private int poolSize;
    private Request doneHead;
    private Request doneTail;
    final PendingEndpoints sendPending = new PendingEndpoints();
    final ArrayList<Request> getPending = new ArrayList<>();
    /** Packs RTR_PUT messages (RndvPut); reused, the data path of one worker is single threaded. */
    final RndvPut.RtrPacker rtrPacker = new RndvPut.RtrPacker();
    private RuntimeException callbackFailure;

    private final EventSet events;
    private final EventFd signalFd;
    private boolean closed;
    // lifecycle services (keepalive, listeners, sockaddr connects, endpoint closes): run from progress
    // every Lifecycle.SERVICE_EVERY calls, so the fast path pays one decrement and compare
    final Lifecycle lifecycle;
    int serviceCountdown;
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
        this.ams = new ActiveMessages(this);
        this.streams = new Streams(this, Math.min(context.config().get(Streams.WINDOW), context.unexpectedBudget));
        this.eagerGet = new EagerGet(this, context.eagerGetMax, context.eagerGetPool);
        this.flow = new FlowControl(this);
        this.tagEager = new TagEager(this);
        this.rndvSend = new RndvSend(this);
        this.rndvRecv = new RndvRecv(this);
        java.util.Arrays.fill(protocols, SendProtocol.NONE);
        protocols[Request.SEND] = tagEager;
        protocols[Request.RNDV_SEND] = rndvSend;
        protocols[Request.RNDV_RECV] = rndvRecv;
        protocols[Request.AM_SEND] = ams;
        protocols[Request.STREAM_SEND] = streams;
        protocols[Request.RMA] = EndpointRma.PROTOCOL;
        protocols[Request.CONTROL] = ControlSend.INSTANCE;
        protocols[Request.CONNECT] = ControlSend.INSTANCE;
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
                registerAmHandlers(wi.iface);
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
        this.lifecycle = new Lifecycle(this);
    }

    /** Installs the protocol's active-message handlers on {@code i} (the fuzz tests call it on a recorder). */
    void registerAmHandlers(final Interface i) {
        i.setAmHandler(AmId.WIREUP, this::onWireup);
        tagEager.register(i);
        rndvSend.register(i);
        rndvRecv.register(i);
        ams.register(i);
        streams.register(i);
        i.setAmHandler(AmId.FLOW, flow::onFlow);
        i.setAmHandler(AmId.EP_REMOVED, this::onEpRemoved);
        i.setAmHandler(AmId.SOFT_AMO, softAtomics::onRequest);
        i.setAmHandler(AmId.EAGER_GET_KEY, eagerGet::onKey);
        i.setAmHandler(AmId.EAGER_GET, eagerGet::onHeader);
        i.setAmHandler(AmId.EAGER_GET_DONE, eagerGet::onDone);
        i.setAmHandler(AmId.SOFT_AMO_REP, softAtomics::onReply);
        i.setAmHandler(AmId.SOFT_AMO_NAK, softAtomics::onNak);
        i.setAmHandler(AmId.KEEPALIVE, this::onKeepalive);
    }

    /** The protocol that drives requests of {@code kind} (see {@link SendProtocol}). */
    SendProtocol protocol(final byte kind) {
        return protocols[kind];
    }

    /** The context this worker belongs to. */
    public Context context() {
        return context;
    }

    /**
     * How many unpacked transport keys this worker's {@link Rkey}s share now: one per distinct key of
     * a domain with symmetric keys (tcp), however many endpoints (PEs) sent it. With every PE mapping
     * S segments with {@link MemoryMap#SYMMETRIC_RKEY}, this is S, not PEs × S.
     */
    public int sharedRemoteKeyCount() {
        return remoteKeys.size();
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

    /**
     * Each opened resource's interface counters (messages, bytes, NO_RESOURCE refusals, errors), by
     * resource name in {@link #resources()} order: a copy taken now, for tools and diagnosis (a high
     * {@code NO_RESOURCE} count says the peer's receive queue was full, so the receiver set the pace).
     */
    public Map<String, Counters> interfaceCounters() {
        final Map<String, Counters> m = new LinkedHashMap<>();
        for (final WorkerIface wi : ifaces) {
            m.put(wi.name(), wi.iface.counters().copy());
        }
        return m;
    }

    /**
     * How many keepalive rounds this worker has run (each checks every live endpoint's peer and sends it
     * a keepalive, every {@code WEFT_KEEPALIVE_INTERVAL}): a counter for tools and tests, read relaxed.
     */
    public long keepaliveRounds() {
        return lifecycle.keepaliveRounds();
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

    /**
     * Connects to a {@link Listener} at {@code address} (possibly in another process or on another node).
     * The worker addresses travel in an authenticated handshake ({@code WEFT_JOB_SECRET}) on a socket
     * used only for that; the endpoint then uses the lanes chosen from both addresses (shm on the same
     * node). This call blocks for the handshake (bounded by {@code WEFT_CONNECT_TIMEOUT}), not for the
     * server's decision: the endpoint is returned at once and sends wait in its queue until the server
     * accepts. If it rejects, the endpoint fails with {@link Status#REJECTED}: its error handler runs and
     * {@link Endpoint#connectRequest()} completes with REJECTED.
     *
     * <pre>{@code
     * Endpoint ep = worker.connect(new InetSocketAddress("10.0.0.2", 13337)).onError((e, st) -> ...);
     * ep.sendTag(1, buf).await();
     * }</pre>
     *
     * @throws WeftException UNREACHABLE if nothing listens there, REJECTED on a wrong job secret,
     *                       TIMED_OUT if the handshake does not finish in time
     */
    public Endpoint connect(final java.net.InetSocketAddress address) {
        guard.enter();
        try {
            checkOpen();
        } finally {
            guard.exit();
        }
        final SockaddrHandshake.Client hs = SockaddrHandshake.connect(address, address(), context.config());
        guard.enter();
        try {
            checkOpen();
            final Peer peer = peers.computeIfAbsent(hs.remote().uuid(), k -> new Peer());
            final Endpoint ep = newEndpoint(hs.remote(), hs.connSn());
            ep.userOwned = true;
            peer.bySn.put(hs.connSn(), ep);
            lifecycle.connecting(ep, hs);
            return ep;
        } catch (final RuntimeException e) {
            hs.close();
            throw e;
        } finally {
            guard.exit();
        }
    }

    /**
     * Listens for {@link #connect(java.net.InetSocketAddress)} calls on {@code address} (port 0 picks
     * a free port: see {@link Listener#address()}). {@code handler} runs from {@link #progress()} with
     * each authenticated request and must {@link ConnectionRequest#accept()} or
     * {@link ConnectionRequest#reject()} it (now or later, from this worker's thread). Sockets are
     * accepted and the handshake answered by one thread per listener, never by the worker's thread.
     */
    public Listener listen(final java.net.InetSocketAddress address, final ConnectionHandler handler) {
        guard.enter();
        try {
            checkOpen();
            return lifecycle.listen(address, handler);
        } finally {
            guard.exit();
        }
    }

    /** The server side of an accepted connection request: the endpoint, paired by the client's number. */
    Endpoint acceptedEndpoint(final WorkerAddress remote, final long sn) {
        checkOpen();
        // not entered in the peer's connection table: only the client's endpoint is found by this number
        // (when our WIREUP_REQUEST reaches it), which also lets a worker connect to its own listener
        final Endpoint ep = newEndpoint(remote, sn);
        ep.userOwned = true;
        ep.sendWireup(AmId.WIREUP_REQUEST, -1); // tells the client it was accepted and gives it our id
        return ep;
    }

    /**
     * Starts a thread that progresses this worker (and sleeps in {@link #waitForEvents} when idle if the
     * context has {@link Feature#WAKEUP}), for users who do not want to call {@link #progress()}
     * themselves. Needs {@link ThreadMode#MULTI}: the thread and the user's threads take the worker's
     * lock in turn. Callbacks then run on that thread. Stopped by {@link #stopProgressThread()} or
     * {@link #close()}.
     */
    public void startProgressThread() {
        if (guard.mode() != ThreadMode.MULTI) {
            throw new WeftException(Status.INVALID_PARAM, "a progress thread needs a worker in ThreadMode.MULTI, "
                + "this one is " + guard.mode());
        }
        guard.enter();
        try {
            checkOpen();
            lifecycle.startProgressThread();
        } finally {
            guard.exit();
        }
    }

    /** Stops the progress thread started by {@link #startProgressThread()} and waits for it to end. */
    public void stopProgressThread() {
        lifecycle.stopProgressThread(); // not under the worker lock: the thread needs it to finish
    }

    private Endpoint newEndpoint(final WorkerAddress remote, final long sn) {
        final LaneSelector.Selection sel = LaneSelector.select(ifaces, remote, context);
        final int slot = allocEpSlot();
        final long id = slot | (long) epGen[slot] << 32;
        final Endpoint ep = new Endpoint(this, id, remote, sn, sel);
        eps[slot] = ep;
        liveEps.add(ep);
        lifecycle.endpointAdded();
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

    /**
     * Bytes this worker holds for unexpected messages (arrived before a matching receive). Bounded by
     * about {@code WEFT_UNEXPECTED_BUDGET}: past it, peers are told to stop sending new messages.
     */
    public long unexpectedBytes() {
        guard.enter();
        try {
            return unexpected.inUse();
        } finally {
            guard.exit();
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
     * <p>The sender's tag and length are always available, however the receive completes: in the request
     * ({@link Request#senderTag()}, {@link Request#length()}) when {@code info} is null, in {@code info}
     * otherwise. A receive without {@code info} therefore never returns the shared {@link Request#done}
     * request: one that completes inside the call returns its own completed request, to be released like
     * any other (nothing is allocated). With {@code info} and no callback, a receive that completes at once
     * returns {@link Request#done} and takes nothing from the pool (the fastest form for messages that are
     * often already here).
     *
     * @param info     filled with the sender's tag and length on completion (may be null)
     * @param callback called from progress on completion (may be null); see {@link Request}
     * @return the request (status OK or MESSAGE_TRUNCATED once completed)
     */
    public Request recvTag(final MemorySegment buf, final long offset, final long length, final long tag,
                           final long mask, final TagInfo info, final RequestCallback callback) {
        guard.enter();
        try {
            checkOpen();
            checkRange(buf, offset, length);
            if (callback == null && info != null) { // a whole eager message already here: copy it out, no request
                final TagMessage m = matcher.matchUnexpectedComplete(tag, mask);
                if (m != null) {
                    return tagRecv.receiveBuffered(m, buf, offset, length, info);
                }
            }
            final Request r = acquire(Request.RECV);
            r.buffer = buf;
            r.offset = offset;
            r.capacity = length;
            return tagRecv.post(r, tag, mask, info, callback);
        } finally {
            guard.exit();
        }
    }

    /**
     * Posts a tag receive that scatters the message over {@code iov} (filled in list order, up to its
     * total length; a longer message completes with MESSAGE_TRUNCATED). The list and its segments must
     * stay unchanged until the request completes. Otherwise as
     * {@link #recvTag(MemorySegment, long, long, long, long, TagInfo, RequestCallback)}.
     */
    public Request recvTag(final weft.uct.IoVector iov, final long tag, final long mask, final TagInfo info,
                           final RequestCallback callback) {
        guard.enter();
        try {
            checkOpen();
            if (iov == null) {
                throw new WeftException(Status.INVALID_PARAM, "null IoVector");
            }
            final Request r = acquire(Request.RECV);
            r.wide = true;
            r.dt = Datatypes.IOV;
            r.iov = iov;
            r.capacity = iov.totalLength();
            return tagRecv.post(r, tag, mask, info, callback);
        } finally {
            guard.exit();
        }
    }

    /**
     * Posts a tag receive whose data is handed to {@code datatype}'s unpack with {@code state}, at most
     * {@code capacity} bytes (a longer message completes with MESSAGE_TRUNCATED). Otherwise as
     * {@link #recvTag(MemorySegment, long, long, long, long, TagInfo, RequestCallback)}.
     */
    public Request recvTag(final GenericDatatype datatype, final Object state, final long capacity, final long tag,
                           final long mask, final TagInfo info, final RequestCallback callback) {
        guard.enter();
        try {
            checkOpen();
            if (capacity < 0 || datatype == null) {
                throw new WeftException(Status.INVALID_PARAM, datatype == null ? "null datatype"
                    : "negative receive capacity " + capacity);
            }
            final Request r = acquire(Request.RECV);
            r.wide = true;
            r.dt = Datatypes.GENERIC;
            r.generic = datatype;
            r.dtState = state;
            r.capacity = capacity;
            return tagRecv.post(r, tag, mask, info, callback);
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
            final Request r = acquire(Request.RECV);
            r.buffer = buf;
            r.offset = offset;
            r.capacity = length;
            r.info = info;
            r.callback = callback;
            return tagRecv.receiveUnexpected(message, r);
        } finally {
            guard.exit();
        }
    }

    /**
     * Cancels a receive that has not matched yet: it completes with {@link Status#CANCELED}. A request
     * that already matched (or a send) is left alone and completes normally. A stream receive still
     * waiting for bytes is canceled too; its {@link Request#length()} is the bytes it already got.
     *
     * @return true if the request was canceled
     * @throws IllegalStateException if {@code r} was released and waits in the pool (see {@link Request})
     */
    public boolean cancel(final Request r) {
        guard.enter();
        try {
            if (r.worker == this) {
                r.checkLive(); // a released handle: it may not name the receive its request serves next
            }
            if (r.worker == this && !r.completed && r.kind == Request.STREAM_RECV) {
                return streams.cancel(r);
            }
            if (r.worker != this || r.completed || r.kind != Request.RECV || !matcher.removeExpected(r)) {
                return false;
            }
            complete(r, Status.CANCELED);
            return true;
        } finally {
            guard.exit();
        }
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

    // ------------------------------------------------------------------ active messages and streams

    /**
     * Sets (or with null removes) the handler of user active-message id {@code id} (0..65535). Handlers
     * run from {@link #progress()}.
     *
     * <pre>{@code
     * worker.setAmHandler(1, (h, hOff, hLen, d, dOff, dLen, msg) -> {
     *     sum += d.get(ValueLayout.JAVA_LONG_UNALIGNED, dOff);
     *     return Status.OK;
     * }, 0);
     * }</pre>
     *
     * @param flags 0 or {@link AmFlags#HANDLER_PERSISTENT_DATA}
     */
    public void setAmHandler(final int id, final AmRecvHandler handler, final int flags) {
        guard.enter();
        try {
            checkOpen();
            ams.setHandler(id, handler, flags);
        } finally {
            guard.exit();
        }
    }

    /** Receives a message's data into {@code buf[offset, offset+length)}; see {@link #recvAmData(AmMessage, MemorySegment, long, long, RequestCallback)}. */
    public Request recvAmData(final AmMessage message, final MemorySegment buf, final long offset, final long length) {
        return ams.recvData(message, buf, offset, length, null);
    }

    /**
     * Receives the data of {@code message} (in its handler, or later if the handler kept it) into
     * {@code buf[offset, offset+length)}: a rendezvous message is pulled from the sender (get, or streamed
     * by the sender where no get lane exists); eager data is copied. The message is finished afterwards.
     * A message longer than {@code length} completes MESSAGE_TRUNCATED, writing only {@code length} bytes.
     *
     * @param callback called from progress on completion (may be null); see {@link Request}
     * @throws WeftException INVALID_PARAM if the message is not live (already received or released)
     */
    public Request recvAmData(final AmMessage message, final MemorySegment buf, final long offset, final long length,
                              final RequestCallback callback) {
        return ams.recvData(message, buf, offset, length, callback);
    }

    /**
     * Finishes a message without receiving it: kept eager data is freed (its transport descriptor returned),
     * a rendezvous message is dropped (its sender completes OK).
     *
     * @throws WeftException INVALID_PARAM if the message is not live
     */
    public void releaseAmData(final AmMessage message) {
        ams.release(message);
    }

    /**
     * Slots of this worker's eager-get pool lent now: medium messages sent by reference whose receivers
     * have not yet read them. Slots lent to a peer whose process died, or that dropped its endpoint, come back
     * when our endpoint to it fails.
     */
    public int eagerGetSlotsLent() {
        return eagerGet.lent();
    }

    /** Active messages dropped because no handler was set for their id. */
    public long amUnknownIdCount() {
        return ams.unknownIds();
    }

    /** Active-message and stream messages dropped as malformed (bad lengths, unknown endpoint). */
    public long amMalformedCount() {
        return ams.malformed() + streams.malformed();
    }

    /** Eager tag fragments dropped as malformed (bad lengths, out of sequence, unknown endpoint). */
    public long tagMalformedCount() {
        return tagEager.malformed();
    }

    /**
     * Protocol control messages dropped as malformed: wireup, sync and rendezvous acks, rendezvous data
     * outside its message, flow control, keepalive, endpoint removal, emulated atomics, eager-get control.
     */
    public long controlMalformedCount() {
        return controlMalformed;
    }

    /**
     * Puts into {@code out} the endpoints that have received stream bytes no receive has taken yet.
     *
     * @return how many were put (at most {@code out.length})
     */
    public int pollStreams(final Endpoint[] out) {
        guard.enter();
        try {
            return closed ? 0 : streams.poll(out);
        } finally {
            guard.exit();
        }
    }

    /** A handler threw: rethrown by {@link #progress()} once the current round is done. */
    void deferFailure(final RuntimeException e) {
        if (callbackFailure == null) {
            callbackFailure = e;
        } else {
            callbackFailure.addSuppressed(e);
        }
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
            if (--serviceCountdown < 0) {
                serviceCountdown = Lifecycle.SERVICE_EVERY;
                work += lifecycle.service();
            }
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
     * (-1 = no limit). Returns at once if there is work to do. Needs {@link Feature#WAKEUP}. While it
     * sleeps it wakes every keepalive interval to check the peers (so a dead peer still fails its
     * endpoint), and returns true if that produced work. Does not spin: an idle worker costs a few
     * wakeups per second.
     *
     * <pre>{@code
     * while (running) {
     *     if (worker.progress() == 0) worker.waitForEvents(-1);
     * }
     * }</pre>
     *
     * @return true if woken by an event (call {@link #progress()}), false on timeout
     */
    public boolean waitForEvents(final int timeoutMs) {
        if (events == null) {
            throw new WeftException(Status.UNSUPPORTED, "waitForEvents needs Feature.WAKEUP in the context");
        }
        final long deadline = System.nanoTime() + Math.max(0, timeoutMs) * 1_000_000L;
        while (true) {
            guard.enter();
            try {
                checkOpen();
                serviceCountdown = 0; // whatever woke us may be a lifecycle event: the next progress looks
                if (lifecycle.service() > 0 || doneHead != null || !sendPending.isEmpty() || !getPending.isEmpty()) {
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
            final long leftMs = timeoutMs < 0 ? Integer.MAX_VALUE : (deadline - System.nanoTime() + 999_999) / 1_000_000;
            final int slice = (int) Math.max(0, Math.min(lifecycle.sleepSliceMs(), leftMs));
            final int n = events.await(slice);
            signalFd.drain();
            if (n > 0) {
                guard.enter();
                try {
                    for (final WorkerIface wi : ifaces) {
                        wi.hot = HOT_CALLS; // the event may be on an idle interface: progress it at once
                    }
                } finally {
                    guard.exit();
                }
                return true;
            }
            if (timeoutMs >= 0 && System.nanoTime() - deadline >= 0) {
                return false;
            }
        }
    }

    /** Wakes a thread blocked in {@link #waitForEvents}; callable from any thread. */
    public void signal() {
        if (signalFd == null) {
            throw new WeftException(Status.UNSUPPORTED, "signal needs Feature.WAKEUP in the context");
        }
        if (closed) {
            throw new WeftException(Status.CLOSED, "worker is closed");
        }
        signalFd.signal();
    }

    /** True if this worker can sleep in {@link #waitForEvents} (its context has {@link Feature#WAKEUP}). */
    public boolean hasWakeup() {
        return events != null;
    }

    private int progressPendingSends() {
        int work = 0;
        for (int i = 0; i < sendPending.size(); ) {
            final Endpoint ep = sendPending.get(i);
            work += ep.progressSendQueue();
            if (ep.sendQueueEmpty() || ep.parked) { // parked: stopped by its peer (FlowControl) until GO
                sendPending.removeAt(i);
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
            if (protocols[r.kind].resume(r)) {
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
        final Request r;
        if (poolSize == 0) {
            r = new Request(this);
        } else {
            r = pool[--poolSize];
            r.generation++; // even: handed out again (a handle released earlier can no longer be told apart)
        }
        r.reset();
        assert r.isPristine() : "a request left the pool with stale state: a step that widened it did not set wide";
        r.kind = kind;
        r.wide = kind != Request.RECV && kind != Request.SEND; // a send widens in Endpoint.startSend
        return r;
    }

    /**
     * The request whose completion {@link Rma#immediate} hands a lane: acquired and armed (our reference +
     * the one piece) once, and kept across operations the lane finishes inside the call.
     */
    Request rmaSpare() {
        Request s = rmaSpare;
        if (s == null) {
            s = acquire(Request.RMA);
            s.completion.reset(2);
            rmaSpare = s;
        }
        return s;
    }

    /** The lane kept the spare's completion: it is now an operation's request. */
    void rmaSpareTaken() {
        rmaSpare = null;
    }

    void recycle(final Request r) {
        if (r.worker != this) {
            return;
        }
        r.generation++; // odd while pooled: its holder's handle is refused (Request.checkLive)
        if (poolSize == pool.length) {
            pool = Arrays.copyOf(pool, poolSize * 2);
        }
        pool[poolSize++] = r;
    }

    long registerInflight(final Request r) {
        r.wide = true;
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
        // 30 generation bits: ids stay positive and below AmId.RTR_ANY_ORDER (a flag beside an id on the wire)
        r.id = slot | (long) (inflightGen[slot] & 0x3FFF_FFFF) << 32;
        return r.id;
    }

    Request inflightById(final long id) {
        final int slot = (int) id; // the low 32 bits: negative for ids a peer made up
        if (id < 0 || slot < 0 || slot >= inflightHigh) {
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
    void complete(final Request r, final Status status) {
        if (r.completed) {
            return;
        }
        final Status st = r.dtFailed && !status.isError() ? Status.IO_ERROR : status; // a user pack/unpack threw
        r.status = st;
        if (r.id >= 0) {
            releaseInflight(r);
        }
        if (r.handles != null) {
            r.ep.releaseRendezvousResources(r);
        }
        r.completed = true;
        if (r.parent != null) {
            final Request p = r.parent;
            r.parent = null;
            p.completion.complete(st);
        }
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
            n++;
            try { // queuedDone stays set meanwhile: a release() inside the callback leaves the recycling to us
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
            r.queuedDone = false;
            if (r.released) { // only once its holder let go: a kept handle keeps showing this operation
                recycle(r);
            }
        }
        return n;
    }

    /** Called by a request's uct completion: its count reached zero (zero-copy pieces, gets, puts, flushes). */
    void onTransportCompletion(final Request r, final Status st) {
        protocols[r.kind].onCompletion(r, st);
    }

    // ------------------------------------------------------------------ AM handlers

    private Status onWireup(final MemorySegment data, final long off, final long len, final int flags) {
        if (len < 25) {
            return dropMalformedControl("WIREUP", len);
        }
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
        try {
            ep.sendWireup(AmId.WIREUP_REPLY, src);
        } catch (final WeftException e) {
            // the peer died after asking (its request was still in our FIFO): fail that endpoint, do not
            // throw out of progress()
            LOG.log(System.Logger.Level.INFO, "wireup reply not sent: " + e.getMessage());
            lifecycle.failLater(ep, e.status());
        }
        return Status.OK;
    }

    /** Protocol control messages (wireup, acks, rendezvous control, keepalive...) dropped as malformed. */
    private long controlMalformed;

    /** Drops a control message too short for its fields or naming bytes outside its message. */
    Status dropMalformedControl(final String what, final long len) {
        controlMalformed++;
        LOG.log(System.Logger.Level.WARNING, "dropping a malformed " + what + " message (" + len + " bytes)");
        return Status.OK;
    }

    // ------------------------------------------------------------------ one-sided ordering

    /**
     * {@link Endpoint#flush()} of every endpoint of this worker, as one request: completes when every
     * one-sided operation started on this worker before the call is complete at its target (puts and
     * atomics performed in the target's memory, gets and fetches in the local buffer) and every queued
     * send has been issued. Its status is OK or the first error among the endpoints' flushes.
     */
    public Request flush() {
        guard.enter();
        try {
            checkOpen();
            final Request parent = acquire(Request.RMA);
            parent.completion.reset(1);
            for (final Endpoint ep : new ArrayList<>(liveEps)) {
                final Request child = ep.flush();
                if (!child.isCompleted()) {
                    parent.completion.expect(1);
                    child.parent = parent;
                    child.release();
                } else if (child.status().isError()) {
                    parent.completion.expect(1);
                    parent.completion.complete(child.status());
                }
            }
            parent.completion.complete(Status.OK);
            return finishImmediate(parent);
        } finally {
            guard.exit();
        }
    }

    /**
     * Orders one-sided operations per endpoint (per target): every put, get or atomic started on an
     * endpoint after the fence is performed at the target after every one started on that endpoint
     * before it. So a target thread that observes (with an acquire load, or a CPU atomic) any effect of
     * a later operation also observes every effect of the earlier ones: put data, fence, put flag is a
     * safe publication; and a get or fetching atomic after the fence reads what earlier puts wrote.
     * Without a fence, operations (and the pieces of one large operation) may be performed in any order.
     *
     * <p>It completes nothing and does not wait: use {@link #flush()} for completion. It does not order
     * one-sided operations against tag, AM or stream messages, nor operations on different endpoints.
     * Cost: a transport fence when the endpoint used one lane since its last fence or flush (shm: a CPU
     * fence; tcp and cma: free, one ordered stream); otherwise the endpoint holds later operations in
     * its send queue until a flush of the earlier ones completes.
     */
    public void fence() {
        guard.enter();
        try {
            checkOpen();
            for (final Endpoint ep : liveEps) {
                ep.rma.fence();
            }
        } finally {
            guard.exit();
        }
    }

    // ------------------------------------------------------------------ errors and lifecycle

    private void onTransportError(final weft.uct.Endpoint uctEp, final Status st) {
        for (final Endpoint ep : new ArrayList<>(liveEps)) {
            if (ep.usesUct(uctEp)) {
                lifecycle.failLater(ep, st); // next progress call, outside the transport's callback
            }
        }
    }

    /** Completes every in-flight request that belongs to {@code ep} with {@code st}. */
    void failInflight(final Endpoint ep, final Status st) {
        for (int i = 0; i < inflightHigh; i++) {
            final Request r = inflight[i];
            // zero-copy pieces complete a request when they fail, unless they are all done (a sync send
            // waiting for its ack)
            if (r != null && r.ep == ep && (!r.zdata || (r.kind == Request.SEND && r.localDone))) {
                complete(r, st);
            }
        }
        for (int i = getPending.size() - 1; i >= 0; i--) {
            if (getPending.get(i).ep == ep) {
                // drop the receive's own reference on its gets: it completes (with st) when the gets
                // already issued have failed too, so a request is never completed twice or recycled early
                getPending.remove(i).completion.complete(st);
            }
        }
    }

    /** True while a request of {@code ep} is still in flight (waiting for the peer or for gets). */
    boolean hasInflight(final Endpoint ep) {
        for (int i = 0; i < inflightHigh; i++) {
            final Request r = inflight[i];
            if (r != null && r.ep == ep) {
                return true;
            }
        }
        for (int i = 0; i < getPending.size(); i++) {
            if (getPending.get(i).ep == ep) {
                return true;
            }
        }
        return false;
    }

    private Status onKeepalive(final MemorySegment data, final long off, final long len, final int flags) {
        if (len < 8) {
            return dropMalformedControl("KEEPALIVE", len);
        }
        final Endpoint ep = endpointById(data.get(LONG, off));
        if (ep != null) {
            ep.lastHeard = System.nanoTime(); // slow path: one message per keepalive interval
        }
        return Status.OK;
    }

    /** The live endpoints themselves (not a copy), for allocation-free scans (Lifecycle, FlowControl). */
    ArrayList<Endpoint> liveEndpoints() {
        return liveEps;
    }

    private Status onEpRemoved(final MemorySegment data, final long off, final long len, final int flags) {
        if (len < 8) {
            return dropMalformedControl("EP_REMOVED", len);
        }
        final Endpoint ep = endpointById(data.get(LONG, off));
        if (ep != null) {
            lifecycle.peerRemoved(ep); // handled from progress, outside this transport callback
        }
        return Status.OK;
    }

    Arena arena() {
        return arena;
    }

    void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "worker is closed");
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
     * the worker's memory. Callbacks of canceled operations run before this returns, on the calling
     * thread. Idempotent.
     *
     * <p>Closing is not a data-path call: any thread may close the worker once no other thread uses it
     * any more (a SINGLE worker's own thread included: it must have stopped calling it, and what it did
     * must be visible to the closing thread, e.g. through {@link Thread#join}), as UCX allows
     * {@code ucp_worker_destroy} from any thread. A SERIALIZED worker that another thread is inside
     * refuses with BUSY and is left as it was.
     */
    @Override
    public void close() {
        lifecycle.stopProgressThread(); // first, and without the lock the thread may be waiting for
        final Thread previousOwner = guard.enterClose();
        try {
            if (closed) {
                return;
            }
            lifecycle.close();
            for (final Endpoint ep : new ArrayList<>(liveEps)) {
                ep.closeForce(Status.CANCELED);
            }
            matcher.drainExpected(r -> complete(r, Status.CANCELED));
            matcher.drainUnexpected(unexpected::release);
            drainDone();
            closed = true;
            eagerGet.close();
            uct.close();
            unexpected.close();
            arena.close();
            if (events != null) {
                events.close();
                signalFd.close();
            }
        } finally {
            guard.exitClose(previousOwner);
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
