package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.IoVector;
import weft.ucp.wire.ControlMessage;

import java.lang.foreign.MemorySegment;

/**
 * A connection from a {@link Worker} to a peer worker, made of lanes (one transport connection each)
 * chosen by {@link LaneSelector}. Sends on one endpoint are matched at the peer in the order they were
 * started (MPI ordering), whatever protocol each one uses.
 *
 * <pre>{@code
 * Endpoint ep = worker.connect(peerAddress);
 * Request r = ep.sendTag(42, buf, 0, 8);   // done at once for short messages: Request.done(OK)
 * r.await();
 * r.release();
 * }</pre>
 */
public final class Endpoint implements AutoCloseable {
    private static final Lane[] NO_LANES = new Lane[0];

    final Worker worker;
    // set when the endpoint binds to its peer (at once, or for a socket-address connect when the handshake
    // ends: until then it is a shell whose operations wait in its SockaddrConnect)
    long id = -1;
    WorkerAddress remote;
    long connSn;
    Lane[] lanes = NO_LANES;
    Lane am;
    weft.uct.Endpoint amEp;
    Lane[] rndv = NO_LANES;
    /** Rendezvous lanes that stream zero-copy AM: rendezvous over AM is striped over them (Rails). */
    Lane[] amRails = NO_LANES;
    /** An unbound shell's sends no short path: {@link ProtocolThresholds#UNBOUND}. */
    ProtocolThresholds thresholds = ProtocolThresholds.UNBOUND;
    private LaneSelector.Selection selection;
    /** The socket-address connect whose handshake has not ended yet (the endpoint is a shell), else null. */
    SockaddrConnect connecting;
    long remoteId = -1;
    boolean userOwned;
    /** The error that failed the endpoint, or null; closed once its lanes are released ({@link EndpointClose}). */
    Status failure;
    boolean closed;
    ErrorHandler errorHandler;
    // sockaddr client: first in the send queue until the server accepts (see Lifecycle)
    Request gate;
    boolean removedNoticeSent;
    /** The peer closed its endpoint (EP_REMOVED): it reads none of our eager-get slots any more. */
    boolean removedByPeer;
    long lastHeard = System.nanoTime(); // last keepalive from the peer (Lifecycle)
    private String name;
    /** The handshake connection's two ends, for socket-address endpoints (Lifecycle); else null. */
    java.net.InetSocketAddress localSocket;
    java.net.InetSocketAddress remoteSocket;

    /** The ordered send queue. */
    final SendQueue queue;
    // multi-fragment eager reception from this peer (fragments of one message arrive back to back)
    Request rxRequest;
    TagMessage rxMessage;
    // active messages: a multi-fragment message being reassembled; stream state (created on first use)
    AmMessage amRx;
    Streams.State stream;
    /** Listed in the worker's {@link PendingEndpoints} (kept by that class). */
    boolean sendPendingListed;

    /** Rendezvous registrations and remote keys reused message after message (no allocation). */
    final RndvCache rndvCache = new RndvCache(this);
    /** The 8-byte payload of this endpoint's short control messages. */
    final MemorySegment ctl;
    /** GET-based eager state toward this peer (EagerGet). */
    final EagerGet.Peer eagerGetPeer = new EagerGet.Peer();
    /** Every lane: the selected ones and those connected later for remote keys. */
    final LaneSet laneSet;
    /** One-sided operations, flush and fence of this endpoint. */
    final EndpointRma rma;

    /** Called when the endpoint fails (peer died, connection reset, keepalive timeout). */
    @FunctionalInterface
    public interface ErrorHandler {
        /** @param status why the endpoint failed */
        void onError(Endpoint endpoint, Status status);
    }

    /** A shell: bound later ({@link #bind}); until then no lanes, no id, not in the worker's table. */
    Endpoint(final Worker worker) {
        this.worker = worker;
        this.ctl = worker.arena().allocate(ControlMessage.PAYLOAD_LENGTH, 8);
        this.laneSet = new LaneSet(this);
        this.rma = new EndpointRma(this);
        this.queue = new SendQueue(this);
    }

