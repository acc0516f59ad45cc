package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.AmHandler;
import weft.uct.AtomicOp;
import weft.uct.Interface;
import weft.uct.MemoryAtomics;

import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * The accepting side of one connection: checks the handshake, then serves the peer endpoint's
 * requests in order: delivers active messages to the handlers, applies puts (large payloads are
 * received straight into the target memory), answers gets and atomics, acknowledges puts.
 *
 * <p>Every remote access is checked against the process-wide region table of
 * {@link TcpMemoryDomain} (incarnation, region id, bounds); a failed check is answered with an
 * error status and touches no memory. When the tx buffer cannot take a reply, parsing stops and
 * reading pauses until the socket drains: a peer that never reads its replies cannot make this
 * side buffer without bound.
 */
final class TcpServerConnection implements TcpChannel.Owner {
    private static final int MORE = 0;
    private static final int BLOCKED = 1;
    private static final int DEAD = 2;
    private static final int STREAM = 3;
    /** Gets up to this size are copied into the tx buffer; larger ones are written from the region. */
    private static final int GET_COPY_MAX = 4096;
    private static final AtomicOp[] OPS = AtomicOp.values();

    final TcpInterface iface;
    final TcpChannel ch;
    final long acceptedNs;
    boolean open;

    private boolean ackPending;
    private int ackSeq;

    private boolean streaming;
    private long streamAddr;
    private long streamLeft;
    private int streamSeq;
    private boolean streamOk;

    /** Set by {@link #check}: the region memory and offset of the access. */
    private MemorySegment target;
    private long targetOff;

    TcpServerConnection(final TcpInterface iface, final int fd) {
        this.iface = iface;
        this.ch = new TcpChannel(iface, this, fd, iface.rxBufSize, iface.txBufSize);
        this.ch.connected = true;
        this.acceptedNs = System.nanoTime();
    }

    @Override
    public void onWritable() {
        if (ch.closed) {
            return;
        }
        if (ch.flushTx() < 0 || !flushAck() && ch.closed) {
            close();
            return;
        }
        if (ch.readPaused && ch.txEmpty()) {
            ch.readPaused = false; // replies drained: serve the requests still buffered
            ch.updateInterest();
            onReadable();
        }
    }

    @Override
    public void onReadable() {
        if (ch.closed) {
            return;
        }
        if (ch.rxTail > ch.rxHead && !streaming) {
            final int p = parse();
            if (p == DEAD || p == BLOCKED) {
                return;
            }
        }
        for (int i = 0; i < 16; i++) {
            if (streaming) {
                final int r = streamIn();
                if (r < 0) {
                    return;
                }
                if (r == 0) {
                    break;
                }
                if (streaming) {
                    continue;
                }
            }
            final long n = ch.fill();
            if (n == -LibC.EAGAIN) {
                break;
            }
            if (n <= 0) {
                close(); // the peer endpoint went away (or reset)
                return;
            }
            final int p = parse();
            if (p == DEAD || p == BLOCKED) {
                return;
            }
            if (p != STREAM && n < ch.lastAsk) {
                break; // short read: the socket is drained
            }
        }
        flushAck();
    }

