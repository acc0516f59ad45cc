package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.AtomicOp;
import weft.uct.Interface;
import weft.uct.MemoryAtomics;

import java.lang.foreign.MemorySegment;

import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * The server role of one {@link TcpConnection}: serves the peer endpoint's requests in order:
 * delivers active messages to the handlers, applies puts (large payloads are received straight
 * into the target memory), answers gets and atomics, acknowledges puts. On an accepted socket it
 * serves the connecting endpoint; on a shared socket it also serves the peer's requester on the
 * socket this side opened.
 *
 * <p>Every remote access is checked against the process-wide region table of
 * {@link TcpMemoryDomain} (stamp, region id, bounds); a failed check is answered with an
 * error status and touches no memory. When the tx buffer cannot take a reply, parsing stops and
 * reading pauses until the socket drains: a peer that never reads its replies cannot make this
 * side buffer without bound. On a shared socket a well-behaved peer never causes that pause
 * (its requester bounds the reply bytes it may cause, and this side's requester leaves room for
 * them: see {@link TcpEndpoint}), so two saturated requesters cannot deadlock on each other.
 */
final class TcpServerConnection {
    private static final int CONT = TcpConnection.CONT;
    private static final int MORE = TcpConnection.MORE;
    private static final int BLOCKED = TcpConnection.BLOCKED;
    private static final int DEAD = TcpConnection.DEAD;
    private static final int STREAM = TcpConnection.STREAM;
    /** Gets up to this size are copied into the tx buffer; larger ones are written from the region. */
    static final int GET_COPY_MAX = 4096;
    private static final AtomicOp[] OPS = AtomicOp.values();

    final TcpConnection conn;
    final TcpInterface iface;
    final TcpChannel ch;

    /**
     * OK put acks deferred at most (their reply bytes stay far below a requester's {@link TcpSendGate#REPLY_BUDGET}):
     * a put stream whose initiator never flushes still gets acks, one per this many puts.
     */
    static final int ACK_DEFER_MAX = 64;

    private boolean ackPending;
    private int ackSeq;
    /** The pending ack goes out after this read batch: asked for ({@link TcpFrame#FLAG_ACK}) or too many deferred. */
    private boolean ackWanted;
    private int ackDeferred;
    private boolean streamAck;

    private boolean streaming;
    private long streamAddr;
    private long streamLeft;
    private int streamSeq;
    private boolean streamOk;
    /** Stream position up to which a large get reply is read from its region by the socket. */
    private long largeReplyEnd;

    /** Set by {@link #check}: the region memory and offset of the access. */
    private MemorySegment target;
    /** The region {@link #target} belongs to (a large get reply's log entry watches it). */
    private TcpMemoryDomain.Region targetRegion;
    private long targetOff;

    TcpServerConnection(final TcpConnection conn) {
        this.conn = conn;
        this.iface = conn.iface;
        this.ch = conn.ch;
    }

    boolean streaming() {
        return streaming;
    }