    /** Connects the lanes {@code sel} chose to {@code remote} (may throw: the endpoint then stays unbound). */
    void bind(final long id, final WorkerAddress remote, final long connSn, final LaneSelector.Selection sel) {
        final Lane[] ls = LaneSet.connectSelected(sel);
        final Lane a = ls[sel.am()];
        final Lane[] rv = new Lane[sel.rndv().length];
        for (int i = 0; i < rv.length; i++) {
            rv[i] = ls[sel.rndv()[i]];
        }
        this.id = id;
        this.remote = remote;
        this.connSn = connSn;
        this.selection = sel;
        this.lanes = ls;
        this.am = a;
        this.amEp = a.uct;
        this.rndv = rv;
        this.amRails = LaneSet.amZcopyLanes(rv);
        this.thresholds = new ProtocolThresholds(worker.context, a, rv);
    }

    /** True once the endpoint has lanes (always, except a socket-address connect still in its handshake). */
    boolean isBound() {
        return remote != null;
    }

    /** True while a socket-address connect runs its handshake: operations wait for the bind, getters give placeholders. */
    public boolean isConnecting() {
        return connecting != null && !closed && failure == null;
    }

    /** The worker this endpoint belongs to. */
    public Worker worker() {
        return worker;
    }

    /** OK while usable, else the error that failed it. */
    public Status status() {
        return failure != null ? failure : closed ? Status.CLOSED : Status.OK;
    }

    /** Sets the handler called (from progress) when the endpoint fails. */
    public Endpoint onError(final ErrorHandler handler) {
        this.errorHandler = handler;
        return this;
    }

    /**
     * For an endpoint made by {@link Worker#connect(java.net.InetSocketAddress)}: a request that completes
     * with OK when the server accepts, or with the failure ({@link Status#REJECTED}, UNREACHABLE,
     * TIMED_OUT, ...).
     * Null for endpoints made from a worker address or accepted by a listener. Release it when done.
     */
    public Request connectRequest() {
        return gate;
    }

    /** The lanes and the protocol thresholds, as {@code weft info -e} prints them. */
    public String describe() {
        if (!isBound()) {
            return thresholds.describe();
        }
        final Context c = worker.context;
        return selection.describe() + thresholds.describe() + String.format(
            "put/get: up to %d rails per remote key, striped from %d bytes, else lane policy %s; atomics: one lane per key%n",
            c.maxRmaRails, 2 * c.minRmaChunk, c.config().get(UcpConfig.LANE_POLICY));
    }

    /** The size from which tag sends use rendezvous; {@code Long.MAX_VALUE} while {@link #isConnecting()}. */
    public long rendezvousThreshold() {
        return thresholds.rndvThresh;
    }

    /** The largest payload sent inline; -1 (nothing) while the endpoint is connecting ({@link #isConnecting()}). */
    public long maxShort() {
        return thresholds.maxShort;
    }

    /**
     * The size from which eager tag sends of contiguous off-heap data go zero-copy (below
     * {@link #rendezvousThreshold()}), or {@code Long.MAX_VALUE} when the AM lane cannot send from user
     * memory or while {@link #isConnecting()}. The buffer then belongs to the transport until the request completes.
     */
    public long zeroCopyThreshold() {
        return thresholds.zcopyThresh;
    }

    /** The largest payload of one eager zero-copy fragment (0 when there is none, and while connecting). */
    public long maxZeroCopyFragment() {
        return thresholds.maxZcopy;
    }

    // ------------------------------------------------------------------ tag send

    /** Sends all of {@code buf} with {@code tag}. */
    public Request sendTag(final long tag, final MemorySegment buf) {
        return send(tag, buf, 0, buf.byteSize(), false, null);
    }

    /** Sends {@code buf[offset, offset+length)} with {@code tag}. */
    public Request sendTag(final long tag, final MemorySegment buf, final long offset, final long length) {
        return send(tag, buf, offset, length, false, null);
    }

    /**
     * Sends {@code buf[offset, offset+length)} with {@code tag}. The send completes when the buffer may
     * be reused (the data has left it), not when it was received.
     *
     * @param callback called from progress on completion (may be null); see {@link Request}
     */
    public Request sendTag(final long tag, final MemorySegment buf, final long offset, final long length,
                           final RequestCallback callback) {
        return send(tag, buf, offset, length, false, callback);
    }

    /** A synchronous send: completes only once a receive at the peer matched it. */
    public Request sendTagSync(final long tag, final MemorySegment buf, final long offset, final long length) {
        return send(tag, buf, offset, length, true, null);
    }