    /** Parses complete frames; returns MORE (need bytes), BLOCKED, DEAD or STREAM. */
    private int parse() {
        final TcpChannel c = ch;
        while (true) {
            final int avail = c.rxTail - c.rxHead;
            if (!open) {
                final int h = handshake(avail);
                if (h != -1) {
                    return h;
                }
                continue;
            }
            if (avail < TcpFrame.HEADER) {
                return more(TcpFrame.HEADER);
            }
            final long h = c.rx.get(I64, c.rxHead);
            final int type = TcpFrame.type(h);
            final int op = TcpFrame.op(h);
            final int flags = TcpFrame.flags(h);
            final long len = TcpFrame.length(h);
            final int r;
            switch (type) {
                case TcpFrame.AM -> {
                    if (op >= Interface.AM_ID_COUNT || flags != 0 || len > TcpFrame.MAX_AM_PAYLOAD) {
                        return malformed();
                    }
                    if (avail < TcpFrame.HEADER + len) {
                        return more(TcpFrame.HEADER + (int) len);
                    }
                    r = deliver(op, (int) len);
                }
                case TcpFrame.PUT_REQ -> {
                    if (op != 0 || flags != 0 || len < TcpFrame.PUT_REQ_FIXED
                        || len - TcpFrame.PUT_REQ_FIXED > TcpFrame.MAX_RMA) {
                        return malformed();
                    }
                    if (avail < TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED) {
                        return more(TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED);
                    }
                    r = put(avail, len - TcpFrame.PUT_REQ_FIXED);
                }
                case TcpFrame.GET_REQ -> {
                    if (op != 0 || flags != 0 || len != TcpFrame.GET_REQ_LEN) {
                        return malformed();
                    }
                    if (avail < TcpFrame.HEADER + len) {
                        return more(TcpFrame.HEADER + (int) len);
                    }
                    r = get();
                }
                case TcpFrame.ATOMIC_REQ -> {
                    final boolean post = (flags & TcpFrame.FLAG_POST) != 0;
                    if (op >= OPS.length || (flags & ~(TcpFrame.FLAG_64 | TcpFrame.FLAG_POST)) != 0
                        || len != TcpFrame.ATOMIC_REQ_LEN || (post && op > AtomicOp.XOR.ordinal())) {
                        return malformed();
                    }
                    if (avail < TcpFrame.HEADER + len) {
                        return more(TcpFrame.HEADER + (int) len);
                    }
                    r = atomic(OPS[op], (flags & TcpFrame.FLAG_64) != 0 ? 8 : 4, post);
                }
                case TcpFrame.KEEPALIVE -> {
                    if (op != 0 || flags != 0 || len != 0) {
                        return malformed();
                    }
                    final int off = c.reserve(TcpFrame.HEADER);
                    if (off < 0) {
                        r = BLOCKED;
                    } else {
                        TcpFrame.header(c.tx, off, TcpFrame.KEEPALIVE_ACK, 0, 0, 0);
                        c.rxHead += TcpFrame.HEADER;
                        r = c.commit(off, TcpFrame.HEADER) < 0 ? fail() : -1;
                    }
                }
                default -> {
                    return malformed(); // replies or unknown types never come this way
                }
            }
            if (r == BLOCKED) {
                pause();
                return BLOCKED;
            }
            if (r != -1) {
                return r;
            }
        }
    }

    private int more(final int need) {
        ch.need(need);
        return MORE;
    }

    private void pause() {
        if (!ch.readPaused) {
            ch.readPaused = true;
            ch.updateInterest();
        }
    }

    /** Checks the handshake; -1 when accepted (continue parsing), else a parse result. */
    private int handshake(final int avail) {
        final TcpChannel c = ch;
        if (avail < TcpFrame.HANDSHAKE_FIXED) {
            return more(TcpFrame.HANDSHAKE_FIXED);
        }
        final long magic = c.rx.get(I64, c.rxHead);
        final int ver = c.rx.get(TcpFrame.I16, c.rxHead + 8) & 0xFFFF;
        final int alen = c.rx.get(TcpFrame.I16, c.rxHead + 10) & 0xFFFF;
        if (magic != TcpFrame.MAGIC || ver != TcpFrame.VERSION || alen > TcpFrame.MAX_ADDR) {
            return reject();
        }
        if (avail < TcpFrame.HANDSHAKE_FIXED + alen) {
            return more(TcpFrame.HANDSHAKE_FIXED + alen);
        }
        final byte[] digest = c.rx.asSlice(c.rxHead + 16, 32).toArray(JAVA_BYTE);
        if (!MessageDigest.isEqual(digest, iface.secretDigest)) { // constant time
            return reject();
        }
        c.rxHead += TcpFrame.HANDSHAKE_FIXED + alen;
        open = true;
        iface.handshakeDone();
        return -1;
    }

    private int reject() {
        iface.countRejected();
        close();
        return DEAD;
    }

    private int malformed() {
        iface.countMalformed();
        close();
        return DEAD;
    }

    private int fail() {
        close();
        return DEAD;
    }

    private int deliver(final int id, final int len) {
        final TcpChannel c = ch;
        final int off = c.rxHead + TcpFrame.HEADER;
        c.rxHead = off + len; // consumed before the handler runs: it may re-enter the transport
        iface.deliver(id, c.rx, off, len);
        return c.closed || iface.isClosedInternal() ? DEAD : -1;
    }

    /**
     * Validates an access: OK (and {@link #target}/{@link #targetOff} set), INVALID_RKEY or
     * OUT_OF_RANGE.
     */
    private Status check(final long incarnation, final long regionId, final long address, final long len) {
        if (incarnation != TcpMemoryDomain.INCARNATION) {
            return Status.INVALID_RKEY;
        }
        final TcpMemoryDomain.Region r = TcpMemoryDomain.INSTANCE.lookup(regionId);
        if (r == null) {
            return Status.INVALID_RKEY;
        }
        if (len < 0 || address < r.address || address - r.address > r.length - len) {
            return Status.OUT_OF_RANGE;
        }
        target = r.global;
        targetOff = address - r.address;
        return Status.OK;
    }