    /** Serves the request frame at rxHead: CONT (go on), MORE, BLOCKED, DEAD or STREAM. */
    int request(final int avail, final long h) {
        final TcpChannel c = ch;
        final int type = TcpFrame.type(h);
        final int op = TcpFrame.op(h);
        final int flags = TcpFrame.flags(h);
        final long len = TcpFrame.length(h);
        if (largeReplyEnd > c.bytesWritten) {
            // a get reply is still read from its region as the socket takes it: serve nothing
            // after it (a later put to the same bytes must not overtake it) until it is written
            return BLOCKED;
        }
        if (c.log != null && c.log.holdsVolatile() && type != TcpFrame.GET_REQ && type != TcpFrame.KEEPALIVE) {
            // a put, atomic or AM handler may change a region an earlier get reply was read from,
            // whose bytes the peer may need again after a fault: keep a copy of them first
            c.log.settleBeforeChange();
        }
        switch (type) {
            case TcpFrame.AM -> {
                if (op >= Interface.AM_ID_COUNT || flags != 0 || len > TcpFrame.MAX_AM_PAYLOAD) {
                    return malformed();
                }
                if (avail < TcpFrame.HEADER + len) {
                    return more(TcpFrame.HEADER + (int) len);
                }
                return deliver(op, (int) len);
            }
            case TcpFrame.PUT_REQ -> {
                if (op != 0 || (flags & ~TcpFrame.FLAG_ACK) != 0 || len < TcpFrame.PUT_REQ_FIXED
                    || len - TcpFrame.PUT_REQ_FIXED > TcpFrame.MAX_RMA) {
                    return malformed();
                }
                if (avail < TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED) {
                    return more(TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED);
                }
                return put(avail, len - TcpFrame.PUT_REQ_FIXED, (flags & TcpFrame.FLAG_ACK) != 0);
            }
            case TcpFrame.GET_REQ -> {
                if (op != 0 || flags != 0 || len != TcpFrame.GET_REQ_LEN) {
                    return malformed();
                }
                if (avail < TcpFrame.HEADER + len) {
                    return more(TcpFrame.HEADER + (int) len);
                }
                return get();
            }
            case TcpFrame.ATOMIC_REQ -> {
                final boolean post = (flags & TcpFrame.FLAG_POST) != 0;
                if (op >= OPS.length || (flags & ~(TcpFrame.FLAG_64 | TcpFrame.FLAG_POST | TcpFrame.FLAG_ACK)) != 0
                    || len != TcpFrame.ATOMIC_REQ_LEN || (post && !OPS[op].postable())) {
                    return malformed();
                }
                if (avail < TcpFrame.HEADER + len) {
                    return more(TcpFrame.HEADER + (int) len);
                }
                return atomic(OPS[op], (flags & TcpFrame.FLAG_64) != 0 ? 8 : 4, post, (flags & TcpFrame.FLAG_ACK) != 0);
            }
            case TcpFrame.KEEPALIVE -> {
                if (op != 0 || flags != 0 || len != 0) {
                    return malformed();
                }
                // a deferred put ack goes first, in the same write (a flush's KEEPALIVE asks for it)
                final int ack = ackPending ? TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN : 0;
                final int off = c.reserve(ack + TcpFrame.HEADER);
                if (off < 0) {
                    return BLOCKED;
                }
                if (ack != 0) {
                    ackFrame(off, ackSeq, Status.OK);
                    ackSent();
                }
                TcpFrame.header(c.tx, off + ack, TcpFrame.KEEPALIVE_ACK, 0, 0, 0);
                c.rxHead += TcpFrame.HEADER;
                c.queue(off, ack + TcpFrame.HEADER);
                conn.ackIfDue(1, false); // a quiet peer forgets what we consumed, too (the same write)
                return c.flushTx() < 0 ? fail() : conn.closed ? DEAD : CONT;
            }
            default -> {
                return malformed();
            }
        }
    }

    private int more(final int need) {
        ch.need(need);
        return MORE;
    }

    private int malformed() {
        return conn.malformed();
    }

    /** A reply could not be written: the peer is gone; what it sent before is still read. */
    private int fail() {
        conn.writeFailed(true);
        return conn.closed ? DEAD : CONT;
    }

    private int deliver(final int id, final int len) {
        final TcpChannel c = ch;
        final int off = c.rxHead + TcpFrame.HEADER;
        c.rxHead = off + len; // consumed before the handler runs: it may re-enter the transport
        iface.deliver(id, c.rx, off, len);
        return c.closed || conn.closed || iface.isClosed() ? DEAD : CONT;
    }

    /**
     * Validates an access: OK (and {@link #target}/{@link #targetOff} set), INVALID_RKEY or
     * OUT_OF_RANGE.
     */
    private Status check(final long incarnation, final long regionId, final long address, final long len) {
        final TcpMemoryDomain.Region r = TcpMemoryDomain.INSTANCE.find(incarnation, regionId);
        if (r == null) {
            return Status.INVALID_RKEY;
        }
        if (len < 0 || address < r.address() || address - r.address() > r.length() - len) {
            return Status.OUT_OF_RANGE;
        }
        target = r.global;
        targetRegion = r;
        targetOff = address - r.address();
        return Status.OK;
    }