    /** A synchronous send with a completion callback. */
    public Request sendTagSync(final long tag, final MemorySegment buf, final long offset, final long length,
                               final RequestCallback callback) {
        return send(tag, buf, offset, length, true, callback);
    }

    /**
     * Sends the bytes described by {@code iov} (gathered in list order) as one message with {@code tag};
     * the receiver sees one contiguous message of {@code iov.totalLength()} bytes, whatever datatype it
     * receives with. The list and its segments must stay unchanged until the request completes.
     *
     * @param callback called from progress on completion (may be null); see {@link Request}
     */
    public Request sendTag(final long tag, final IoVector iov, final RequestCallback callback) {
        return sendDt(tag, Datatypes.IOV, iov, null, null, iov == null ? 0 : iov.totalLength(), false, callback);
    }

    /** A synchronous {@link #sendTag(long, IoVector, RequestCallback)}: completes once a receive matched it. */
    public Request sendTagSync(final long tag, final IoVector iov, final RequestCallback callback) {
        return sendDt(tag, Datatypes.IOV, iov, null, null, iov == null ? 0 : iov.totalLength(), true, callback);
    }

    /**
     * Sends a message of {@code length} bytes produced by {@code datatype}'s pack with {@code state}
     * (see {@link GenericDatatype}). {@code state} must stay valid until the request completes.
     *
     * @param callback called from progress on completion (may be null); see {@link Request}
     */
    public Request sendTag(final long tag, final GenericDatatype datatype, final Object state, final long length,
                           final RequestCallback callback) {
        return sendDt(tag, Datatypes.GENERIC, null, datatype, state, length, false, callback);
    }

    /** A synchronous {@link #sendTag(long, GenericDatatype, Object, long, RequestCallback)}. */
    public Request sendTagSync(final long tag, final GenericDatatype datatype, final Object state, final long length,
                               final RequestCallback callback) {
        return sendDt(tag, Datatypes.GENERIC, null, datatype, state, length, true, callback);
    }

    private Request sendDt(final long tag, final byte dt, final IoVector iov, final GenericDatatype generic,
                           final Object state, final long length, final boolean sync, final RequestCallback callback) {
        worker.guard.enter();
        try {
            if (failure != null || closed) {
                return failedSend(callback);
            }
            if (length < 0 || (dt == Datatypes.GENERIC ? generic == null : iov == null)) {
                throw new WeftException(Status.INVALID_PARAM, length < 0 ? "negative message length " + length
                    : "null datatype or IoVector");
            }
            worker.checkOpen();
            if (connecting != null) {
                return connecting.defer(callback, done -> sendDt(tag, dt, iov, generic, state, length, sync, done));
            }
            final Request r = worker.acquire(Request.SEND);
            r.dt = dt;
            r.data.iov = iov;
            r.data.generic = generic;
            r.data.state = state;
            return worker.tagEager.start(this, r, tag, length, sync, callback);
        } finally {
            worker.guard.exit();
        }
    }

    private Request send(final long tag, final MemorySegment buf, final long offset, final long length,
                         final boolean sync, final RequestCallback callback) {
        final Worker w = worker;
        w.guard.enter();
        try {
            if (failure != null || closed) {
                return failedSend(callback);
            }
            if (length <= thresholds.maxShort && !sync && callback == null && queue.isOpen()) {
                final Status st = amEp.amShort(AmId.EAGER, tag, buf, offset, (int) length);
                if (st == Status.OK) {
                    return Request.done(Status.OK);
                }
                if (st != Status.NO_RESOURCE) {
                    Datatypes.checkRange(buf, offset, length);
                    return Request.done(st);
                }
            }
            return sendSlow(tag, buf, offset, length, sync, callback);
        } finally {
            w.guard.exit();
        }
    }

    Request failedSend(final RequestCallback callback) {
        final Status st = failure != null ? failure : Status.CLOSED;
        if (callback == null) {
            return Request.done(st);
        }
        final Request r = worker.acquire(Request.SEND);
        r.callback = callback;
        r.ep = this;
        worker.complete(r, st);
        return r;
    }

    private Request sendSlow(final long tag, final MemorySegment buf, final long offset, final long length,
                             final boolean sync, final RequestCallback callback) {
        worker.checkOpen();
        Datatypes.checkRange(buf, offset, length);
        if (connecting != null) {
            return connecting.defer(callback, done -> send(tag, buf, offset, length, sync, done));
        }
        final Request r = worker.acquire(Request.SEND);
        r.buffer = buf;
        r.offset = offset;
        return worker.tagEager.start(this, r, tag, length, sync, callback);
    }

