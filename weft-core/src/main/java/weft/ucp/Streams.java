package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.ucs.memory.MemoryCopy;
import weft.ucp.wire.ControlMessage;
import weft.ucp.wire.StreamHeader;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.Packer;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Ordered byte streams, one per endpoint and direction: the send path, the receive queue and the
 * buffering of bytes that arrive before a receive (wire layouts in {@link AmId}).
 *
 * <p>Flow control: a sender keeps at most {@code WEFT_STREAM_WINDOW} bytes (capped by
 * {@code WEFT_UNEXPECTED_BUDGET}) unacknowledged per endpoint;
 * the receiver acknowledges (STREAM_ACK, the total it has consumed) each time its application took a
 * quarter window more. So a receiver that stops receiving holds at most one window of buffered bytes
 * per endpoint, and its senders' streams wait in their endpoints' send queues (backpressure), never
 * growing memory. Buffered bytes live in chunks of the worker's unexpected pool (reused: steady traffic
 * allocates nothing); small arrivals are appended to the last chunk.
 */
final class Streams extends SendProtocol {
    static final ConfigVar<Long> WINDOW = ConfigRegistry.register("STREAM_WINDOW", ConfigType.SIZE, "1m",
        "Bytes a stream sender may have in flight to one endpoint before the receiver consumed them.");
    private static final long MIN_CHUNK = 4096;

    /** Per-endpoint stream state (created on first use). */
    static final class State {
        // receive side
        Request rqHead;        // posted receives, linked by Request.next, in posting order
        Request rqTail;
        TagMessage bufHead;    // buffered bytes: chunk.data[received, length) is unread
        TagMessage bufTail;
        long buffered;
        long consumed;         // bytes handed to the application so far
        long ackedConsumed;    // the last total told to the sender
        boolean ready;         // in the worker's ready list
        boolean ackOwed;       // an ack found the lane full: retried by this endpoint's send progress
        // send side
        long sent;
        long acked;
    }

    private final Worker worker;
    private final long window;
    private final StreamPacker packer = new StreamPacker();
    private final MemorySegment ackValue;
    /** The STREAM_DATA header of a zero-copy fragment (the transport copies it at the call). */
    private final MemorySegment zhdr;
    private Endpoint[] ready = new Endpoint[8];
    private int readyCount;
    private long malformed;

    Streams(final Worker worker, final long window) {
        this.worker = worker;
        this.window = Math.max(MIN_CHUNK, window);
        this.ackValue = worker.arena().allocate(ControlMessage.PAYLOAD_LENGTH, 8);
        this.zhdr = worker.arena().allocate(StreamHeader.LENGTH, 8);
    }

    void register(final Interface i) {
        i.setAmHandler(AmId.STREAM_DATA, this::onData);
        i.setAmHandler(AmId.STREAM_ACK, this::onAck);
    }

    private static State state(final Endpoint ep) {
        State s = ep.stream;
        if (s == null) {
            s = ep.stream = new State();
        }
        return s;
    }

    long malformed() {
        return malformed;
    }

    // ------------------------------------------------------------------ send

    Request send(final Endpoint ep, final MemorySegment seg, final long off, final long len, final RequestCallback cb) {
        final Worker w = worker;
        w.guard.enter();
        try {
            final MemorySegment d = seg == null ? MemorySegment.NULL : seg;
            Datatypes.checkRange(d, off, len);
            final State s = state(ep);
            if (cb == null && len <= ep.thresholds.maxShort && ep.remoteId >= 0 && ep.queue.isEmpty()
                && s.sent - s.acked + len <= window && ep.status() == Status.OK) {
                if (len == 0) {
                    return Request.done(Status.OK);
                }
                final Status st = ep.amEp.amShort(AmId.STREAM_DATA, ep.remoteId, d, off, (int) len);
                if (st == Status.OK) {
                    s.sent += len;
                }
                if (st != Status.NO_RESOURCE) {
                    return Request.done(st);
                }
            }
            if (ep.connecting != null && ep.status() == Status.OK) {
                return ep.connecting.defer(cb, done -> send(ep, seg, off, len, done));
            }
            return sendSlow(ep, d, off, len, cb);
        } finally {
            w.guard.exit();
        }
    }

