package weft.ucp;

import weft.ucs.BlockedProgress;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.stats.Counters;
import weft.uct.Capability;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
    final IfaceSet ifaceSet;
    final WorkerIface[] ifaces;
    final long uuid;
    private final byte[] address;
    final TagMatcher matcher = new TagMatcher();
    final UnexpectedPool unexpected;
    final ActiveMessages ams;
    final Streams streams;
    final SoftAtomics softAtomics = new SoftAtomics(this);
    final SoftRma softRma = new SoftRma(this);
    final TagEager tagEager;
    final TagRecv tagRecv = new TagRecv(this);
    final RndvSend rndvSend;
    final RndvRecv rndvRecv;
    final ControlSend control = new ControlSend(this);
    /** The protocol of each request kind, and the AM handlers of them all. */
    final Protocols protocols;
    final EagerGet eagerGet;
    final FlowControl flow;
    private final Arena arena = Arena.ofShared();

    /** Endpoints by id, the live ones, and the pairing of endpoints made from both sides. */
    final EndpointTable epTable = new EndpointTable(this);
    /** Requests a peer names by id (sync sends, rendezvous, emulated atomics). */
    final InflightTable inflight = new InflightTable(this);

    /** Pooled requests and the completions whose callbacks run from progress. */
    final RequestPool requests = new RequestPool(this);
    final PendingEndpoints sendPending = new PendingEndpoints();
    final PendingPieces getPending = new PendingPieces(this);
    /** Packs RTR_PUT messages (RndvPut); reused, the data path of one worker is single threaded. */
    final RndvPut.RtrPacker rtrPacker = new RndvPut.RtrPacker();
    /** Sleeping in {@link #waitForEvents} (null without {@link Feature#WAKEUP}). */
    private final WorkerWakeup wakeup;
    private boolean closed;
    // lifecycle services (keepalive, listeners, sockaddr connects, endpoint closes): run from progress
    // every Lifecycle.SERVICE_EVERY calls, so the fast path pays one decrement and compare
    final Lifecycle lifecycle;
    int serviceCountdown;

    Worker(final Context context, final ThreadMode mode) {
        this.context = context;
        this.guard = new ThreadGuard(mode);
        // identity only (no secret): random bits mixed with pid and time, without opening /dev/random
        this.uuid = java.util.concurrent.ThreadLocalRandom.current().nextLong()
            ^ (ProcessHandle.current().pid() << 40) ^ System.nanoTime();
        this.unexpected = new UnexpectedPool(context.unexpectedBudget);
        this.ams = new ActiveMessages(this);
        this.ams.setInternalHandlers(softRma);
        this.streams = new Streams(this, Math.min(context.config().get(Streams.WINDOW), context.unexpectedBudget));
        this.eagerGet = new EagerGet(this, context.eagerGetMax, context.eagerGetPool);
        this.flow = new FlowControl(this);
        this.lifecycle = new Lifecycle(this);
        this.tagEager = new TagEager(this);
        this.rndvSend = new RndvSend(this);
        this.rndvRecv = new RndvRecv(this);
        this.protocols = new Protocols(this);
        this.ifaceSet = new IfaceSet(context, uct, InterfaceParams.defaults().withConfig(context.config())
            .withErrorHandler((u, st) -> lifecycle.onTransportError(u, st)));
        this.ifaces = ifaceSet.all;
        for (final WorkerIface wi : ifaces) {
            if (wi.attrs.has(Capability.AM_BCOPY)) {
                protocols.register(wi.iface);
            }
        }
        this.address = new WorkerAddress(uuid, ifaceSet.addressEntries()).pack();
        this.wakeup = context.features().contains(Feature.WAKEUP) ? new WorkerWakeup(this) : null;
        BlockedProgress.add(blockedProgress);
    }

    /** Progress while the owning thread blocks in a bootstrap wait (see {@link BlockedProgress}). */
    private final BlockedProgress.Source blockedProgress = this::progressWhileBlocked;

    private int progressWhileBlocked(final Thread t) {
        if (closed || lifecycle.hasProgressThread() || !guard.usableWithoutClaim(t)) {
            return 0;
        }
        return progress();
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
        return ifaceSet.names();
    }

    /**
     * Each opened resource's interface counters (messages, bytes, NO_RESOURCE refusals, errors), by
     * resource name in {@link #resources()} order: a copy taken now, for tools and diagnosis (a high
     * {@code NO_RESOURCE} count says the peer's receive queue was full, so the receiver set the pace).
     */
    public Map<String, Counters> interfaceCounters() {
        return ifaceSet.counters();
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
            return epTable.connect(WorkerAddress.unpack(remoteAddress));
        } finally {
            guard.exit();
        }
    }

    /**
     * Connects to a {@link Listener} at {@code address} (possibly in another process or on another node),
     * as UCX's {@code ucp_ep_create} with a socket address: the endpoint is returned at once and the
     * connection is made in the background. The worker addresses travel in an authenticated handshake
     * ({@code WEFT_JOB_SECRET}) on a socket used only for that, run on a thread of its own; progress then
     * binds the endpoint, once the server accepts, to the lanes chosen from both addresses (shm on the same
     * node; the worker that accepted may be another than the listener's, {@link ConnectionRequest#accept(Worker)}).
     * Operations posted meanwhile wait in the endpoint, in order, and go out once it is bound.
     *
     * <p>A failed connect fails the endpoint: its error handler runs (from progress), the operations waiting
     * in it and {@link Endpoint#connectRequest()} complete with the status, and {@link Endpoint#status()}
     * shows it: UNREACHABLE (nothing listens there, or not a weft listener), REJECTED (the server rejected,
     * or the job secret differs), TIMED_OUT (no handshake and decision within {@code WEFT_CONNECT_TIMEOUT}).
     * {@link #connectBlocking} waits for the handshake and throws instead.
     *
     * <pre>{@code
     * Endpoint ep = worker.connect(new InetSocketAddress("10.0.0.2", 13337)).onError((e, st) -> ...);
     * ep.sendTag(1, buf).await();   // waits for the connection, then for the send
     * }</pre>
     */
    public Endpoint connect(final java.net.InetSocketAddress address) {
        return lifecycle.connect(address, 0L, false);
    }

    /**
     * {@link #connect(java.net.InetSocketAddress)} telling the listener {@code clientId} (UCX's worker client
     * id): the server's handler reads it from {@link ConnectionRequest#clientId()}.
     */
    public Endpoint connect(final java.net.InetSocketAddress address, final long clientId) {
        return lifecycle.connect(address, clientId, false);
    }

    /**
     * Connects to a {@link Listener} as {@link #connect(java.net.InetSocketAddress, long)}, but blocks for
     * the handshake (bounded by {@code WEFT_CONNECT_TIMEOUT}) and throws its failure, not for the server's
     * decision: sends wait in the endpoint until the server accepts; a rejection fails it later with
     * {@link Status#REJECTED}.
     *
     * @throws WeftException UNREACHABLE if nothing listens there, REJECTED on a wrong job secret,
     *                       TIMED_OUT if the handshake does not finish in time
     */
    public Endpoint connectBlocking(final java.net.InetSocketAddress address, final long clientId) {
        return lifecycle.connect(address, clientId, true);
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

    /**
     * Endpoints open on this worker: the connected ones (including ones peers created toward it), then those
     * still connecting by socket address ({@link Endpoint#isConnecting()}).
     */
    public List<Endpoint> endpoints() {
        guard.enter();
        try {
            return List.copyOf(lifecycle.addConnecting(new java.util.ArrayList<>(epTable.live())));
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
            return tagRecv.recv(buf, offset, length, tag, mask, info, callback);
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
            return tagRecv.recvIov(iov, tag, mask, info, callback);
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
            return tagRecv.recvGeneric(datatype, state, capacity, tag, mask, info, callback);
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
            return tagRecv.probe(tag, mask, remove);
        } finally {
            guard.exit();
        }
    }

    /** Receives a message taken out by {@link #probeTag} with {@code remove = true}. */
    public Request recvTag(final TagMessage message, final MemorySegment buf, final long offset, final long length) {
        return recvTag(message, buf, offset, length, null, null);
    }

    /**
     * Receives a probed-out message, with info and callback as in
     * {@link #recvTag(MemorySegment, long, long, long, long, TagInfo, RequestCallback)}.
     */
    public Request recvTag(final TagMessage message, final MemorySegment buf, final long offset, final long length,
                           final TagInfo info, final RequestCallback callback) {
        guard.enter();
        try {
            return tagRecv.recvProbed(message, buf, offset, length, info, callback);
        } finally {
            guard.exit();
        }
    }

    /**
     * Cancels a receive that has not matched yet: it completes with {@link Status#CANCELED}. A request
     * that already matched (or a send) is left alone and completes normally. A stream receive still
     * waiting for bytes is canceled too; its {@link Request#length()} is the bytes it already got. An
     * operation posted on an endpoint still connecting ({@link Endpoint#isConnecting()}) is not started yet:
     * it is canceled whatever its kind, and never starts.
     *
     * @return true if the request was canceled
     * @throws IllegalStateException if {@code r} was released and waits in the pool (see {@link Request})
     */
    public boolean cancel(final Request r) {
        guard.enter();
        try {
            if (r.worker != this) {
                return false;
            }
            r.checkLive(); // a released handle: it may not name the receive its request serves next
            return !r.completed && (r.kind == Request.DEFERRED ? SockaddrConnect.cancel(r)
                : protocols.of(r.kind).cancel(r));
        } finally {
            guard.exit();
        }
    }

    /** Returns a shared done request for an operation that completed inside its call, if allowed. */
    Request finishImmediate(final Request r) {
        return requests.finishImmediate(r);
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

    /**
     * Receives a message's data into {@code buf[offset, offset+length)}; see
     * {@link #recvAmData(AmMessage, MemorySegment, long, long, RequestCallback)}.
     */
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
        return control.malformed();
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
            int work = requests.drainDone();
            if (--serviceCountdown < 0) {
                serviceCountdown = Lifecycle.SERVICE_EVERY;
                final long now = System.nanoTime();
                work += lifecycle.service(now);
                ifaceSet.tick(now);
            }
            work += ifaceSet.progress();
            if (!sendPending.isEmpty()) {
                work += sendPending.progress();
            }
            if (!getPending.isEmpty()) {
                work += getPending.progress();
            }
            work += requests.drainDone();
            requests.rethrowCallbackFailure();
            return work;
        } finally {
            guard.exit();
        }
    }

    /**
     * Progresses until some work was done (returned; 0: none), at most {@code polls} times, spinning between
     * idle polls: a wait loop's step. A SINGLE or SERIALIZED worker is entered once for all of them (each poll
     * is then a cheap reentry, not an owner swap), a MULTI worker per poll, so other threads get in between.
     */
    public int progress(final int polls) {
        return guard.mode() == ThreadMode.MULTI ? WorkerSpin.eachPoll(this, polls) : WorkerSpin.entered(this, polls);
    }

    /** Progresses until {@code r} completes. */
    void await(final Request r) {
        WorkerSpin.await(this, r);
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
        return wakeup("waitForEvents").await(timeoutMs);
    }

    /**
     * The worker's event descriptor, for an application's own event loop (epoll, a selector over the fd):
     * it becomes readable when an interface has an event or {@link #signal()} is called, once
     * {@link #arm()} returned OK. Needs {@link Feature#WAKEUP}. The worker owns it (closed with the worker).
     * Poll it with a timeout of at most the keepalive interval ({@code WEFT_KEEPALIVE_INTERVAL}), as
     * {@link #waitForEvents} does, so that dead peers are still noticed.
     */
    public int eventFd() {
        return wakeup("eventFd").fd();
    }

    /**
     * Arms the event descriptor before the application sleeps on it: OK when armed (nothing to do until it
     * becomes readable), {@link Status#BUSY} when work is pending (call {@link #progress()} and arm again).
     *
     * <pre>{@code
     * while (running) {
     *     if (worker.progress() == 0 && worker.arm() == Status.OK) {
     *         epoll_wait / selector.select on worker.eventFd()
     *     }
     * }
     * }</pre>
     */
    public Status arm() {
        final WorkerWakeup wk = wakeup("arm");
        guard.enter();
        try {
            return wk.arm();
        } finally {
            guard.exit();
        }
    }

    /**
     * The longest active-message header every protocol of this worker carries, rendezvous included
     * (a quarter of the smallest bcopy limit of its interfaces, as {@code Endpoint.sendAm} checks).
     */
    public long maxAmHeaderSize() {
        return ifaceSet.maxAmHeaderSize();
    }

    /** Wakes a thread blocked in {@link #waitForEvents}; callable from any thread. */
    public void signal() {
        final WorkerWakeup wk = wakeup("signal");
        if (closed) {
            throw new WeftException(Status.CLOSED, "worker is closed");
        }
        wk.signal();
    }

    private WorkerWakeup wakeup(final String call) {
        if (wakeup == null) {
            throw new WeftException(Status.UNSUPPORTED, call + " needs Feature.WAKEUP in the context");
        }
        return wakeup;
    }

    /** True if this worker can sleep in {@link #waitForEvents} (its context has {@link Feature#WAKEUP}). */
    public boolean hasWakeup() {
        return wakeup != null;
    }

    // ------------------------------------------------------------------ requests

    Request acquire(final byte kind) {
        return requests.acquire(kind);
    }

    /** Completes {@code r}: callbacks and futures run from progress, never from the caller's call. */
    void complete(final Request r, final Status status) {
        requests.complete(r, status);
    }

    // ------------------------------------------------------------------ one-sided ordering

    /**
     * {@link Endpoint#flush()} of every endpoint of this worker, as one request: completes when every
     * one-sided operation started on this worker before the call is complete at its target (puts and
     * atomics performed in the target's memory, gets and fetches in the local buffer) and every queued
     * send has been issued. Its status is OK or the first error among the endpoints' flushes. Endpoints
     * still connecting are included: their flush waits until they bind and what was posted on them is
     * done (or fails with the connect's error).
     */
    public Request flush() {
        guard.enter();
        try {
            checkOpen();
            return EndpointRma.flushAll(this);
        } finally {
            guard.exit();
        }
    }

    /** {@link Endpoint#flushSent()} (local completion) of every endpoint of this worker, as one request. */
    public Request flushSent() {
        guard.enter();
        try {
            return EndpointRma.flushSentAll(this); // checks that the worker is open
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
            for (final Endpoint ep : epTable.live()) {
                ep.rma.fence();
            }
        } finally {
            guard.exit();
        }
    }

    // ------------------------------------------------------------------ errors and lifecycle

    Arena arena() {
        return arena;
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "worker is closed");
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
        BlockedProgress.remove(blockedProgress);
        lifecycle.stopProgressThread(); // first, and without the lock the thread may be waiting for
        final Thread previousOwner = guard.enterClose();
        try {
            if (closed) {
                return;
            }
            lifecycle.close(); // and every endpoint, receive and unexpected message
            closed = true;
            eagerGet.close();
            uct.close();
            unexpected.close();
            arena.close();
            if (wakeup != null) {
                wakeup.close();
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