    // ------------------------------------------------------------------ active messages and streams

    /**
     * Sends an active message without a header: see
     * {@link #sendAm(int, MemorySegment, long, long, MemorySegment, long, long, int, RequestCallback)}.
     */
    public Request sendAm(final int id, final MemorySegment data, final long offset, final long length, final int flags) {
        return worker.ams.send(this, id, null, 0, 0, data, offset, length, flags, null);
    }

    /**
     * Sends an active message; see
     * {@link #sendAm(int, MemorySegment, long, long, MemorySegment, long, long, int, RequestCallback)}.
     */
    public Request sendAm(final int id, final MemorySegment header, final long headerOffset, final long headerLength,
                          final MemorySegment data, final long offset, final long length, final int flags) {
        return worker.ams.send(this, id, header, headerOffset, headerLength, data, offset, length, flags, null);
    }

    /**
     * Sends an active message to the handler the peer worker set for {@code id}
     * ({@link Worker#setAmHandler}). Sizes choose the protocol (inline, copied, multi-fragment, or
     * rendezvous from {@link #rendezvousThreshold()}) unless {@link AmFlags#SEND_EAGER} or
     * {@link AmFlags#SEND_RNDV} force one; {@link AmFlags#SEND_REPLY} gives the handler an endpoint back.
     * Ordered with the other sends of this endpoint. Header and data must stay unchanged until the request
     * completes (a send that completes at once has already copied them).
     *
     * <pre>{@code
     * Request r = ep.sendAm(7, hdr, 0, 16, buf, 0, n, AmFlags.SEND_REPLY);
     * r.await();
     * r.release();
     * }</pre>
     *
     * @param id       user AM id, 0..65535
     * @param header   user header (may be null when {@code headerLength} is 0); it must fit one message for
     *                 rendezvous
     * @param callback called from progress on completion (may be null); see {@link Request}
     * @return done at once for short messages without a callback; a rendezvous send whose data the
     *     receiver dropped completes OK; one to an id without handler completes NO_ELEMENT (eager sends to
     *     such an id complete OK: the receiver counts them, {@link Worker#amUnknownIdCount()})
     */
    public Request sendAm(final int id, final MemorySegment header, final long headerOffset, final long headerLength,
                          final MemorySegment data, final long offset, final long length, final int flags,
                          final RequestCallback callback) {
        return worker.ams.send(this, id, header, headerOffset, headerLength, data, offset, length, flags, callback);
    }

    /** Sends {@code buf[offset, offset+length)} on this endpoint's byte stream. */
    public Request sendStream(final MemorySegment buf, final long offset, final long length) {
        return worker.streams.send(this, buf, offset, length, null);
    }

    /**
     * Sends {@code buf[offset, offset+length)} on this endpoint's ordered byte stream; the peer receives the
     * bytes in order, cut anywhere ({@link #recvStream}). The send completes when the buffer may be reused.
     * At most {@code WEFT_STREAM_WINDOW} bytes travel ahead of what the receiver consumed (the rest waits).
     *
     * @param callback called from progress on completion (may be null); see {@link Request}
     */
    public Request sendStream(final MemorySegment buf, final long offset, final long length,
                              final RequestCallback callback) {
        return worker.streams.send(this, buf, offset, length, callback);
    }

    /**
     * Sends the bytes of {@code iov}, entry after entry, on this endpoint's stream (gather): the peer receives
     * them as if one contiguous buffer had been sent. Completes when every entry may be reused.
     *
     * @param callback called from progress on completion (may be null)
     */
    public Request sendStream(final IoVector iov, final RequestCallback callback) {
        return worker.streams.sendIov(this, iov, callback);
    }

    /**
     * Receives the next stream bytes scattered over {@code iov} (entry after entry); as
     * {@link #recvStream(MemorySegment, long, long, boolean, RequestCallback)}, with the iov's total length as
     * the buffer's. Returns a pooled request (release it) whose {@link Request#length()} is the bytes received.
     */
    public Request recvStream(final IoVector iov, final boolean waitAll, final RequestCallback callback) {
        return worker.streams.recvIov(this, iov, waitAll, callback);
    }

