package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.IoVector;
import weft.uct.MemoryHandle;
import weft.uct.Packer;
import weft.uct.RemoteKey;

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
    private static final int ST_SHORT = 0;
    private static final int ST_SINGLE = 1;
    private static final int ST_FRAGMENTS = 2;
    private static final int ST_RTS = 3;
    private static final int ST_WAIT = 4;
    private static final int ST_DATA = 5;
    private static final int ST_MIDDLES = 6;

    final Worker worker;
    final long id;
    final WorkerAddress remote;
    final long connSn;
    final Lane[] lanes;
    final Lane am;
    private final weft.uct.Endpoint amEp;
    final Lane[] rndv;
    final double[] rndvWeights;
    final ProtocolThresholds thresholds;
    private final LaneSelector.Selection selection;
    long remoteId = -1;
    boolean userOwned;
    private Status failure;
    private boolean closed;
    private ErrorHandler errorHandler;

    // send queue: requests wait here, in order, when a lane is out of resources or wireup is not done
    private Request sqHead;
    private Request sqTail;
    // multi-fragment eager reception from this peer (fragments of one message arrive back to back)
    Request rxRequest;
    TagMessage rxMessage;

    private final SendPacker packer = new SendPacker();
    private final MemorySegment ctl;

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
                    c.local().iface.connect(c.remote().deviceAddress(), c.remote().interfaceAddress()));
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
        this.thresholds = new ProtocolThresholds(worker.context, am, rndv, rndvWeights);
        this.ctl = worker.arena().allocate(8, 8);
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

    /** The lanes and the protocol thresholds, as {@code weft info -e} prints them. */
    public String describe() {
        return selection.describe() + thresholds.describe();
    }

    /** The size from which tag sends use rendezvous. */
    public long rendezvousThreshold() {
        return thresholds.rndvThresh;
    }

    /** The largest payload sent inline. */
    public long maxShort() {
        return thresholds.maxShort;
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

    private Request send(final long tag, final MemorySegment buf, final long offset, final long length,
                         final boolean sync, final RequestCallback callback) {
        final Worker w = worker;
        w.guard.enter();
        try {
            if (failure != null || closed) {
                return failedSend(callback);
            }
            if (length <= thresholds.maxShort && !sync && callback == null && sqHead == null) {
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

    private Request failedSend(final RequestCallback callback) {
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
        r.ep = this;
        r.buffer = buf;
        r.offset = offset;
        r.capacity = length;
        r.length = length;
        r.tag = tag;
        r.sync = sync;
        r.callback = callback;
        if (length >= thresholds.rndvThresh) {
            r.kind = Request.RNDV_SEND;
            r.sendStage = ST_RTS;
        } else if (sync || length > thresholds.maxBcopy - 8) {
            r.sendStage = ST_FRAGMENTS;
        } else if (length <= thresholds.maxShort) {
            r.sendStage = ST_SHORT;
        } else {
            r.sendStage = ST_SINGLE;
        }
        if (sync || r.kind == Request.RNDV_SEND) {
            worker.registerInflight(r);
        }
        enqueue(r);
        progressSendQueue();
        return worker.finishImmediate(r);
    }

    private void enqueue(final Request r) {
        r.nextSend = null;
        if (sqTail == null) {
            sqHead = r;
            if (!worker.sendPending.contains(this)) {
                worker.sendPending.add(this);
            }
        } else {
            sqTail.nextSend = r;
        }
        sqTail = r;
    }

    boolean sendQueueEmpty() {
        return sqHead == null;
    }

    /** Sends queued requests in order until the queue is empty or a lane is out of resources. */
    int progressSendQueue() {
        int work = 0;
        while (sqHead != null) {
            final Request r = sqHead;
            final Status st = progressSend(r);
            if (st == Status.NO_RESOURCE) {
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

    /** Advances one queued send; OK means it no longer needs the queue. */
    private Status progressSend(final Request r) {
        if (failure != null) {
            return failure;
        }
        switch (r.kind) {
            case Request.CONTROL -> {
                final Status st;
                if (r.tag == AmId.WIREUP) {
                    st = trySendWireup(AmId.WIREUP_REPLY, r.remoteReqId);
                } else {
                    ctl.set(LONG, 0, r.length);
                    st = amEp.amShort((int) r.tag, r.remoteReqId, ctl, 0, 8);
                }
                if (st == Status.OK) {
                    worker.complete(r, st); // released: back to the pool
                }
                return st;
            }
            case Request.SEND -> {
                final Status st = sendEager(r);
                if (st == Status.OK) {
                    r.localDone = true;
                    if (!r.sync || r.acked) {
                        worker.complete(r, Status.OK);
                    }
                }
                return st;
            }
            case Request.RNDV_SEND -> {
                if (r.sendStage == ST_RTS) {
                    return sendRts(r);
                }
                if (r.sendStage == ST_DATA) {
                    final Status st = sendRndvData(r);
                    if (st == Status.OK) {
                        worker.complete(r, Status.OK);
                    }
                    return st;
                }
                return Status.OK;
            }
            default -> {
                return Status.INVALID_PARAM;
            }
        }
    }

    private Status sendEager(final Request r) {
        switch (r.sendStage) {
            case ST_SHORT -> {
                return amEp.amShort(AmId.EAGER, r.tag, r.buffer, r.offset, (int) r.capacity);
            }
            case ST_SINGLE -> {
                packer.set(SendPacker.EAGER, r, 0, r.capacity);
                final long n = amEp.amBcopy(AmId.EAGER, packer);
                return n >= 0 ? Status.OK : Status.ofLength(n);
            }
            default -> {
                if (remoteId < 0) {
                    return Status.NO_RESOURCE; // fragments name the peer's endpoint: wait for wireup
                }
                final long frag0 = thresholds.maxBcopy - AmId.FIRST_HEADER;
                final long fragN = thresholds.maxBcopy - AmId.MIDDLE_HEADER;
                while (true) {
                    final long pos = r.received;
                    final boolean first = r.sendStage == ST_FRAGMENTS;
                    final long n = Math.min(r.capacity - pos, first ? frag0 : fragN);
                    packer.set(first ? SendPacker.FIRST : SendPacker.MIDDLE, r, pos, n);
                    final long st = amEp.amBcopy(first ? AmId.EAGER_FIRST : AmId.EAGER_MIDDLE, packer);
                    if (st < 0) {
                        return Status.ofLength(st);
                    }
                    r.sendStage = ST_MIDDLES;
                    r.received = pos + n;
                    if (r.received >= r.capacity) {
                        return Status.OK;
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ rendezvous (sender)

    private Status sendRts(final Request r) {
        if (remoteId < 0) {
            return Status.NO_RESOURCE;
        }
        if (r.handles == null) {
            final boolean get = thresholds.rndvGet && r.capacity > 0;
            r.handles = new MemoryHandle[get ? rndv.length : 0];
            final byte[][] keys = new byte[r.handles.length][];
            final MemorySegment region = r.buffer.asSlice(r.offset, r.capacity);
            try {
                for (int i = 0; i < r.handles.length; i++) {
                    r.handles[i] = rndv[i].local.md.register(region);
                    keys[i] = rndv[i].local.md.packRkey(r.handles[i]);
                }
            } catch (final WeftException e) {
                releaseRendezvousResources(r);
                return e.status();
            }
            packer.keys = keys;
        }
        packer.set(SendPacker.RTS, r, 0, 0);
        final long n = amEp.amBcopy(AmId.RNDV_RTS, packer);
        if (n < 0) {
            return Status.ofLength(n);
        }
        packer.keys = null;
        r.sendStage = ST_WAIT; // the peer answers with ATS (it got the data) or RTR (send it to me)
        return Status.OK;
    }

    /** The peer asked for the data over AM (no get lane): queue the data fragments. */
    void startRndvData(final Request r) {
        r.sendStage = ST_DATA;
        r.received = 0;
        enqueue(r);
        progressSendQueue();
    }

    private Status sendRndvData(final Request r) {
        final long frag = thresholds.maxBcopy - AmId.DATA_HEADER;
        while (r.received < r.capacity) {
            final long n = Math.min(frag, r.capacity - r.received);
            packer.set(SendPacker.DATA, r, r.received, n);
            final long st = amEp.amBcopy(AmId.RNDV_DATA, packer);
            if (st < 0) {
                return Status.ofLength(st);
            }
            r.received += n;
        }
        return Status.OK;
    }

    void releaseRendezvousResources(final Request r) {
        final MemoryHandle[] hs = r.handles;
        r.handles = null;
        if (hs == null) {
            return;
        }
        for (int i = 0; i < hs.length; i++) {
            if (hs[i] != null) {
                rndv[i].local.md.deregister(hs[i]);
            }
        }
    }

    // ------------------------------------------------------------------ rendezvous (receiver)

    /** A receive matched an RTS: pull the data with gets, or ask the sender to stream it (RTR). */
    void startRndvReceive(final Request r, final long sreq, final long address, final byte[][] keys) {
        r.kind = Request.RNDV_RECV;
        r.ep = this;
        r.remoteReqId = sreq;
        r.remoteAddress = address;
        r.received = 0;
        final long want = Math.min(r.length, r.capacity);
        if (failure != null) {
            worker.complete(r, failure);
            return;
        }
        if (want == 0) {
            sendControl(AmId.RNDV_ATS, sreq, Status.OK.code());
            worker.complete(r, r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            return;
        }
        if (keys.length == 0 || keys.length != rndv.length) {
            worker.registerInflight(r);
            sendControl(AmId.RNDV_RTR, sreq, r.id);
            return;
        }
        final RemoteKey[] rk = new RemoteKey[keys.length];
        try {
            for (int i = 0; i < keys.length; i++) {
                rk[i] = rndv[i].local.md.unpackRkey(keys[i]);
            }
        } catch (final WeftException e) {
            for (final RemoteKey k : rk) {
                if (k != null) {
                    k.close();
                }
            }
            sendControl(AmId.RNDV_ATS, sreq, e.status().code());
            worker.complete(r, e.status());
            return;
        }
        r.rkeys = rk;
        r.completion.reset(1); // our own reference, dropped when every get is issued
        if (!issueGets(r)) {
            worker.getPending.add(r);
        }
    }

    /** Issues the remaining gets of a rendezvous receive; false if a lane ran out of resources. */
    boolean issueGets(final Request r) {
        final long want = Math.min(r.length, r.capacity);
        final long chunk = worker.context.rndvChunk;
        while (r.received < want) {
            // stripe: lane i takes its weight's share of each round of chunks
            final int lane = (int) ((r.received / chunk) % rndv.length);
            final long n = Math.min(chunk, want - r.received);
            final IoVector iov = IoVector.of(r.buffer, r.offset + r.received, n);
            r.completion.expect(1);
            final Status st = rndv[lane].uct.getZcopy(iov, r.remoteAddress + r.received, r.rkeys[lane], r.completion);
            if (st == Status.NO_RESOURCE) {
                r.completion.expect(-1);
                return false;
            }
            r.received += n;
            if (st != Status.IN_PROGRESS) {
                r.completion.complete(st);
            }
            if (r.completion.status().isError()) {
                break;
            }
        }
        r.completion.complete(Status.OK); // drop our reference: completes when the last get lands
        return true;
    }

    void finishRndvReceive(final Request r, final Status st) {
        if (r.rkeys != null) {
            for (final RemoteKey k : r.rkeys) {
                k.close();
            }
            r.rkeys = null;
        }
        sendControl(AmId.RNDV_ATS, r.remoteReqId, st.code());
        worker.complete(r, st.isError() ? st : r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
    }

    // ------------------------------------------------------------------ control and wireup

    /** Sends a short control message now, or queues it if the lane is busy. */
    void sendControl(final int amId, final long header, final long value) {
        if (failure != null) {
            return;
        }
        if (sqHead == null) {
            ctl.set(LONG, 0, value);
            if (amEp.amShort(amId, header, ctl, 0, 8) == Status.OK) {
                return;
            }
        }
        final Request r = worker.acquire(Request.CONTROL);
        r.ep = this;
        r.tag = amId;
        r.remoteReqId = header;
        r.length = value;
        r.released = true; // nobody waits for it: recycled when sent
        enqueue(r);
    }

    void sendWireup(final byte type, final long dst) {
        final Status st = trySendWireup(type, dst);
        if (st == Status.NO_RESOURCE && type == AmId.WIREUP_REPLY) {
            // the lane is full (e.g. this side is streaming to the peer): the reply waits in the send queue
            final Request r = worker.acquire(Request.CONTROL);
            r.ep = this;
            r.tag = AmId.WIREUP;
            r.remoteReqId = dst;
            r.released = true; // nobody waits for it: recycled when sent
            enqueue(r);
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
        }
        if (sqHead != null && !worker.sendPending.contains(this)) {
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
        return false;
    }

    /** Fails the endpoint: every queued and in-flight operation completes with {@code st}. */
    void fail(final Status st) {
        if (failure != null || closed) {
            return;
        }
        failure = st;
        abortAll(st);
        if (errorHandler != null) {
            errorHandler.onError(this, st);
        }
    }

    private void abortAll(final Status st) {
        while (sqHead != null) {
            final Request r = sqHead;
            sqHead = r.nextSend;
            r.nextSend = null;
            worker.complete(r, st);
        }
        sqTail = null;
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
        worker.failInflight(this, st);
    }

    void closeForce(final Status st) {
        if (closed) {
            return;
        }
        abortAll(st);
        closed = true;
        for (final Lane l : lanes) {
            l.uct.close();
        }
        worker.removeEndpoint(this);
    }

    /**
     * Closes the endpoint: waits (progressing the worker) until queued sends have left, then releases
     * the lanes. Operations still in flight complete with CANCELED.
     */
    @Override
    public void close() {
        worker.guard.enter();
        try {
            if (closed) {
                return;
            }
            final long deadline = System.nanoTime() + 2_000_000_000L;
            while (sqHead != null && failure == null && System.nanoTime() < deadline) {
                worker.progress();
            }
            closeForce(Status.CANCELED);
        } finally {
            worker.guard.exit();
        }
    }

    @Override
    public String toString() {
        return "Endpoint[" + id + " -> " + remote + ", am=" + am.name() + "]";
    }

    /** Writes the bcopy messages; one per endpoint, set before each amBcopy call (no allocation). */
    private static final class SendPacker implements Packer {
        static final int EAGER = 1;
        static final int FIRST = 2;
        static final int MIDDLE = 3;
        static final int RTS = 4;
        static final int DATA = 5;
        static final int WIREUP = 6;

        int mode;
        Request r;
        long pos;
        long len;
        byte[][] keys;
        private byte wType;
        private long wSrc;
        private long wDst;
        private long wSn;
        private byte[] wAddr;
        void set(final int m, final Request req, final long p, final long n) {
            mode = m;
            r = req;
            pos = p;
            len = n;
        }

        void wireup(final byte type, final long src, final long dst, final long sn, final byte[] addr) {
            mode = WIREUP;
            wType = type;
            wSrc = src;
            wDst = dst;
            wSn = sn;
            wAddr = addr;
        }

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            switch (mode) {
                case EAGER -> {
                    d.set(LONG, o, r.tag);
                    MemorySegment.copy(r.buffer, r.offset + pos, d, o + 8, len);
                    return 8 + len;
                }
                case FIRST -> {
                    d.set(LONG, o, r.tag);
                    d.set(LONG, o + 8, r.ep.remoteId);
                    d.set(LONG, o + 16, r.capacity);
                    d.set(LONG, o + 24, r.sync ? r.id : -1L);
                    MemorySegment.copy(r.buffer, r.offset + pos, d, o + AmId.FIRST_HEADER, len);
                    return AmId.FIRST_HEADER + len;
                }
                case MIDDLE -> {
                    d.set(LONG, o, r.ep.remoteId);
                    d.set(LONG, o + 8, pos);
                    MemorySegment.copy(r.buffer, r.offset + pos, d, o + AmId.MIDDLE_HEADER, len);
                    return AmId.MIDDLE_HEADER + len;
                }
                case DATA -> {
                    d.set(LONG, o, r.remoteReqId);
                    d.set(LONG, o + 8, pos);
                    MemorySegment.copy(r.buffer, r.offset + pos, d, o + AmId.DATA_HEADER, len);
                    return AmId.DATA_HEADER + len;
                }
                case RTS -> {
                    d.set(LONG, o, r.tag);
                    d.set(LONG, o + 8, r.ep.remoteId);
                    d.set(LONG, o + 16, r.capacity);
                    d.set(LONG, o + 24, r.id);
                    d.set(LONG, o + 32, r.buffer.address() + r.offset);
                    final byte[][] k = keys == null ? new byte[0][] : keys;
                    d.set(ValueLayout.JAVA_INT_UNALIGNED, o + 40, k.length);
                    long p = o + AmId.RTS_HEADER;
                    for (final byte[] key : k) {
                        if (p + 2 + key.length - o > capacity) {
                            throw new WeftException(Status.BUFFER_TOO_SMALL, "rendezvous keys do not fit in one message");
                        }
                        d.set(ValueLayout.JAVA_SHORT_UNALIGNED, p, (short) key.length);
                        MemorySegment.copy(MemorySegment.ofArray(key), 0, d, p + 2, key.length);
                        p += 2 + key.length;
                    }
                    return p - o;
                }
                case WIREUP -> {
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
                default -> throw new IllegalStateException("packer mode " + mode);
            }
        }
    }

    List<String> laneNames() {
        final List<String> l = new ArrayList<>();
        for (final Lane x : lanes) {
            l.add(x.name());
        }
        return l;
    }
}