    private int put(final int avail, final long payload) {
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
            iface.countersInternal().increment(Counter.ERRORS);
            if (!flushAck() || !emitAck(seq, st)) {
                return c.closed ? DEAD : BLOCKED;
            }
        }
        iface.countersInternal().add(Counter.RX_BYTES, payload);
        if (whole) {
            if (st == Status.OK) {
                MemorySegment.copy(c.rx, h + fixed, target, targetOff, payload);
                ackPending = true;
                ackSeq = seq;
            }
            c.rxHead = h + fixed + (int) payload;
            return -1;
        }
        // larger than the rx buffer: take what is buffered, then receive the rest in place
        final int take = avail - fixed; // < payload, since the frame does not fit
        if (st == Status.OK) {
            MemorySegment.copy(c.rx, h + fixed, target, targetOff, take);
        }
        c.rxHead = c.rxTail;
        streaming = true;
        streamOk = st == Status.OK;
        streamAddr = streamOk ? target.address() + targetOff + take : 0;
        streamLeft = payload - take;
        streamSeq = seq;
        return STREAM;
    }

    /** Receives streamed put payload: &gt;0 progress, 0 nothing now, -1 connection gone. */
    private int streamIn() {
        final TcpChannel c = ch;
        final long n = streamAddr != 0 ? c.recv(streamAddr, streamLeft)
            : c.recv(c.rxBase, Math.min(streamLeft, c.rxCap)); // rejected payload: read and drop
        if (n == -LibC.EAGAIN) {
            return 0;
        }
        if (n <= 0) {
            close();
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
                ackPending = true;
                ackSeq = streamSeq;
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
        if (!copy && !c.txEmpty()) {
            return BLOCKED; // a large reply is written from the region: send it alone, in order
        }
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
            iface.countersInternal().increment(Counter.ERRORS);
        }
        if (copy) {
            if (data > 0) {
                MemorySegment.copy(target, targetOff, c.tx, off + hdr, data);
            }
            return c.commit(off, hdr + (int) data) < 0 ? fail() : -1;
        }
        if (c.commit(off, hdr) < 0) {
            return fail();
        }
        c.appendUser(target.address() + targetOff, data);
        if (c.flushTx() < 0) {
            return fail();
        }
        // the reply is read from the region as the socket takes it: serve nothing after this get
        // (a later put to the same bytes must not overtake it) until it is all written
        return c.txEmpty() ? -1 : BLOCKED;
    }

    private int atomic(final AtomicOp op, final int size, final boolean post) {
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
            iface.countersInternal().increment(Counter.ERRORS);
        }
        c.rxHead = h + TcpFrame.HEADER + TcpFrame.ATOMIC_REQ_LEN;
        if (post) {
            if (st == Status.OK) {
                ackPending = true;
                ackSeq = reqId;
                return -1;
            }
            return flushAck() && emitAck(reqId, st) ? -1 : fail();
        }
        TcpFrame.header(c.tx, off, TcpFrame.ATOMIC_REP, 0, 0, TcpFrame.ATOMIC_REP_LEN);
        c.tx.set(I32, off + 8, reqId);
        c.tx.set(I32, off + 12, st.code());
        c.tx.set(I64, off + 16, old);
        return c.commit(off, TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN) < 0 ? fail() : -1;
    }

    /** Sends the coalesced OK ack if one is due; false if there was no room (or the socket died). */
    private boolean flushAck() {
        if (!ackPending) {
            return true;
        }
        if (!emitAck(ackSeq, Status.OK)) {
            return false;
        }
        ackPending = false;
        return true;
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
        TcpFrame.header(c.tx, off, TcpFrame.PUT_ACK, 0, 0, TcpFrame.PUT_ACK_LEN);
        c.tx.set(I32, off + 8, seq);
        c.tx.set(I32, off + 12, st.code());
        if (c.commit(off, TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN) < 0) {
            close();
            return false;
        }
        return true;
    }

    void close() {
        if (ch.closed) {
            return;
        }
        if (!open) {
            iface.handshakeDone();
        }
        ch.close();
        iface.removeServer(this);
    }
}