    /**
     * Receives stream bytes into {@code buf[offset, offset+length)}; see
     * {@link #recvStream(MemorySegment, long, long, boolean, RequestCallback)}.
     */
    public Request recvStream(final MemorySegment buf, final long offset, final long length, final boolean waitAll) {
        return worker.streams.recv(this, buf, offset, length, waitAll, null);
    }

    /**
     * Receives the next bytes of the peer's stream into {@code buf[offset, offset+length)}. Without
     * {@code waitAll} the receive completes as soon as some bytes are there, with {@link Request#length()}
     * saying how many; with it, only when the buffer is full.
     *
     * <pre>{@code
     * Request r = ep.recvStream(buf, 0, 4096, false);
     * r.await();
     * long n = r == Request.done(Status.OK) ? 4096 : r.length();   // bytes now in buf
     * r.release();
     * }</pre>
     *
     * @return {@link Request#done(Status) done(OK)} (no callback) when buffered bytes filled the whole buffer
     *     at once (the length is {@code length}); otherwise a pooled request, possibly already completed with a
     *     partial length; release it
     */
    public Request recvStream(final MemorySegment buf, final long offset, final long length, final boolean waitAll,
                              final RequestCallback callback) {
        return worker.streams.recv(this, buf, offset, length, waitAll, callback);
    }

    /**
     * Zero-copy stream receive (UCX's stream_recv_data): the bytes of this endpoint's stream that arrived
     * before any receive asked for them, as a read-only view of the worker's buffer (the oldest
     * contiguous piece; more may follow), or null when none are buffered or a {@link #recvStream} is
     * posted. The view stays valid until {@link #releaseStreamData} consumes its bytes; the stream does
     * not advance until then.
     *
     * <pre>{@code
     * MemorySegment d;
     * while ((d = ep.recvStreamData()) != null) {
     *     parse(d);                            // no copy
     *     ep.releaseStreamData(d.byteSize());  // consumed: the sender's window moves on
     * }
     * }</pre>
     */
    public MemorySegment recvStreamData() {
        return worker.streams.peek(this);
    }

    /**
     * Consumes {@code length} buffered stream bytes (those {@link #recvStreamData} showed, possibly across
     * several views); the views over them are invalid afterwards.
     *
     * @throws WeftException INVALID_PARAM if fewer bytes are buffered
     */
    public void releaseStreamData(final long length) {
        worker.streams.consume(this, length);
    }

    /** Sends a short control message now, or queues it if the lane is busy. */
    void sendControl(final int amId, final long header, final long value) {
        worker.control.send(this, amId, header, value);
    }

    /** A reply the peer may be waiting for: see {@link ControlSend#sendReply}. */
    void sendReply(final int amId, final long header, final long value) {
        worker.control.sendReply(this, amId, header, value);
    }

    /** Sends WIREUP (request or reply); queued when the lane is full. */
    void sendWireup(final byte type, final long dst) {
        worker.control.sendWireup(this, type, dst);
    }

    boolean usesUct(final weft.uct.Endpoint u) {
        return laneSet.uses(u);
    }

    /** Fails the endpoint: every queued and in-flight operation completes with {@code st}. */
    void fail(final Status st) {
        EndpointClose.fail(this, st);
    }

    /** Closes the endpoint now: outstanding operations complete with {@code st}, the lanes are released. */
    void closeForce(final Status st) {
        EndpointClose.closeForce(this, st);
    }

    /**
     * Closes the endpoint in {@link CloseMode#FLUSH} mode and waits (progressing the worker) until it is
     * closed, at most {@code WEFT_EP_CLOSE_TIMEOUT}: queued and in-flight operations finish first, then
     * the peer is told, then the lanes are released. What is still outstanding at the timeout completes
     * with CANCELED. Idempotent; a closed endpoint's operations fail with {@link Status#CLOSED}.
     */
    @Override
    public void close() {
        worker.guard.enter();
        try {
            if (closed) {
                return;
            }
            final Request r = closeNonBlocking(CloseMode.FLUSH);
            while (!r.isCompleted()) { // bounded: the close request times out by itself
                worker.progress();
            }
            r.release();
        } finally {
            worker.guard.exit();
        }
    }