    private int put(final int avail, final long payload, final boolean ackNow) {
        final TcpChannel c = ch;
        final int h = c.rxHead;
        final int seq = c.rx.get(I32, h + 8);
        final long addr = c.rx.get(I64, h + 16);
        final long region = c.rx.get(I64, h + 24);
        final long inc = c.rx.get(I64, h + 32);
        final int fixed = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED;
        final boolean whole = fixed + payload <= c.rxCap;
        if (whole && avail < fixed + payload) {
            return more(fixed + (int) payload);
        }
        final Status st = check(inc, region, addr, payload);
        if (st != Status.OK) {
            if (c.reserve(4 * TcpFrame.HEADER) < 0) {
                return BLOCKED;
            }
            iface.counters().increment(Counter.ERRORS);
            if (!flushAck() || !emitAck(seq, st)) {
                return c.closed ? DEAD : BLOCKED;
            }
        }
        iface.counters().add(Counter.RX_BYTES, payload);
        if (whole) {
            if (st == Status.OK) {
                MemoryCopy.copy(c.rx, h + fixed, target, targetOff, payload);
                pendAck(seq, ackNow);
            }
            c.rxHead = h + fixed + (int) payload;
            return CONT;
        }
        // larger than the rx buffer: take what is buffered, then receive the rest in place
        final int take = avail - fixed; // < payload, since the frame does not fit
        if (st == Status.OK) {
            MemoryCopy.copy(c.rx, h + fixed, target, targetOff, take);
        }
        c.rxHead = c.rxTail;
        streaming = true;
        streamOk = st == Status.OK;
        streamAddr = streamOk ? target.address() + targetOff + take : 0;
        streamLeft = payload - take;
        streamSeq = seq;
        streamAck = ackNow;
        return STREAM;
    }

    /** Receives streamed put payload: &gt;0 progress, 0 nothing now, -1 connection gone. */
    int streamIn() {
        final TcpChannel c = ch;
        final long n = streamAddr != 0 ? c.recv(streamAddr, streamLeft)
            : c.recv(c.rxBase, Math.min(streamLeft, c.rxCap)); // rejected payload: read and drop
        if (n == -LibC.EAGAIN) {
            return 0;
        }
        if (n <= 0) {
            conn.ioFailed(Status.CONNECTION_RESET);
            return -1;
        }
        streamLeft -= n;
        if (streamAddr != 0) {
            streamAddr += n;
        }
        if (streamLeft == 0) {
            streaming = false;
            c.rxHead = 0;
            c.rxTail = 0;
            if (streamOk) {
                pendAck(streamSeq, streamAck);
            }
        }
        return 1;
    }

    private int get() {
        final TcpChannel c = ch;
        final int h = c.rxHead;
        final int reqId = c.rx.get(I32, h + 8);
        final long len = c.rx.get(I32, h + 12) & 0xFFFFFFFFL;
        final long addr = c.rx.get(I64, h + 16);
        final long region = c.rx.get(I64, h + 24);
        final long inc = c.rx.get(I64, h + 32);
        final Status st = len > TcpFrame.MAX_RMA ? Status.INVALID_PARAM : check(inc, region, addr, len);
        final int hdr = TcpFrame.HEADER + TcpFrame.GET_REP_FIXED;
        final boolean copy = st != Status.OK || len <= GET_COPY_MAX;
        final int off = c.reserve(copy && st == Status.OK ? hdr + (int) len : hdr);
        if (off < 0 || c.iovFree() < 2) {
            return BLOCKED;
        }
        final long data = st == Status.OK ? len : 0;
        TcpFrame.header(c.tx, off, TcpFrame.GET_REP, 0, 0, (int) (TcpFrame.GET_REP_FIXED + data));
        c.tx.set(I32, off + 8, reqId);
        c.tx.set(I32, off + 12, st.code());
        c.rxHead = h + TcpFrame.HEADER + TcpFrame.GET_REQ_LEN;
        if (st != Status.OK) {
            iface.counters().increment(Counter.ERRORS);
        }
        if (copy) {
            if (data > 0) {
                MemoryCopy.copy(target, targetOff, c.tx, off + hdr, data);
            }
            return c.commit(off, hdr + (int) data) < 0 ? fail() : CONT;
        }
        // header and data are queued together: a socket that fails in between must not leave the
        // header alone in the queue (a resume sends the queue on, and other frames would follow it)
        c.queue(off, hdr);
        c.appendReply(target.address() + targetOff, data, targetRegion);
        // the reply is read from the region as the socket takes it: the next request waits
        largeReplyEnd = c.bytesQueued;
        return c.flushTx() < 0 ? fail() : CONT;
    }