    private Request sendSlow(final Endpoint ep, final MemorySegment seg, final long off, final long len,
                             final RequestCallback cb) {
        worker.checkOpen();
        final Request r = worker.acquire(Request.STREAM_SEND);
        r.ep = ep;
        r.callback = cb;
        r.buffer = seg;
        r.offset = off;
        r.capacity = len;
        r.length = len;
        if (len >= ep.thresholds.zcopyThresh && seg.isNative()) {
            // zero-copy fragments from the user's buffer (tcp): done when the last one has left it
            r.zdata = true;
            r.completion.reset(1); // our reference, dropped once every fragment is issued
        }
        return start(ep, r);
    }

    /** Queues send {@code r} (or fails it with the endpoint's error) and returns what the caller gets. */
    private Request start(final Endpoint ep, final Request r) {
        if (ep.status() != Status.OK) {
            worker.complete(r, ep.status());
        } else if (r.capacity == 0) {
            worker.complete(r, Status.OK);
        } else {
            ep.queue.add(r);
            ep.queue.progress();
        }
        return worker.finishImmediate(r);
    }

    /** A pooled stream request of {@code kind} over {@code iov} (checked), for {@code ep}. */
    private Request iovRequest(final byte kind, final Endpoint ep, final IoVector iov, final RequestCallback cb) {
        if (iov == null) {
            throw new WeftException(Status.INVALID_PARAM, "null IoVector");
        }
        worker.checkOpen();
        final Request r = worker.acquire(kind);
        r.ep = ep;
        r.callback = cb;
        r.dt = Datatypes.IOV;
        r.data.iov = iov;
        r.capacity = iov.totalLength();
        return r;
    }

    /** Sends the bytes of {@code iov}, in order, as one stream send (packed into the transport's buffers). */
    Request sendIov(final Endpoint ep, final IoVector iov, final RequestCallback cb) {
        final Worker w = worker;
        w.guard.enter();
        try {
            if (ep.connecting != null && iov != null && ep.status() == Status.OK) {
                return ep.connecting.defer(cb, done -> sendIov(ep, iov, done));
            }
            state(ep);
            final Request r = iovRequest(Request.STREAM_SEND, ep, iov, cb);
            r.length = r.capacity;
            return start(ep, r);
        } finally {
            w.guard.exit();
        }
    }

    /** Every zero-copy fragment of a stream send has left the user's buffer. */
    @Override
    void onCompletion(final Request r, final Status st) {
        if (r.zdata) {
            r.rmaIov.clear();
            worker.complete(r, st);
        }
    }