    /**
     * Starts closing the endpoint. {@link CloseMode#FORCE} releases everything now: outstanding
     * operations complete with {@link Status#CANCELED} and the returned request is done. FLUSH returns a
     * request that completes (from progress) with OK once every operation of this endpoint has finished
     * and the peer was told, or with TIMED_OUT after {@code WEFT_EP_CLOSE_TIMEOUT} (then what was left
     * completes with CANCELED). Do not start operations on an endpoint being closed.
     */
    public Request closeNonBlocking(final CloseMode mode) {
        worker.guard.enter();
        try {
            if (closed) {
                return Request.done(Status.OK);
            }
            if (mode == CloseMode.FORCE || failure != null) {
                closeForce(Status.CANCELED);
                return Request.done(Status.OK);
            }
            return worker.lifecycle.startClose(this);
        } finally {
            worker.guard.exit();
        }
    }

    boolean isClosed() {
        return closed;
    }

    Status failure() {
        return failure;
    }

    Lane keepaliveLane() {
        final int k = selection.keepalive();
        return k >= 0 ? lanes[k] : null;
    }

    /** Removes the connect gate from the head of the send queue (the server accepted). */
    void openGate() {
        if (queue.removeHead(gate)) {
            worker.complete(gate, Status.OK);
            queue.wake();
        }
    }

    /** Puts the connect gate in the (empty) send queue: sends wait behind it. */
    void closeGate(final Request g) {
        gate = g;
        g.ep = this;
        queue.add(g);
    }

    @Override
    public String toString() {
        return "Endpoint[" + (name != null ? name + ", " : "") + (isBound() ? id + " -> " + remote + ", am=" + am.name()
            : "connecting to " + connecting.server) + "]";
    }

    /** Names the endpoint for diagnostics: the name shows in {@link #toString()}, in logs and errors. */
    public Endpoint name(final String name) {
        this.name = name;
        return this;
    }

    /** The name given by {@link #name(String)}, or null. */
    public String name() {
        return name;
    }

    /**
     * For an endpoint of a socket-address connection ({@link Worker#connect(java.net.InetSocketAddress)} or
     * accepted from a {@link Listener}): this side's address of the handshake connection; null otherwise.
     */
    public java.net.InetSocketAddress localSocketAddress() {
        return localSocket;
    }

    /** The peer's socket address, as {@link #localSocketAddress()}; null for endpoints made from an address. */
    public java.net.InetSocketAddress remoteSocketAddress() {
        return remoteSocket;
    }

    // ------------------------------------------------------------------ one-sided operations

    /**
     * Turns a peer's {@link MemoryMap#packRkey()} bytes into a key for operations on this endpoint.
     *
     * On an endpoint still connecting ({@link Worker#connect(java.net.InetSocketAddress)}) it first waits,
     * progressing the worker, for the handshake (a key needs the lanes), at most {@code WEFT_CONNECT_TIMEOUT}.
     *
     * @throws WeftException INVALID_RKEY for garbage, truncated or foreign bytes; UNREACHABLE if no lane
     *     of this endpoint can reach the memory; CLOSED if this endpoint (or its worker) is closed, or the
     *     error that failed it (as {@link #status()}), like every other operation on it
     */
    public Rkey unpackRkey(final byte[] packed) {
        worker.guard.enter();
        try {
            worker.checkOpen();
            while (connecting != null && failure == null && !closed) { // bounded: the connect times out
                worker.progress();
            }
            if (failure != null || closed) {
                throw new WeftException(status(), "unpackRkey: " + (closed ? "the endpoint is closed"
                    : "the endpoint failed with " + failure) + " (" + this + ")");
            }
            return new Rkey(this, packed);
        } finally {
            worker.guard.exit();
        }
    }

    /**
     * Writes {@code src[offset, +length)} to the peer's memory at {@code remoteAddress}; completion by
     * {@link #flush()} (the buffer must stay untouched until then).
     *
     * @return OK if already done, IN_PROGRESS if the flush will complete it, or an error
     */
    public Status putNbi(final MemorySegment src, final long offset, final long length, final long remoteAddress,
                         final Rkey rkey) {
        return rma.putNbi(src, offset, length, remoteAddress, rkey);
    }

