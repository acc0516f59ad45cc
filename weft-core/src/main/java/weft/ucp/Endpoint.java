package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.IoVector;
import weft.uct.MemoryHandle;
import weft.uct.Packer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

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
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    final Worker worker;
    final long id;
    final WorkerAddress remote;
    final long connSn;
    final Lane[] lanes;
    final Lane am;
    final weft.uct.Endpoint amEp;
    final Lane[] rndv;
    final double[] rndvWeights;
    /** Rendezvous lanes that stream zero-copy AM: rendezvous over AM is striped over them (Rails). */
    final Lane[] amRails;
    final ProtocolThresholds thresholds;
    private final LaneSelector.Selection selection;
    long remoteId = -1;
    boolean userOwned;
    private Status failure;
    private boolean closed;
    private ErrorHandler errorHandler;
    // sockaddr client: first in the send queue until the server accepts (see Lifecycle)
    Request gate;
    boolean removedNoticeSent;
    /** The peer closed its endpoint (EP_REMOVED): it reads none of our eager-get slots any more. */
    boolean removedByPeer;
    long lastHeard = System.nanoTime(); // last keepalive from the peer (Lifecycle)

    // send queue: requests wait here, in order, when a lane is out of resources or wireup is not done
    private Request sqHead;
    private Request sqTail;
    // multi-fragment eager reception from this peer (fragments of one message arrive back to back)
    Request rxRequest;
    TagMessage rxMessage;
    // active messages: a multi-fragment message being reassembled; stream state (created on first use)
    AmMessage amRx;
    Streams.State stream;
    // the peer is flooded with unexpected messages: start no new tag message (FlowControl)
    private boolean flowStopped;
    private boolean flowBlocked; // the last progressSend refused because of flowStopped (not the lane)
    private boolean bypassFull;  // progressBypass stopped on a full lane
    // stopped with nothing that may bypass: the worker stops polling this queue until GO or a new control
    boolean parked;
    /** Listed in the worker's {@link PendingEndpoints} (kept by that class). */
    boolean sendPendingListed;

    private final WireupPacker packer = new WireupPacker();
    /** Rendezvous registrations and remote keys reused message after message (no allocation). */
    final RndvCache rndvCache = new RndvCache(this);
    private final MemorySegment ctl;
    /** One-sided operations, flush and fence of this endpoint. */
    final EndpointRma rma;

    /** Called when the endpoint fails (peer died, connection reset, keepalive timeout). */
    @FunctionalInterface
    public interface ErrorHandler {
        /** @param status why the endpoint failed */
        void onError(Endpoint endpoint, Status status);
    }

    Endpoint(final Worker worker, final long id, final WorkerAddress remote, final long connSn,
             final LaneSelector.Selection sel) {
        this.worker = worker;
        this.id = id;
        this.remote = remote;
        this.connSn = connSn;
        this.selection = sel;
        this.lanes = new Lane[sel.lanes().size()];
        try {
            for (int i = 0; i < lanes.length; i++) {
                final LaneSelector.Candidate c = sel.lanes().get(i);
                lanes[i] = new Lane(c.local(), c.remote(),
                    c.local().iface.connect(c.remote().deviceAddress(), c.remote().interfaceAddress()), i);
            }
        } catch (final RuntimeException e) {
            for (final Lane l : lanes) {
                if (l != null) {
                    l.uct.close();
                }
            }
            throw e;
        }
        this.am = lanes[sel.am()];
        this.amEp = am.uct;
        this.rndv = new Lane[sel.rndv().length];
        for (int i = 0; i < rndv.length; i++) {
            rndv[i] = lanes[sel.rndv()[i]];
        }
        this.rndvWeights = sel.rndvWeights();
        final java.util.List<Lane> zl = new java.util.ArrayList<>();
        for (final Lane l : rndv) {
            if (l.local.attrs.has(weft.uct.Capability.AM_ZCOPY) && (l.remote.capabilities() & weft.uct.Capability.AM_ZCOPY) != 0) {
                zl.add(l);
            }
        }
        this.amRails = zl.toArray(new Lane[0]);
        this.thresholds = new ProtocolThresholds(worker.context, am, rndv);
        this.ctl = worker.arena().allocate(8, 8);
        this.rma = new EndpointRma(this);
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
     * with OK when the server accepts, or with the failure ({@link Status#REJECTED}, TIMED_OUT, ...).
     * Null for endpoints made from a worker address or accepted by a listener. Release it when done.
     */
    public Request connectRequest() {
        return gate;
    }

    /** The lanes and the protocol thresholds, as {@code weft info -e} prints them. */
    public String describe() {
        final Context c = worker.context;
        return selection.describe() + thresholds.describe() + String.format(
            "put/get: up to %d rails per remote key, striped from %d bytes, else lane policy %s; atomics: one lane per key%n",
            c.maxRmaRails, 2 * c.minRmaChunk, c.config().get(UcpConfig.LANE_POLICY));
    }

    /** The size from which tag sends use rendezvous. */
    public long rendezvousThreshold() {
        return thresholds.rndvThresh;
    }

    /** The largest payload sent inline. */
    public long maxShort() {
        return thresholds.maxShort;
    }

    /**
     * The size from which eager tag sends of contiguous off-heap data go zero-copy (below
     * {@link #rendezvousThreshold()}), or {@code Long.MAX_VALUE} when the AM lane cannot send from user
     * memory. The buffer then belongs to the transport until the request completes.
     */
    public long zeroCopyThreshold() {
        return thresholds.zcopyThresh;
    }

    /** The largest payload of one eager zero-copy fragment (0 when there is no eager zero-copy). */
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
            final Request r = worker.acquire(Request.SEND);
            r.dt = dt;
            r.iov = iov;
            r.generic = generic;
            r.dtState = state;
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
            if (length <= thresholds.maxShort && !sync && callback == null && sqHead == null && !flowStopped) {
                final Status st = amEp.amShort(AmId.EAGER, tag, buf, offset, (int) length);
                if (st == Status.OK) {
                    return Request.done(Status.OK);
                }
                if (st != Status.NO_RESOURCE) {
                    Worker.checkRange(buf, offset, length);
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
        Worker.checkRange(buf, offset, length);
        final Request r = worker.acquire(Request.SEND);
        r.buffer = buf;
        r.offset = offset;
        return worker.tagEager.start(this, r, tag, length, sync, callback);
    }

    void enqueue(final Request r) {
        r.nextSend = null;
        if (sqTail == null) {
            sqHead = r;
            worker.sendPending.add(this);
        } else {
            sqTail.nextSend = r;
        }
        sqTail = r;
        if (parked && worker.protocol(r.kind).bypassesFlowStop(r)) {
            // may bypass the stopped head
            parked = false;
            worker.sendPending.add(this);
        }
    }

    boolean sendQueueEmpty() {
        return sqHead == null;
    }

    /** Sends queued requests in order until the queue is empty or a lane is out of resources. */
    int progressSendQueue() {
        if (parked) {
            return 0; // stopped by the peer, nothing may bypass: a new send changes neither
        }
        int work = 0;
        while (sqHead != null) {
            final Request r = sqHead;
            flowBlocked = false;
            final Status st = progressSend(r);
            if (st == Status.NO_RESOURCE) {
                if (flowStopped) {
                    final boolean headStopped = flowBlocked;
                    work += progressBypass();
                    parked = headStopped && !bypassFull; // nothing to do until GO: do not walk the queue again
                }
                break;
            }
            sqHead = r.nextSend;
            if (sqHead == null) {
                sqTail = null;
            }
            r.nextSend = null;
            work++;
            if (st.isError()) {
                worker.complete(r, st);
            }
        }
        return work;
    }

    /** Advances one queued send, by the protocol of its kind; OK means it no longer needs the queue. */
    private Status progressSend(final Request r) {
        if (failure != null) {
            return failure;
        }
        return worker.protocol(r.kind).progressSend(this, r);
    }

    /**
     * FlowControl: true while the peer asked us to start no new message (a protocol about to start one then
     * answers NO_RESOURCE); notes that the queue's head is held by the peer, not by a full lane.
     */
    boolean holdNewMessage() {
        if (flowStopped) {
            flowBlocked = true;
            return true;
        }
        return false;
    }

    /** A queued CONTROL request (wireup or a short control message): recycled once sent. */
    Status sendQueuedControl(final Request r) {
        final Status st;
        if (r.tag == AmId.WIREUP) {
            st = trySendWireup((byte) r.length, r.remoteReqId); // length: request or reply
        } else {
            ctl.set(LONG, 0, r.length);
            st = amEp.amShort((int) r.tag, r.remoteReqId, ctl, 0, 8);
        }
        if (st == Status.OK) {
            if (r.urgent && --urgentQueued == 0) {
                urgentTail = null;
            }
            worker.complete(r, st); // released: back to the pool
        }
        return st;
    }

    // ------------------------------------------------------------------ active messages and streams

    /** Sends an active message without a header: see {@link #sendAm(int, MemorySegment, long, long, MemorySegment, long, long, int, RequestCallback)}. */
    public Request sendAm(final int id, final MemorySegment data, final long offset, final long length, final int flags) {
        return worker.ams.send(this, id, null, 0, 0, data, offset, length, flags, null);
    }

    /** Sends an active message; see {@link #sendAm(int, MemorySegment, long, long, MemorySegment, long, long, int, RequestCallback)}. */
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

    /** Receives stream bytes into {@code buf[offset, offset+length)}; see {@link #recvStream(MemorySegment, long, long, boolean, RequestCallback)}. */
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

    /**
     * While the peer has stopped us (FlowControl) the head of the queue is a new message that must
     * wait; the control messages and asked-for rendezvous data behind it must not, or the peer could
     * never drain. Sends those, in order, out of the queue.
     */
    private int progressBypass() {
        int work = 0;
        bypassFull = false;
        Request prev = sqHead;
        Request r = prev.nextSend;
        while (r != null) {
            final Request next = r.nextSend;
            if (worker.protocol(r.kind).bypassesFlowStop(r)) {
                final Status st = progressSend(r);
                if (st == Status.NO_RESOURCE) {
                    bypassFull = true;
                    break; // the lane is full: keep the rest in order
                }
                prev.nextSend = next;
                if (sqTail == r) {
                    sqTail = prev;
                }
                r.nextSend = null;
                work++;
                if (st.isError()) {
                    worker.complete(r, st);
                }
            } else {
                prev = r;
            }
            r = next;
        }
        return work;
    }

    /** FlowControl: the peer tells us to stop starting messages, or to go on. */
    void setFlowStopped(final boolean stop) {
        flowStopped = stop;
        if (!stop) {
            parked = false;
        }
        if (!stop && sqHead != null) {
            worker.sendPending.add(this);
        }
    }

    /** Releases the rendezvous registrations of {@code r}'s data, if any. */
    void releaseRendezvousResources(final Request r) {
        final MemoryHandle[] hs = r.handles;
        r.handles = null;
        if (hs == null) {
            return;
        }
        rndvCache.releaseHandles(hs);
    }

    // ------------------------------------------------------------------ control and wireup

    /** Sends a short control message now, or queues it if the lane is busy. */
    void sendControl(final int amId, final long header, final long value) {
        if (failure != null) {
            return;
        }
        if (sqHead == null && trySendControl(amId, header, value)) {
            return;
        }
        enqueue(controlRequest(amId, header, value));
    }

    private boolean trySendControl(final int amId, final long header, final long value) {
        ctl.set(LONG, 0, value);
        return amEp.amShort(amId, header, ctl, 0, 8) == Status.OK;
    }

    /** A queued control message: nobody waits for it, recycled when sent. */
    private Request controlRequest(final int amId, final long header, final long value) {
        final Request r = worker.acquire(Request.CONTROL);
        r.ep = this;
        r.tag = amId;
        r.remoteReqId = header;
        r.length = value;
        r.released = true;
        return r;
    }

    /**
     * A reply the peer may be waiting for behind its own send queue (emulated atomics: a fence there
     * waits for it): it goes at once, ahead of this endpoint's queue, or else at the queue's front,
     * behind earlier such replies only, so that a fence here cannot hold the peer's fence (and the
     * replies keep their order).
     */
    void sendReply(final int amId, final long header, final long value) {
        if (failure != null || closed) {
            return; // the peer's endpoint fails or closes too: nobody waits for the reply
        }
        if (urgentQueued == 0 && trySendControl(amId, header, value)) {
            return;
        }
        final Request r = controlRequest(amId, header, value);
        r.urgent = true;
        if (urgentTail == null) {
            r.nextSend = sqHead;
            sqHead = r;
        } else {
            r.nextSend = urgentTail.nextSend;
            urgentTail.nextSend = r;
        }
        if (r.nextSend == null) {
            sqTail = r;
        }
        urgentTail = r;
        urgentQueued++;
        parked = false; // a reply may bypass a stopped head
        worker.sendPending.add(this);
    }

    // GET-based eager (EagerGet): our pool's key went to the peer; the peer's pool as we map it
    boolean eagerGetKeySent;
    private MemorySegment egHeader;
    private Rkey egRkey;
    private MemorySegment egView;

    MemorySegment eagerGetHeader() {
        if (egHeader == null) {
            egHeader = worker.arena().allocate(EagerGet.HEADER, 8);
        }
        return egHeader;
    }

    MemorySegment eagerGetView() {
        return egView;
    }

    void setEagerGetView(final Rkey rk, final MemorySegment view) {
        if (egRkey != null) {
            egRkey.close();
        }
        egRkey = rk;
        egView = view;
    }

    /** Replies queued by {@link #sendReply} (at the queue's front) and the last of them. */
    private int urgentQueued;
    private Request urgentTail;

    void sendWireup(final byte type, final long dst) {
        final Status st = trySendWireup(type, dst);
        if (st == Status.NO_RESOURCE) {
            // the lane is full (the peer's receive FIFO, filled by many PEs wiring up at once, or this side
            // streaming to the peer): the message waits in the send queue, ahead of anything sent later
            enqueue(controlRequest(AmId.WIREUP, dst, type));
        } else if (st != Status.OK) {
            throw new WeftException(st, "cannot send the wireup message to " + remote + " on " + am.name() + ": "
                + st);
        }
    }

    private Status trySendWireup(final byte type, final long dst) {
        final byte[] addr = type == AmId.WIREUP_REQUEST ? worker.address() : new byte[0];
        packer.wireup(type, id, dst, connSn, addr);
        final long n = amEp.amBcopy(AmId.WIREUP, packer);
        return n < 0 ? Status.ofLength(n) : Status.OK;
    }

    void onRemoteId(final long rid) {
        if (remoteId < 0) {
            remoteId = rid;
            worker.flow.onWired(this);
        }
        if (gate != null && !gate.completed) {
            worker.lifecycle.accepted(this); // the server's wireup request is its acceptance too
        }
        if (sqHead != null) {
            worker.sendPending.add(this);
        }
    }

    // ------------------------------------------------------------------ failure and close

    boolean usesUct(final weft.uct.Endpoint u) {
        for (final Lane l : lanes) {
            if (l.uct == u) {
                return true;
            }
        }
        for (final Lane l : extraLanes) {
            if (l.uct == u) {
                return true;
            }
        }
        return false;
    }

    /** Fails the endpoint: every queued and in-flight operation completes with {@code st}. */
    void fail(final Status st) {
        if (failure != null || closed) {
            return;
        }
        failure = st;
        abortAll(st);
        if (worker.eagerGet.lent() > 0 && (removedByPeer || amEp.check().isError())) {
            // the peer is gone, or dropped its endpoint (its answers for slots it read came before the
            // notice, on the same ordered lane): it will never read (nor give back) the slots still lent
            worker.eagerGet.reclaim(this);
        }
        if (errorHandler != null) {
            errorHandler.onError(this, st);
        }
    }

    private void abortAll(final Status st) {
        while (sqHead != null) {
            final Request r = sqHead;
            sqHead = r.nextSend;
            r.nextSend = null;
            if (r.kind == Request.RMA || r.zdata) {
                // pieces may be in flight: drop our reference, the count completes it once they fail too
                r.completion.complete(st);
            } else {
                worker.complete(r, st);
            }
        }
        sqTail = null;
        urgentQueued = 0;
        urgentTail = null;
        worker.sendPending.remove(this);
        if (rxRequest != null) {
            final Request r = rxRequest;
            rxRequest = null;
            worker.complete(r, st);
        }
        if (rxMessage != null) {
            rxMessage.length = rxMessage.received; // truncated by the failure; deliver what arrived
            rxMessage = null;
        }
        worker.ams.dropRx(this);
        worker.streams.abort(this, st);
        worker.inflight.fail(this, st);
        worker.getPending.fail(this, st);
        rma.failSoftAmoWaiters(st);
    }

    void closeForce(final Status st) {
        if (closed) {
            return;
        }
        sendRemovedNotice();
        abortAll(st);
        closed = true;
        rndvCache.close();
        if (egRkey != null) {
            egRkey.close();
            egRkey = null;
            egView = null;
        }
        for (final Lane l : lanes) {
            l.uct.close();
        }
        for (final Lane l : extraLanes) {
            l.uct.close();
            l.local.lanes--; // adaptive progress: the interface may go idle
        }
        extraLanes.clear();
        worker.epTable.remove(this);
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

    /** Tells the peer (best effort) that this endpoint is going away, so its endpoint fails at once. */
    void sendRemovedNotice() {
        if (removedNoticeSent || failure != null || remoteId < 0) {
            return;
        }
        removedNoticeSent = true;
        ctl.set(LONG, 0, 0L);
        amEp.amShort(AmId.EP_REMOVED, remoteId, ctl, 0, 8); // NO_RESOURCE: the peer learns it from keepalive
    }

    /** Tells the peer we are alive (best effort: a busy lane skips one round). */
    void sendKeepalive() {
        if (failure == null && !closed && remoteId >= 0) {
            ctl.set(LONG, 0, 0L);
            amEp.amShort(AmId.KEEPALIVE, remoteId, ctl, 0, 8);
        }
    }

    /** Package view for Lifecycle. */
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
        if (sqHead == gate && gate != null) {
            sqHead = gate.nextSend;
            if (sqHead == null) {
                sqTail = null;
            }
            gate.nextSend = null;
            worker.complete(gate, Status.OK);
            if (sqHead != null) {
                worker.sendPending.add(this);
            }
        }
    }

    /** Puts the connect gate in the (empty) send queue: sends wait behind it. */
    void closeGate(final Request g) {
        gate = g;
        g.ep = this;
        enqueue(g);
    }

    @Override
    public String toString() {
        return "Endpoint[" + id + " -> " + remote + ", am=" + am.name() + "]";
    }

    /** Writes WIREUP messages; one per endpoint, set before each amBcopy call. */
    private static final class WireupPacker implements Packer {
        private byte wType;
        private long wSrc;
        private long wDst;
        private long wSn;
        private byte[] wAddr;

        void wireup(final byte type, final long src, final long dst, final long sn, final byte[] addr) {
            wType = type;
            wSrc = src;
            wDst = dst;
            wSn = sn;
            wAddr = addr;
        }

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            if (25 + wAddr.length > capacity) {
                throw new WeftException(Status.BUFFER_TOO_SMALL, "worker address of " + wAddr.length
                    + " bytes does not fit in one message of " + capacity);
            }
            d.set(ValueLayout.JAVA_BYTE, o, wType);
            d.set(LONG, o + 1, wSrc);
            d.set(LONG, o + 9, wDst);
            d.set(LONG, o + 17, wSn);
            MemorySegment.copy(MemorySegment.ofArray(wAddr), 0, d, o + 25, wAddr.length);
            return 25 + wAddr.length;
        }
    }

    // ------------------------------------------------------------------ one-sided operations

    /**
     * Turns a peer's {@link MemoryMap#packRkey()} bytes into a key for operations on this endpoint.
     *
     * @throws WeftException INVALID_RKEY for garbage, truncated or foreign bytes; UNREACHABLE if no lane
     *     of this endpoint can reach the memory; CLOSED if this endpoint (or its worker) is closed, or the
     *     error that failed it (as {@link #status()}), like every other operation on it
     */
    public Rkey unpackRkey(final byte[] packed) {
        worker.guard.enter();
        try {
            worker.checkOpen();
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

    /** A 64-bit atomic without result (ADD, AND, OR, XOR), completed by flush. */
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
        return rma.rmaRequest(Rma.PUT, null, 0, iovLength(iov), remoteAddress, rkey, null, 0, 0, null, iov);
    }

    /** Reads {@code iov.totalLength()} bytes of the peer's memory from {@code remoteAddress}, scattered into {@code iov}. */
    public Request getIov(final IoVector iov, final long remoteAddress, final Rkey rkey) {
        return rma.rmaRequest(Rma.GET, null, 0, iovLength(iov), remoteAddress, rkey, null, 0, 0, null, iov);
    }

    /** {@link #putIov} completed by {@link #flush()}: OK if already done, IN_PROGRESS, or an error. */
    public Status putIovNbi(final IoVector iov, final long remoteAddress, final Rkey rkey) {
        return rma.nbi(Rma.PUT, null, 0, iovLength(iov), remoteAddress, rkey, null, 0, 0, iov);
    }

    /** {@link #getIov} completed by {@link #flush()}. */
    public Status getIovNbi(final IoVector iov, final long remoteAddress, final Rkey rkey) {
        return rma.nbi(Rma.GET, null, 0, iovLength(iov), remoteAddress, rkey, null, 0, 0, iov);
    }

    private static long iovLength(final IoVector iov) {
        if (iov == null) {
            throw new WeftException(Status.INVALID_PARAM, "null IoVector");
        }
        return iov.totalLength();
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
        return rma.flush();
    }

    /** Round-robin cursor of this peer's rails ({@link Rails#RR}). */
    int rrNext;

    /** The lanes and the extra lanes (connected later for remote keys), in index order. */
    int laneCount() {
        return lanes.length + extraLanes.size();
    }

    Lane laneAt(final int index) {
        return index < lanes.length ? lanes[index] : extraLanes.get(index - lanes.length);
    }

    /**
     * Up to {@code max} lanes to the peer on {@code transport}: the existing ones, then new connections
     * from local interfaces of that transport that no lane uses yet, each to a peer resource no lane uses
     * (one rail per device pair, as rendezvous rails).
     */
    java.util.List<Lane> lanesFor(final String transport, final int max) {
        final java.util.List<Lane> out = new java.util.ArrayList<>();
        for (int i = 0; i < lanes.length + extraLanes.size() && out.size() < max; i++) {
            final Lane l = laneAt(i);
            if (l.local.transport.name().equals(transport)) {
                out.add(l);
            }
        }
        for (final WorkerIface wi : worker.ifaces) {
            if (out.size() >= max || !wi.transport.name().equals(transport) || usesLocal(wi)) {
                continue;
            }
            for (final WorkerAddress.Entry e : remote.entries()) {
                // a rail through a gateway beside the direct lanes would be slower and, between subnets
                // joined by a host that does not forward, dead (LaneSelector's rule)
                if (e.transport().equals(transport) && !usesRemote(e)
                    && wi.iface.isReachable(e.deviceAddress(), e.interfaceAddress())
                    && wi.iface.isDirect(e.deviceAddress(), e.interfaceAddress())) {
                    out.add(addLane(wi, e));
                    break;
                }
            }
        }
        return out;
    }

    private boolean usesLocal(final WorkerIface wi) {
        for (int i = 0; i < lanes.length + extraLanes.size(); i++) {
            if (laneAt(i).local == wi) {
                return true;
            }
        }
        return false;
    }

    private boolean usesRemote(final WorkerAddress.Entry e) {
        for (int i = 0; i < lanes.length + extraLanes.size(); i++) {
            if (laneAt(i).remote == e) {
                return true;
            }
        }
        return false;
    }

    private Lane addLane(final WorkerIface wi, final WorkerAddress.Entry e) {
        final Lane l = new Lane(wi, e, wi.iface.connect(e.deviceAddress(), e.interfaceAddress()),
            lanes.length + extraLanes.size());
        extraLanes.add(l);
        wi.lanes++; // adaptive progress: completions on this lane need its interface progressed
        return l;
    }

    /**
     * One-sided traffic per lane of this endpoint, keyed by the lane's local resource ("tcp/lo"):
     * put/get/atomic operations and bytes as counted when issued (puts and gets count each piece).
     */
    public java.util.Map<String, java.util.Map<weft.ucs.stats.Counter, Long>> laneCounters() {
        worker.guard.enter();
        try {
            final java.util.Map<String, java.util.Map<weft.ucs.stats.Counter, Long>> m = new java.util.LinkedHashMap<>();
            for (int i = 0; i < lanes.length + extraLanes.size(); i++) {
                final Lane l = laneAt(i);
                m.merge(l.name(), l.counters.snapshot(), (a, b) -> {
                    b.forEach((c, v) -> a.merge(c, v, Long::sum));
                    return a;
                });
            }
            return m;
        } finally {
            worker.guard.exit();
        }
    }

    private final java.util.ArrayList<Lane> extraLanes = new java.util.ArrayList<>();

    /**
     * The lane to the peer on {@code transport}: an existing one, or the pair a new one would connect
     * ({@link #connect} connects it); null if unreachable.
     */
    LaneOption laneOption(final String transport) {
        for (final Lane l : lanes) {
            if (l.local.transport.name().equals(transport)) {
                return LaneOption.of(l);
            }
        }
        for (final Lane l : extraLanes) {
            if (l.local.transport.name().equals(transport)) {
                return LaneOption.of(l);
            }
        }
        // a direct pair if there is one, else one through a gateway (LaneSelector's rule)
        for (int pass = 0; pass < 2; pass++) {
            for (final WorkerIface wi : worker.ifaces) {
                if (!wi.transport.name().equals(transport)) {
                    continue;
                }
                for (final WorkerAddress.Entry e : remote.entries()) {
                    if (e.transport().equals(transport) && wi.iface.isReachable(e.deviceAddress(), e.interfaceAddress())
                        && (pass == 1 || wi.iface.isDirect(e.deviceAddress(), e.interfaceAddress()))) {
                        return new LaneOption(null, wi, e);
                    }
                }
            }
        }
        return null;
    }

    /** The lane of {@code o}: the endpoint's own, or connected now (an extra lane). */
    Lane connect(final LaneOption o) {
        if (o.lane() != null) {
            return o.lane();
        }
        for (final Lane l : extraLanes) { // connected meanwhile (another key, or lanesFor)
            if (l.local == o.local() && l.remote == o.remote()) {
                return l;
            }
        }
        return addLane(o.local(), o.remote());
    }
}