    /** Sends what the window allows of a queued stream send; OK = all of it left. */
    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        if (ep.remoteId < 0) {
            return Status.NO_RESOURCE; // data names the peer's endpoint: wait for wireup
        }
        final State s = state(ep);
        if (s.ackOwed) {
            sendAck(ep, s); // this queue may be blocked on the peer's acks: ours must not wait behind it
        }
        // a large contiguous send goes in zero-copy fragments of the AM lane's limit (fewer frames, no copy
        // into the transport's buffer) and completes by its completion count once the last one has left
        final long frag = (r.zdata ? ep.thresholds.maxZcopy : ep.thresholds.maxBcopy) - StreamHeader.LENGTH;
        while (r.moved < r.capacity) {
            final long room = window - (s.sent - s.acked);
            if (room <= 0) {
                return Status.NO_RESOURCE; // the receiver has not consumed enough: wait for its ack
            }
            final long n = Math.min(Math.min(frag, room), r.capacity - r.moved);
            final Status st;
            if (r.zdata) {
                StreamHeader.write(zhdr, 0, ep.remoteId);
                st = SendProtocol.zcopyPiece(ep.amEp, AmId.STREAM_DATA, zhdr, StreamHeader.LENGTH, r, r.moved, n);
            } else if (n <= ep.thresholds.maxShort && r.dt == Datatypes.CONTIG) {
                st = ep.amEp.amShort(AmId.STREAM_DATA, ep.remoteId, r.buffer, r.offset + r.moved, (int) n);
            } else {
                packer.set(ep.remoteId, r, n);
                st = Status.ofLength(ep.amEp.amBcopy(AmId.STREAM_DATA, packer));
            }
            if (st == Status.NO_RESOURCE || st.isError() && !r.zdata) {
                return st;
            }
            if (st.isError()) {
                break; // recorded in the completion: the request fails once issued fragments finish
            }
            s.sent += n;
            r.moved += n;
        }
        if (r.zdata) {
            r.completion.complete(Status.OK); // drop our reference
        } else {
            worker.complete(r, Status.OK);
        }
        return Status.OK;
    }

    private Status onAck(final MemorySegment d, final long o, final long l, final int f) {
        final Endpoint ep = !ControlMessage.fits(l) ? null : worker.epTable.byId(ControlMessage.id(d, o));
        if (ep == null) {
            malformed++;
            return Status.OK;
        }
        final State s = state(ep);
        final long v = ControlMessage.value(d, o);
        if (v > s.acked && v <= s.sent) {
            s.acked = v;
        }
        if (!ep.queue.isEmpty()) {
            worker.sendPending.add(ep);
        }
        return Status.OK;
    }

    // ------------------------------------------------------------------ receive

    private Status onData(final MemorySegment d, final long o, final long l, final int f) {
        final Endpoint ep = !StreamHeader.fits(l) ? null : worker.epTable.byId(StreamHeader.dstEp(d, o));
        if (ep == null) {
            malformed++;
            return Status.OK;
        }
        final State s = state(ep);
        long p = o + StreamHeader.LENGTH;
        long n = l - StreamHeader.LENGTH;
        // posted receives exist only while nothing is buffered, so this keeps byte order
        while (n > 0 && s.rqHead != null) {
            final Request r = s.rqHead;
            final long k = Math.min(n, r.capacity - r.moved);
            Datatypes.unpack(r, r.moved, d, p, k);
            r.moved += k;
            s.consumed += k;
            p += k;
            n -= k;
            if (r.moved == r.capacity || !r.waitAll) {
                popReceive(s);
                r.length = r.moved;
                worker.complete(r, Status.OK);
            }
        }
        if (n > 0) {
            buffer(ep, s, d, p, n);
        }
        maybeAck(ep, s);
        return Status.OK;
    }

    private static void popReceive(final State s) {
        final Request r = s.rqHead;
        s.rqHead = r.next;
        if (s.rqHead == null) {
            s.rqTail = null;
        }
        r.next = null;
    }

    private void buffer(final Endpoint ep, final State s, final MemorySegment d, final long p, final long n) {
        long at = p;
        long left = n;
        final TagMessage t = s.bufTail;
        if (t != null) {
            final long k = Math.min(left, t.data.byteSize() - t.length);
            MemoryCopy.copy(d, at, t.data, t.length, k);
            t.length += k;
            at += k;
            left -= k;
        }
        if (left > 0) {
            final TagMessage c = worker.unexpected.acquire(Math.max(MIN_CHUNK, left));
            MemoryCopy.copy(d, at, c.data, 0, left);
            c.length = left;
            c.received = 0;
            if (t == null) {
                s.bufHead = c;
            } else {
                t.anext = c;
            }
            s.bufTail = c;
        }
        s.buffered += n;
        if (!s.ready) {
            s.ready = true;
            if (readyCount == ready.length) {
                ready = Arrays.copyOf(ready, readyCount * 2);
            }
            ready[readyCount++] = ep;
        }
    }

    /** Tells the sender what the application consumed, each quarter window (releases its backpressure). */
    private void maybeAck(final Endpoint ep, final State s) {
        if (s.consumed - s.ackedConsumed >= window / 4 && ep.remoteId >= 0 && ep.status() == Status.OK) {
            sendAck(ep, s);
        }
    }

    /**
     * Sends the ack around the endpoint's send queue: the queue's head may be a stream send waiting for the
     * peer's acks, and the peer's may be waiting for ours (both directions streaming). Acks are totals, so
     * order and duplicates do not matter.
     */
    private void sendAck(final Endpoint ep, final State s) {
        s.ackedConsumed = s.consumed;
        ControlMessage.writePayload(ackValue, s.consumed);
        final Status st = ep.amEp.amShort(AmId.STREAM_ACK, ep.remoteId, ackValue, 0, ControlMessage.PAYLOAD_LENGTH);
        s.ackOwed = st == Status.NO_RESOURCE;
        if (s.ackOwed) {
            // retried directly by progressSend if this queue is window-blocked, and queued for the other cases
            ep.sendControl(AmId.STREAM_ACK, ep.remoteId, s.consumed);
        }
    }

    Request recv(final Endpoint ep, final MemorySegment buf, final long off, final long len, final boolean waitAll,
                 final RequestCallback cb) {
        final Worker w = worker;
        w.guard.enter();
        try {
            w.checkOpen();
            Datatypes.checkRange(buf, off, len);
            final State s = state(ep);
            final Request r;
            if (ep.status() != Status.OK) {
                r = w.acquire(Request.STREAM_RECV);
                r.ep = ep;
                r.callback = cb;
                w.complete(r, ep.status());
                return w.finishImmediate(r);
            }
            long got = 0;
            if (s.rqHead == null && s.buffered > 0) {
                got = drain(s, buf, off, len);
                maybeAck(ep, s);
            }
            if (got == len && cb == null) {
                return Request.done(Status.OK); // filled at once: the length is the caller's
            }
            r = w.acquire(Request.STREAM_RECV);
            r.ep = ep;
            r.callback = cb;
            r.buffer = buf;
            r.offset = off;
            r.capacity = len;
            r.moved = got;
            r.waitAll = waitAll;
            if (got == len || got > 0 && !waitAll) {
                r.length = got;
                w.complete(r, Status.OK); // partial: a pooled request carries the length (release it)
                return r;
            }
            post(s, r);
            return r;
        } finally {
            w.guard.exit();
        }
    }

    /** Queues receive {@code r} behind the endpoint's posted receives. */
    private static void post(final State s, final Request r) {
        if (s.rqTail == null) {
            s.rqHead = r;
        } else {
            s.rqTail.next = r;
        }
        s.rqTail = r;
    }

    /** Receives the next stream bytes scattered over {@code iov} (see {@link #recv}); always a pooled request. */
    Request recvIov(final Endpoint ep, final IoVector iov, final boolean waitAll, final RequestCallback cb) {
        final Worker w = worker;
        w.guard.enter();
        try {
            final State s = state(ep);
            final Request r = iovRequest(Request.STREAM_RECV, ep, iov, cb);
            r.waitAll = waitAll;
            if (ep.status() != Status.OK) {
                w.complete(r, ep.status());
                return w.finishImmediate(r);
            }
            if (s.rqHead == null && s.buffered > 0) {
                r.moved += drain(s, r, null, 0, r.capacity);
                maybeAck(ep, s);
            }
            if (r.moved == r.capacity || r.moved > 0 && !waitAll) {
                r.length = r.moved;
                w.complete(r, Status.OK);
                return r; // the request carries the length: not turned into the shared done(OK)
            }
            post(s, r);
            return r;
        } finally {
            w.guard.exit();
        }
    }

    /**
     * Zero-copy receive: the unread bytes of the oldest buffered chunk, as a read-only view of the worker's
     * memory, or null when nothing is buffered or a receive is posted (posted receives take bytes first).
     */
    MemorySegment peek(final Endpoint ep) {
        final Worker w = worker;
        w.guard.enter();
        try {
            w.checkOpen();
            final State s = ep.stream;
            if (s == null || s.rqHead != null || s.bufHead == null || ep.status() != Status.OK) {
                return null;
            }
            final TagMessage c = s.bufHead;
            return c.data.asSlice(c.received, c.length - c.received).asReadOnly();
        } finally {
            w.guard.exit();
        }
    }

    /** Consumes {@code n} buffered bytes without copying them (after {@link #peek}); acks as a receive does. */
    void consume(final Endpoint ep, final long n) {
        final Worker w = worker;
        w.guard.enter();
        try {
            w.checkOpen();
            final State s = ep.stream;
            final long have = s == null ? 0 : s.buffered;
            if (n < 0 || n > have) {
                throw new weft.ucs.WeftException(Status.INVALID_PARAM, "releaseStreamData(" + n + "): "
                    + have + " bytes are buffered");
            }
            drain(s, null, 0, n);
            maybeAck(ep, s);
        } finally {
            w.guard.exit();
        }
    }

    /** Copies buffered bytes to {@code buf} (null: drops them), freeing drained chunks; returns the bytes taken. */
    private long drain(final State s, final MemorySegment buf, final long off, final long len) {
        return drain(s, null, buf, off, len);
    }

    /**
     * Takes up to {@code len} buffered bytes, freeing drained chunks: into receive {@code r} at its position (any
     * datatype) when given, else to {@code buf[off, ...)} (null: dropped). Returns the bytes taken.
     */
    private long drain(final State s, final Request r, final MemorySegment buf, final long off, final long len) {
        long got = 0;
        while (got < len && s.bufHead != null) {
            final TagMessage c = s.bufHead;
            final long k = Math.min(c.length - c.received, len - got);
            if (r != null) {
                Datatypes.unpack(r, r.moved + got, c.data, c.received, k);
            } else if (buf != null) {
                MemoryCopy.copy(c.data, c.received, buf, off + got, k);
            }
            c.received += k;
            got += k;
            if (c.received == c.length) {
                s.bufHead = c.anext;
                if (s.bufHead == null) {
                    s.bufTail = null;
                }
                worker.unexpected.release(c);
            }
        }
        s.buffered -= got;
        s.consumed += got;
        return got;
    }

    /**
     * Fills {@code out} with endpoints that have buffered stream data (received before a receive was
     * posted); level-triggered: an endpoint stays listed while it has data.
     */
    int poll(final Endpoint[] out) {
        int k = 0;
        for (int i = 0; i < readyCount; ) {
            final Endpoint ep = ready[i];
            final State s = ep.stream;
            if (s == null || s.buffered == 0 || ep.status() != Status.OK) {
                if (s != null) {
                    s.ready = false;
                }
                ready[i] = ready[--readyCount];
                ready[readyCount] = null;
                continue;
            }
            if (k < out.length) {
                out[k++] = ep;
            }
            i++;
        }
        return k;
    }

    /** Cancels a posted stream receive: it completes CANCELED (with the bytes it already got as length). */
    @Override
    boolean cancel(final Request r) {
        final State s = r.ep == null ? null : r.ep.stream;
        if (s == null) {
            return false;
        }
        Request prev = null;
        for (Request q = s.rqHead; q != null; prev = q, q = q.next) {
            if (q == r) {
                if (prev == null) {
                    s.rqHead = r.next;
                } else {
                    prev.next = r.next;
                }
                if (s.rqTail == r) {
                    s.rqTail = prev;
                }
                r.next = null;
                r.length = r.moved;
                worker.complete(r, Status.CANCELED);
                return true;
            }
        }
        return false;
    }

    /** The endpoint failed or closed: pending receives complete with {@code st}, buffered bytes are freed. */
    void abort(final Endpoint ep, final Status st) {
        final State s = ep.stream;
        if (s == null) {
            return;
        }
        while (s.rqHead != null) {
            final Request r = s.rqHead;
            popReceive(s);
            r.length = r.moved;
            worker.complete(r, st);
        }
        while (s.bufHead != null) {
            final TagMessage c = s.bufHead;
            s.bufHead = c.anext;
            worker.unexpected.release(c);
        }
        s.bufTail = null;
        s.buffered = 0;
        for (int i = 0; i < readyCount; i++) {
            if (ready[i] == ep) {
                ready[i] = ready[--readyCount];
                ready[readyCount] = null;
                break;
            }
        }
        s.ready = false;
    }

    /**
     * Writes one STREAM_DATA bcopy message: the next {@code n} bytes of a send request, whatever its datatype;
     * one per worker, set right before each call.
     */
    private static final class StreamPacker implements Packer {
        private long dst;
        private Request req;
        private long len;

        void set(final long dstEp, final Request r, final long n) {
            dst = dstEp;
            req = r;
            len = n;
        }

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            StreamHeader.write(d, o, dst);
            Datatypes.pack(req, req.moved, d, o + StreamHeader.LENGTH, len);
            return StreamHeader.LENGTH + len;
        }
    }
}