    /**
     * Put-with-signal: {@link #putNbi}, then the 64-bit post atomic {@code signalOp} of {@code signal} at {@code
     * signalAddress}, performed at the peer after the data and every earlier operation of this endpoint (who sees
     * the signal sees them); one transport operation where the lane allows it ({@link weft.uct.Capability#PUT_SIGNAL}). */
    public Status putSignalNbi(final MemorySegment src, final long offset, final long length, final long remoteAddress,
                               final Rkey rkey, final weft.uct.AtomicOp signalOp, final long signal,
                               final long signalAddress, final Rkey signalKey) {
        return rma.putSignalNbi(src, offset, length, remoteAddress, rkey, signalOp, signal, signalAddress, signalKey);
    }

    /** Reads the peer's memory at {@code remoteAddress} into {@code dst[offset, +length)}; completion by flush. */
    public Status getNbi(final MemorySegment dst, final long offset, final long length, final long remoteAddress,
                         final Rkey rkey) {
        return rma.nbi(Rma.GET, dst, offset, length, remoteAddress, rkey, null, 0, 0);
    }

    /**
     * A put whose request completes when {@code src} may be reused (remote visibility needs a flush).
     * A refusal by the target (out of range, a key whose memory was unmapped) completes the request
     * with that error, or, when the lane completed the put locally first (tcp), the next flush.
     */
    public Request put(final MemorySegment src, final long offset, final long length, final long remoteAddress,
                       final Rkey rkey) {
        return rma.rmaRequest(Rma.PUT, src, offset, length, remoteAddress, rkey, null, 0, 0, null);
    }

    /** A put with a completion callback (called from progress once the data left {@code src}). */
    public Request put(final MemorySegment src, final long offset, final long length, final long remoteAddress,
                       final Rkey rkey, final RequestCallback callback) {
        return rma.rmaRequest(Rma.PUT, src, offset, length, remoteAddress, rkey, null, 0, 0, callback);
    }

    /** A get whose request completes when the data is in {@code dst}. */
    public Request get(final MemorySegment dst, final long offset, final long length, final long remoteAddress,
                       final Rkey rkey) {
        return rma.rmaRequest(Rma.GET, dst, offset, length, remoteAddress, rkey, null, 0, 0, null);
    }

    /** A get with a completion callback (called from progress). */
    public Request get(final MemorySegment dst, final long offset, final long length, final long remoteAddress,
                       final Rkey rkey, final RequestCallback callback) {
        return rma.rmaRequest(Rma.GET, dst, offset, length, remoteAddress, rkey, null, 0, 0, callback);
    }

    /** A 64-bit atomic without result (ADD, AND, OR, XOR; SWAP = a set), completed by flush. */
    public Status atomicPost(final weft.uct.AtomicOp op, final long value, final long remoteAddress, final Rkey rkey) {
        return rma.nbi(Rma.AMO_POST, null, 0, 8, remoteAddress, rkey, op, value, 0);
    }

    /** A 32-bit atomic without result. */
    public Status atomicPost32(final weft.uct.AtomicOp op, final int value, final long remoteAddress, final Rkey rkey) {
        return rma.nbi(Rma.AMO_POST, null, 0, 4, remoteAddress, rkey, op, value, 0);
    }

    /** A 64-bit fetching atomic (ADD, AND, OR, XOR, SWAP): the old value lands in {@code result[resultOffset]}. */
    public Request atomicFetch(final weft.uct.AtomicOp op, final long value, final MemorySegment result,
                               final long resultOffset, final long remoteAddress, final Rkey rkey) {
        return rma.rmaRequest(Rma.AMO_FETCH, result, resultOffset, 8, remoteAddress, rkey, op, value, 0, null);
    }

    /** A 32-bit fetching atomic. */
    public Request atomicFetch32(final weft.uct.AtomicOp op, final int value, final MemorySegment result,
                                 final long resultOffset, final long remoteAddress, final Rkey rkey) {
        return rma.rmaRequest(Rma.AMO_FETCH, result, resultOffset, 4, remoteAddress, rkey, op, value, 0, null);
    }

    /** 64-bit compare-and-swap: the old value lands in {@code result[resultOffset]}. */
    public Request atomicCswap(final long compare, final long swap, final MemorySegment result, final long resultOffset,
                               final long remoteAddress, final Rkey rkey) {
        return rma.rmaRequest(Rma.AMO_CSWAP, result, resultOffset, 8, remoteAddress, rkey, weft.uct.AtomicOp.CSWAP, swap,
            compare, null);
    }