    private int atomic(final AtomicOp op, final int size, final boolean post, final boolean ackNow) {
        final TcpChannel c = ch;
        final int h = c.rxHead;
        final int reqId = c.rx.get(I32, h + 8);
        final long addr = c.rx.get(I64, h + 16);
        final long region = c.rx.get(I64, h + 24);
        final long inc = c.rx.get(I64, h + 32);
        final long value = c.rx.get(I64, h + 40);
        final long compare = c.rx.get(I64, h + 48);
        // room for every reply this request may cause, before any side effect
        final int off = c.reserve(4 * TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN);
        if (off < 0) {
            return BLOCKED;
        }
        Status st = check(inc, region, addr, size);
        if (st == Status.OK && !MemoryAtomics.aligned(addr, size)) {
            st = Status.INVALID_PARAM;
        }
        long old = 0;
        if (st == Status.OK) {
            if (size == 8) {
                old = op == AtomicOp.CSWAP ? MemoryAtomics.cswap64(target, targetOff, compare, value)
                    : MemoryAtomics.fetch64(op, target, targetOff, value);
            } else {
                old = op == AtomicOp.CSWAP ? MemoryAtomics.cswap32(target, targetOff, (int) compare, (int) value)
                    : MemoryAtomics.fetch32(op, target, targetOff, (int) value);
            }
        } else {
            iface.counters().increment(Counter.ERRORS);
        }
        c.rxHead = h + TcpFrame.HEADER + TcpFrame.ATOMIC_REQ_LEN;
        if (post) {
            if (st == Status.OK) {
                pendAck(reqId, ackNow);
                return CONT;
            }
            return flushAck() && emitAck(reqId, st) ? CONT : fail();
        }
        TcpFrame.header(c.tx, off, TcpFrame.ATOMIC_REP, 0, 0, TcpFrame.ATOMIC_REP_LEN);
        c.tx.set(I32, off + 8, reqId);
        c.tx.set(I32, off + 12, st.code());
        c.tx.set(I64, off + 16, old);
        return c.commit(off, TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN) < 0 ? fail() : CONT;
    }

    private void pendAck(final int seq, final boolean now) {
        ackPending = true;
        ackSeq = seq;
        ackWanted |= now || ++ackDeferred >= ACK_DEFER_MAX;
    }

    /** True if a coalesced put ack is due at the end of this read batch. */
    boolean ackDue() {
        return ackPending && ackWanted;
    }

    /** Sends the coalesced ack if it is due ({@link #ackDue}); false if there was no room (or the socket died). */
    boolean flushDueAck() {
        return !ackWanted || flushAck();
    }

    /** Sends the coalesced OK ack if one is due; false if there was no room (or the socket died). */
    boolean flushAck() {
        if (!ackPending) {
            return true;
        }
        if (!emitAck(ackSeq, Status.OK)) {
            return false;
        }
        ackSent();
        return true;
    }

    private void ackSent() {
        ackPending = false;
        ackWanted = false;
        ackDeferred = 0;
    }

    private void ackFrame(final int off, final int seq, final Status st) {
        TcpFrame.header(ch.tx, off, TcpFrame.PUT_ACK, 0, 0, TcpFrame.PUT_ACK_LEN);
        ch.tx.set(I32, off + 8, seq);
        ch.tx.set(I32, off + 12, st.code());
    }

    private boolean emitAck(final int seq, final Status st) {
        final TcpChannel c = ch;
        if (c.closed) {
            return false;
        }
        final int off = c.reserve(TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN);
        if (off < 0) {
            return false;
        }
        ackFrame(off, seq, st);
        if (c.commit(off, TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN) < 0) {
            conn.writeFailed(true);
            return !conn.closed;
        }
        return true;
    }
}