    /** 32-bit compare-and-swap. */
    public Request atomicCswap32(final int compare, final int swap, final MemorySegment result,
                                 final long resultOffset, final long remoteAddress, final Rkey rkey) {
        return rma.rmaRequest(Rma.AMO_CSWAP, result, resultOffset, 4, remoteAddress, rkey, weft.uct.AtomicOp.CSWAP, swap,
            compare, null);
    }

    /**
     * Writes the bytes {@code iov} describes (gathered in list order) to the peer's memory from
     * {@code remoteAddress} on; the request completes when the iov's memory may be reused (remote
     * visibility needs a flush). The iov object and its memory must stay untouched until then.
     */
    public Request putIov(final IoVector iov, final long remoteAddress, final Rkey rkey) {
        return rma.rmaRequest(Rma.PUT, null, 0, EndpointRma.iovLength(iov), remoteAddress, rkey, null, 0, 0, null, iov);
    }

    /** Reads {@code iov.totalLength()} bytes of the peer's memory from {@code remoteAddress}, scattered into {@code iov}. */
    public Request getIov(final IoVector iov, final long remoteAddress, final Rkey rkey) {
        return rma.rmaRequest(Rma.GET, null, 0, EndpointRma.iovLength(iov), remoteAddress, rkey, null, 0, 0, null, iov);
    }

    /** {@link #putIov} completed by {@link #flush()}: OK if already done, IN_PROGRESS, or an error. */
    public Status putIovNbi(final IoVector iov, final long remoteAddress, final Rkey rkey) {
        return rma.nbi(Rma.PUT, null, 0, EndpointRma.iovLength(iov), remoteAddress, rkey, null, 0, 0, iov);
    }

    /** {@link #getIov} completed by {@link #flush()}. */
    public Status getIovNbi(final IoVector iov, final long remoteAddress, final Rkey rkey) {
        return rma.nbi(Rma.GET, null, 0, EndpointRma.iovLength(iov), remoteAddress, rkey, null, 0, 0, iov);
    }

    /**
     * Remote completion of every one-sided operation started on this endpoint before the call (puts,
     * gets and atomics, nbi or not, of any size, on any key of this endpoint). When the request
     * completes:
     * <ul>
     *   <li>every earlier put and atomic has been performed in the target's memory: a target thread
     *   that learns of the completion afterwards (a message sent after it, a flag put after it) reads
     *   the data with plain loads, and its own CPU atomics on the same words act on the updated values;
     *   later operations of any initiator see it too;</li>
     *   <li>every earlier get and fetching atomic has its data in the local buffer, and the buffers of
     *   earlier nbi operations may be reused;</li>
     *   <li>every tag/AM/stream send queued before it has been issued (not necessarily delivered).</li>
     * </ul>
     * Status: OK, or the first error of an earlier nbi operation that was refused at the target after
     * its call returned IN_PROGRESS (e.g. OUT_OF_RANGE, INVALID_RKEY); an operation refused at once
     * reports in its own return value instead. The endpoint stays usable after such an error. A failed
     * endpoint (peer gone) completes it with the endpoint's error. Never hangs: a dead peer fails it
     * within the keepalive bound.
     */
    public Request flush() {
        return rma.flush(null);
    }

    /** {@link #flush()} with a completion callback (called from progress). */
    public Request flush(final RequestCallback callback) {
        return rma.flush(callback);
    }

    /**
     * Local completion: completes when every one-sided operation started on this endpoint before the call
     * has left this process: its source may be reused and its delivery needs no further progress of this
     * worker (tcp: every byte left the socket and the zero-copy puts, whose memory goes by reference, were
     * acknowledged, no other ack or reply awaited; shm and cma: done when issued). Says nothing about the
     * target: gets and fetching atomics may still be on their way back, puts not yet performed. Queued behind
     * the send queue, as {@link #flush()}.
     */
    public Request flushSent() {
        return rma.flush(null, Rma.FLUSH_SENT);
    }

    /**
     * One-sided traffic per lane of this endpoint, keyed by the lane's local resource ("tcp/lo"):
     * put/get/atomic operations and bytes as counted when issued (puts and gets count each piece).
     */
    public java.util.Map<String, java.util.Map<weft.ucs.stats.Counter, Long>> laneCounters() {
        worker.guard.enter();
        try {
            return laneSet.counters();
        } finally {
            worker.guard.exit();
        }
    }
}
