package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.AbstractEndpoint;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.Packer;
import weft.uct.PendingRequest;
import weft.uct.RemoteKey;
import weft.uct.Unpacker;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * The requester role towards one peer interface: requests and active messages go out on one
 * {@link TcpConnection}; replies (put acks, get data, atomic results, keepalive acks) come back on
 * it in request order. The connection is the socket this endpoint opened, or, with one socket
 * per peer pair, a socket the peer opened (at connect, or by a switch: {@link #beginSwitch}).
 *
 * <p>On a shared socket the peer's server answers on the same socket as its own requester
 * sends, so both sides must be able to queue every reply they owe at any time, or two saturated
 * sides could stop reading each other (deadlock). This requester therefore (1) leaves
 * {@link #REPLY_RESERVE} bytes and {@link #IOV_RESERVE} iovec entries of its tx buffer to the
 * local server's replies, (2) keeps the reply bytes it may cause at the peer below
 * {@link #REPLY_BUDGET}, and (3) sends nothing after a get larger than the peer copies into its
 * tx buffer until that get completes (the peer serves nothing after such a get until the data
 * left, so a request behind it would stop the peer's reading).
 *
 * <p>Bookkeeping without allocation: gets and fetching atomics sit in a ring of op slots and are
 * matched with their replies in order (the request id only double-checks); puts and post atomics
 * carry a sequence number acknowledged cumulatively by PUT_ACK; completions that wait for "bytes
 * written", "acked up to seq" and "replies up to op n" (zcopy, putZcopy, flush) sit in a FIFO of
 * waiters whose three targets only ever grow.
 */
final class TcpEndpoint extends AbstractEndpoint {
    private static final System.Logger LOG = System.getLogger("weft.uct.tcp");

    /** Most ops (gets, fetching atomics) and waiters in flight; the rings start small and double up to it. */
    private static final int OPS_CAP = 1024;
    private static final int WAIT_CAP = 1024;
    /** First ring size: an endpoint to a peer it rarely uses costs a few hundred bytes of heap, not 80 KB. */
    private static final int RING_INIT = 16;
    private static final byte OP_GET_BCOPY = 1;
    private static final byte OP_GET_ZCOPY = 2;
    private static final byte OP_ATOMIC = 3;
    private static final byte W_TX = 0;
    private static final byte W_PUT = 1;
    private static final byte W_FLUSH = 2;

    /** Reply bytes a requester may cause at the peer's server at once (shared sockets). */
    static final int REPLY_BUDGET = 32 * 1024;
    /** Tx bytes a requester leaves to its own side's replies on a shared socket (wrap slack included). */
    static final int REPLY_RESERVE = 2 * REPLY_BUDGET + 2 * (TcpServerConnection.GET_COPY_MAX + 64);
    /** Iovec entries a requester leaves to replies on a shared socket. */
    static final int IOV_RESERVE = 160 + TcpInterface.MAX_IOV + 1;

    private final TcpInterface iface;
    /** The socket this endpoint's requests go to (changes once at most, by a switch). */
    TcpConnection conn;
    TcpChannel ch;
    final int targetIp;
    final int targetPort;
    /** The socket requests go to is shared: they go through {@link #reserveGated}. */
    private boolean gate;
    /** The accepted socket this endpoint moves to, or null. */
    private TcpConnection switchTo;
    /** 0 none, 1 waiting for the old tx queue to drain, 2 new requests held on the new socket. */
    private int switchPhase;
    private long switchKa;
    private long opsAtSwitch;
    private long putAtSwitch;
    private long kaSent;
    private long kaAcked;
    /** A request went out on this endpoint's current socket (beyond the hello). */
    private boolean sentAny;
    /** Stream position after this endpoint's last frame: what a flush waits to see written. */
    private long ownTx;
    /** Reply bytes the outstanding gets and atomics will cause (credits, see the class comment). */
    private long opReplyBytes;
    /** Outstanding gets larger than the peer copies (sent alone on shared sockets). */
    private int bigGets;

    /** null while usable; the error every operation returns once failed or closed. */
    private Status failStatus;
    private boolean closed;
    boolean failureNotified;

    private long putSeq;
    private long ackedSeq;
    private Status putError;

    private long opsIssued;
    private long opsDone;
    private byte[] opKind = new byte[RING_INIT];
    private Completion[] opComp = new Completion[RING_INIT];
    private IoVector[] opIov = new IoVector[RING_INIT];
    private IoVector[] opIovKept = new IoVector[RING_INIT]; // getZcopy's copies of the caller's iovs
    private Unpacker[] opUnpacker = new Unpacker[RING_INIT];
    private long[] opLen = new long[RING_INIT];
    private MemorySegment[] opResult = new MemorySegment[RING_INIT];
    private long[] opResultOff = new long[RING_INIT];
    private byte[] opSize = new byte[RING_INIT];
    /** Reply bytes of the op; negative for a large get. */
    private int[] opReply = new int[RING_INIT];

    private int opsMask = RING_INIT - 1;

    private long waitHead;
    private long waitTail;
    private byte[] wKind = new byte[RING_INIT];
    private long[] wTx = new long[RING_INIT];
    private long[] wPut = new long[RING_INIT];
    private long[] wOps = new long[RING_INIT];
    private Status[] wStatus = new Status[RING_INIT];
    private Completion[] wComp = new Completion[RING_INIT];
    private int waitMask = RING_INIT - 1;

    /** Streaming GET_REP into the iov of the head op. */
    private boolean streaming;
    private long streamLeft;
    private int streamEntry;
    private long streamEntryOff;

    /** An endpoint on a socket of its own (queues the hello; operations queue behind it). */
    TcpEndpoint(final TcpInterface iface, final int ip, final int port, final byte[] secretDigest,
                final byte[] acceptDigest) {
        this.iface = iface;
        this.targetIp = ip;
        this.targetPort = port;
        this.conn = TcpConnection.connect(iface, this, ip, port, secretDigest, acceptDigest);
        this.ch = conn.ch;
        if (conn.closed) {
            connectionLost(Status.CONNECTION_RESET, false);
        }
    }

    /** An endpoint on a socket the peer interface opened (shared, authenticated both ways). */
    TcpEndpoint(final TcpInterface iface, final TcpConnection accepted, final int ip, final int port) {
        this.iface = iface;
        this.targetIp = ip;
        this.targetPort = port;
        this.conn = accepted;
        this.ch = accepted.ch;
        accepted.requester = this;
        accepted.hadRequester = true;
        this.gate = accepted.shared;
    }

    @Override
    public Interface iface() {
        return iface;
    }

    @Override
    protected boolean hasResources() {
        if (failStatus != null) {
            return true;
        }
        if (gate && (bigGets != 0 || !replyRoom(64))) {
            return false;
        }
        final int reserve = gate ? REPLY_RESERVE : 0;
        return ch.txFree() > iface.segSize + 64 + reserve && ch.iovFree() > 16 + (gate ? IOV_RESERVE : 0)
            && opsIssued - opsDone < OPS_CAP && waitTail - waitHead < WAIT_CAP;
    }

    /** Reserves tx room for a request frame ({@link TcpChannel#reserve}) within the sharing rules. */
    private int reserveReq(final int len, final int replyBytes) {
        return gate ? reserveGated(len, replyBytes) : ch.reserve(len);
    }

    /** The sharing rules of the class comment. */
    private int reserveGated(final int len, final int replyBytes) {
        if (bigGets != 0 || ch.txFree() < len + REPLY_RESERVE || ch.iovFree() < IOV_RESERVE
            || !replyRoom(replyBytes)) {
            return -1;
        }
        return ch.reserve(len);
    }

    /** True if the peer can owe {@code bytes} more reply bytes within the budget. */
    private boolean replyRoom(final int bytes) {
        return opReplyBytes + 16 * (putSeq - ackedSeq) + 8 * (kaSent - kaAcked) + bytes <= REPLY_BUDGET;
    }

    // ---------------------------------------------------------------- send helpers

    private Status noResource() {
        iface.counters().increment(Counter.NO_RESOURCE);
        return Status.NO_RESOURCE;
    }

    /**
     * Commits a frame; on a socket error fails the endpoint and returns false, unless the
     * connection resumes (the frame then stays queued and goes out on the new socket).
     */
    private boolean commit(final int off, final int len) {
        sentAny = true;
        if (ch.commit(off, len) < 0) {
            conn.writeFailed(false);
            if (failStatus != null) {
                return false;
            }
        }
        ownTx = ch.bytesQueued;
        return true;
    }

    private void countTx(final long bytes) {
        iface.counters().increment(Counter.TX_MESSAGES);
        iface.counters().add(Counter.TX_BYTES, bytes);
    }

    /** Status for a key/range, or null when the access may go out. */
    private Status checkRma(final RemoteKey rkey, final long address, final long len) {
        if (failStatus != null) {
            return failStatus;
        }
        if (!(rkey instanceof TcpMemoryDomain.Key)) {
            return Status.INVALID_RKEY;
        }
        if (len < 0) {
            return Status.INVALID_PARAM;
        }
        if (!rkey.contains(address, len)) {
            iface.counters().increment(Counter.ERRORS);
            return Status.OUT_OF_RANGE;
        }
        return null;
    }

    private static void rmaFields(final MemorySegment tx, final int off, final long address,
                                  final TcpMemoryDomain.Key k) {
        tx.set(I64, off + 16, address);
        tx.set(I64, off + 24, k.regionId);
        tx.set(I64, off + 32, k.incarnation);
    }

    private static boolean nativeIov(final IoVector iov) {
        for (int i = 0; i < iov.count(); i++) {
            if (!iov.segment(i).isNative()) {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- active messages

    @Override
    public Status amShort(final int id, final long header, final MemorySegment payload, final long offset,
                          final int length) {
        if (failStatus != null) {
            return failStatus;
        }
        if (id < 0 || id >= Interface.AM_ID_COUNT || length < 0 || length > iface.amMaxShort) {
            return Status.INVALID_PARAM;
        }
        final int total = TcpFrame.HEADER + 8 + length;
        final int off = reserveReq(total, 0);
        if (off < 0) {
            return noResource();
        }
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.AM, id, 0, 8 + length);
        tx.set(I64, off + 8, header);
        MemorySegment.copy(payload, offset, tx, off + 16, length);
        countTx(8L + length);
        return commit(off, total) ? Status.OK : failStatus;
    }

    @Override
    public long amBcopy(final int id, final Packer packer) {
        if (failStatus != null) {
            return failStatus.code();
        }
        if (id < 0 || id >= Interface.AM_ID_COUNT) {
            return Status.INVALID_PARAM.code();
        }
        final int seg = iface.segSize;
        final int off = reserveReq(TcpFrame.HEADER + seg, 0);
        if (off < 0) {
            return noResource().code();
        }
        final long len = packer.pack(ch.tx, off + TcpFrame.HEADER, seg);
        if (len < 0 || len > seg) {
            return Status.INVALID_PARAM.code();
        }
        TcpFrame.header(ch.tx, off, TcpFrame.AM, id, 0, (int) len);
        countTx(len);
        return commit(off, TcpFrame.HEADER + (int) len) ? len : failStatus.code();
    }

    @Override
    public Status amZcopy(final int id, final MemorySegment header, final long headerOffset, final int headerLength,
                          final IoVector iov, final Completion completion) {
        if (failStatus != null) {
            return failStatus;
        }
        final long data = iov.totalLength();
        if (id < 0 || id >= Interface.AM_ID_COUNT || headerLength < 0 || headerLength > TcpFrame.MAX_AM_HEADER
            || data > TcpFrame.MAX_AM_ZCOPY || iov.count() > TcpInterface.MAX_IOV || !nativeIov(iov)) {
            return Status.INVALID_PARAM;
        }
        final int off = reserveReq(TcpFrame.HEADER + headerLength, 0);
        if (off < 0 || ch.iovFree() < iov.count() + 1 || !waitRoom()) {
            return noResource();
        }
        TcpFrame.header(ch.tx, off, TcpFrame.AM, id, 0, (int) (headerLength + data));
        MemoryCopy.copy(header, headerOffset, ch.tx, off + TcpFrame.HEADER, headerLength);
        countTx(headerLength + data);
        return sendWithIov(off, TcpFrame.HEADER + headerLength, iov, W_TX, 0, completion);
    }

    /**
     * Queues a frame header from the tx buffer followed by the iov's user memory, writes what the
     * socket takes, and returns OK if all went out (and the op needs nothing else), otherwise
     * registers a waiter and returns IN_PROGRESS.
     */
    private Status sendWithIov(final int off, final int hdrLen, final IoVector iov, final byte kind, final long seq,
                               final Completion completion) {
        final boolean wasEmpty = ch.txEmpty();
        sentAny = true;
        ch.queue(off, hdrLen);
        for (int i = 0; i < iov.count(); i++) {
            // a put's memory stays as it is until the target's acknowledgement (it may be spliced,
            // and the replay log refers to it); an AM's only until written (the log copies it)
            ch.appendUser(iov.segment(i).address() + iov.offset(i), iov.length(i),
                kind == W_PUT ? TcpReplayLog.REF : TcpReplayLog.COPY);
        }
        ownTx = ch.bytesQueued;
        if (wasEmpty && ch.flushTx() < 0) {
            conn.writeFailed(false);
            if (failStatus != null) {
                return failStatus;
            }
        }
        if (kind == W_TX && ch.bytesWritten >= ch.bytesQueued) {
            return Status.OK;
        }
        addWaiter(kind, ch.bytesQueued, kind == W_PUT ? seq : 0, 0, completion);
        return Status.IN_PROGRESS;
    }

    private void addWaiter(final byte kind, final long tx, final long put, final long ops, final Completion c) {
        final int i = (int) (waitTail++ & waitMask);
        wKind[i] = kind;
        wTx[i] = tx;
        wPut[i] = put;
        wOps[i] = ops;
        wStatus[i] = Status.OK;
        wComp[i] = c;
    }

    // ---------------------------------------------------------------- put

    @Override
    public Status putShort(final MemorySegment src, final long offset, final int length, final long remoteAddress,
                           final RemoteKey rkey) {
        final Status bad = checkRma(rkey, remoteAddress, length);
        if (bad != null) {
            return bad;
        }
        if (length > iface.amMaxShort) {
            return Status.INVALID_PARAM;
        }
        final int total = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED + length;
        final int off = reserveReq(total, 16);
        if (off < 0) {
            return noResource();
        }
        putHeader(off, length, remoteAddress, (TcpMemoryDomain.Key) rkey);
        MemoryCopy.copy(src, offset, ch.tx, off + TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED, length);
        return commit(off, total) ? Status.OK : failStatus;
    }

    private void putHeader(final int off, final long length, final long address, final TcpMemoryDomain.Key k) {
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.PUT_REQ, 0, 0, (int) (TcpFrame.PUT_REQ_FIXED + length));
        tx.set(I32, off + 8, (int) ++putSeq);
        tx.set(I32, off + 12, 0);
        rmaFields(tx, off, address, k);
        iface.counters().increment(Counter.PUTS);
        iface.counters().add(Counter.TX_BYTES, length);
    }

    @Override
    public long putBcopy(final Packer packer, final long remoteAddress, final RemoteKey rkey) {
        final Status bad = checkRma(rkey, remoteAddress, 0);
        if (bad != null) {
            return bad.code();
        }
        final int seg = iface.segSize;
        final int fixed = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED;
        final int off = reserveReq(fixed + seg, 16);
        if (off < 0) {
            return noResource().code();
        }
        final long len = packer.pack(ch.tx, off + fixed, seg);
        if (len < 0 || len > seg) {
            return Status.INVALID_PARAM.code();
        }
        if (!rkey.contains(remoteAddress, len)) {
            iface.counters().increment(Counter.ERRORS);
            return Status.OUT_OF_RANGE.code();
        }
        putHeader(off, len, remoteAddress, (TcpMemoryDomain.Key) rkey);
        return commit(off, fixed + (int) len) ? len : failStatus.code();
    }

    @Override
    public Status putZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                           final Completion completion) {
        final long len = iov.totalLength();
        final Status bad = checkRma(rkey, remoteAddress, len);
        if (bad != null) {
            return bad;
        }
        if (len > TcpFrame.MAX_RMA || iov.count() > TcpInterface.MAX_IOV || !nativeIov(iov)) {
            return Status.INVALID_PARAM;
        }
        final int fixed = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED;
        final int off = reserveReq(fixed, 16);
        if (off < 0 || ch.iovFree() < iov.count() + 1 || !waitRoom()) {
            return noResource();
        }
        putHeader(off, len, remoteAddress, (TcpMemoryDomain.Key) rkey);
        return sendWithIov(off, fixed, iov, W_PUT, putSeq, completion);
    }

    // ---------------------------------------------------------------- get

    @Override
    public Status getBcopy(final Unpacker unpacker, final long length, final long remoteAddress,
                           final RemoteKey rkey, final Completion completion) {
        final Status bad = checkRma(rkey, remoteAddress, length);
        if (bad != null) {
            return bad;
        }
        if (length > iface.segSize) {
            return Status.INVALID_PARAM;
        }
        final int slot = getRequest(length, remoteAddress, (TcpMemoryDomain.Key) rkey, OP_GET_BCOPY, completion);
        if (slot < 0) {
            return slot == -1 ? noResource() : failStatus;
        }
        opUnpacker[slot] = unpacker;
        return Status.IN_PROGRESS;
    }

    @Override
    public Status getZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                           final Completion completion) {
        final long len = iov.totalLength();
        final Status bad = checkRma(rkey, remoteAddress, len);
        if (bad != null) {
            return bad;
        }
        if (len > TcpFrame.MAX_RMA || !nativeIov(iov)) {
            return Status.INVALID_PARAM;
        }
        final int slot = getRequest(len, remoteAddress, (TcpMemoryDomain.Key) rkey, OP_GET_ZCOPY, completion);
        if (slot < 0) {
            return slot == -1 ? noResource() : failStatus;
        }
        opIov[slot] = keepIov(slot, iov);
        return Status.IN_PROGRESS;
    }

    /**
     * A copy of {@code iov}'s entries in the slot's own reusable iov: the caller may reuse its iov at once
     * (one iov per request for every chunk of a rendezvous) and nothing is allocated in steady state.
     */
    private IoVector keepIov(final int slot, final IoVector iov) {
        IoVector kept = opIovKept[slot];
        if (kept == null) {
            kept = new IoVector(Math.max(1, iov.count()));
            opIovKept[slot] = kept;
        }
        kept.clear();
        for (int i = 0; i < iov.count(); i++) {
            kept.add(iov.segment(i), iov.offset(i), iov.length(i));
        }
        return kept;
    }

    /** Sends GET_REQ; the op slot, -1 for no resource, -2 if the endpoint failed. */
    private int getRequest(final long len, final long address, final TcpMemoryDomain.Key k, final byte kind,
                           final Completion completion) {
        final int total = TcpFrame.HEADER + TcpFrame.GET_REQ_LEN;
        final boolean big = len > TcpServerConnection.GET_COPY_MAX;
        final int reply = TcpFrame.HEADER + TcpFrame.GET_REP_FIXED + (big ? 0 : (int) len);
        final int off = reserveReq(total, reply);
        if (off < 0 || !opsRoom()) {
            return -1;
        }
        final long n = opsIssued++;
        final int slot = (int) (n & opsMask);
        opKind[slot] = kind;
        opReply[slot] = big ? -reply : reply;
        opReplyBytes += reply;
        if (big) {
            bigGets++;
        }
        opComp[slot] = completion;
        opLen[slot] = len;
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.GET_REQ, 0, 0, TcpFrame.GET_REQ_LEN);
        tx.set(I32, off + 8, (int) n);
        tx.set(I32, off + 12, (int) len);
        rmaFields(tx, off, address, k);
        iface.counters().increment(Counter.GETS);
        return commit(off, total) ? slot : -2;
    }

    // ---------------------------------------------------------------- atomics

    private Status atomicPost(final AtomicOp op, final int size, final long value, final long address,
                              final RemoteKey rkey) {
        if (op.bit() > AtomicOp.XOR.bit()) {
            return Status.INVALID_PARAM;
        }
        final Status bad = checkRma(rkey, address, size);
        if (bad != null) {
            return bad;
        }
        if ((address & (size - 1)) != 0) {
            return Status.INVALID_PARAM;
        }
        final int total = TcpFrame.HEADER + TcpFrame.ATOMIC_REQ_LEN;
        final int off = reserveReq(total, 16);
        if (off < 0) {
            return noResource();
        }
        atomicFrame(off, op, size, true, (int) ++putSeq, value, 0, address, (TcpMemoryDomain.Key) rkey);
        return commit(off, total) ? Status.OK : failStatus;
    }

    private void atomicFrame(final int off, final AtomicOp op, final int size, final boolean post, final int id,
                             final long value, final long compare, final long address, final TcpMemoryDomain.Key k) {
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.ATOMIC_REQ, op.ordinal(),
            (size == 8 ? TcpFrame.FLAG_64 : 0) | (post ? TcpFrame.FLAG_POST : 0), TcpFrame.ATOMIC_REQ_LEN);
        tx.set(I32, off + 8, id);
        tx.set(I32, off + 12, 0);
        rmaFields(tx, off, address, k);
        tx.set(I64, off + 40, value);
        tx.set(I64, off + 48, compare);
        iface.counters().increment(Counter.ATOMICS);
    }

    private Status atomicFetch(final AtomicOp op, final int size, final long value, final long compare,
                               final MemorySegment result, final long resultOffset, final long address,
                               final RemoteKey rkey, final Completion completion) {
        final Status bad = checkRma(rkey, address, size);
        if (bad != null) {
            return bad;
        }
        if ((address & (size - 1)) != 0 || resultOffset < 0 || resultOffset > result.byteSize() - size) {
            return Status.INVALID_PARAM;
        }
        final int total = TcpFrame.HEADER + TcpFrame.ATOMIC_REQ_LEN;
        final int reply = TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN;
        final int off = reserveReq(total, reply);
        if (off < 0 || !opsRoom()) {
            return noResource();
        }
        final long n = opsIssued++;
        final int slot = (int) (n & opsMask);
        opKind[slot] = OP_ATOMIC;
        opReply[slot] = reply;
        opReplyBytes += reply;
        opComp[slot] = completion;
        opResult[slot] = result;
        opResultOff[slot] = resultOffset;
        opSize[slot] = (byte) size;
        atomicFrame(off, op, size, false, (int) n, value, compare, address, (TcpMemoryDomain.Key) rkey);
        return commit(off, total) ? Status.IN_PROGRESS : failStatus;
    }

    @Override
    public Status atomic64Post(final AtomicOp op, final long value, final long remoteAddress, final RemoteKey rkey) {
        return atomicPost(op, 8, value, remoteAddress, rkey);
    }

    @Override
    public Status atomic32Post(final AtomicOp op, final int value, final long remoteAddress, final RemoteKey rkey) {
        return atomicPost(op, 4, value, remoteAddress, rkey);
    }

    @Override
    public Status atomic64Fetch(final AtomicOp op, final long value, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        if (op == AtomicOp.CSWAP) {
            return Status.INVALID_PARAM;
        }
        return atomicFetch(op, 8, value, 0, result, resultOffset, remoteAddress, rkey, completion);
    }

    @Override
    public Status atomic32Fetch(final AtomicOp op, final int value, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        if (op == AtomicOp.CSWAP) {
            return Status.INVALID_PARAM;
        }
        return atomicFetch(op, 4, value, 0, result, resultOffset, remoteAddress, rkey, completion);
    }

    @Override
    public Status atomic64Cswap(final long compare, final long swap, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        return atomicFetch(AtomicOp.CSWAP, 8, swap, compare, result, resultOffset, remoteAddress, rkey, completion);
    }

    @Override
    public Status atomic32Cswap(final int compare, final int swap, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        return atomicFetch(AtomicOp.CSWAP, 4, swap, compare, result, resultOffset, remoteAddress, rkey, completion);
    }

    /** True if one more op fits, doubling the op ring (up to {@link #OPS_CAP}) when it is full. */
    private boolean opsRoom() {
        final int cap = opsMask + 1;
        if (opsIssued - opsDone < cap) {
            return true;
        }
        if (cap == OPS_CAP) {
            return false;
        }
        final int m = 2 * cap - 1;
        final byte[] kind = new byte[2 * cap];
        final Completion[] comp = new Completion[2 * cap];
        final IoVector[] iov = new IoVector[2 * cap];
        final IoVector[] kept = new IoVector[2 * cap];
        final Unpacker[] unp = new Unpacker[2 * cap];
        final long[] len = new long[2 * cap];
        final MemorySegment[] res = new MemorySegment[2 * cap];
        final long[] resOff = new long[2 * cap];
        final byte[] size = new byte[2 * cap];
        final int[] reply = new int[2 * cap];
        for (long n = opsDone; n < opsIssued; n++) { // slots follow the sequence number: re-place each
            final int o = (int) (n & opsMask);
            final int i = (int) (n & m);
            kind[i] = opKind[o];
            comp[i] = opComp[o];
            iov[i] = opIov[o];
            kept[i] = opIovKept[o];
            unp[i] = opUnpacker[o];
            len[i] = opLen[o];
            res[i] = opResult[o];
            resOff[i] = opResultOff[o];
            size[i] = opSize[o];
            reply[i] = opReply[o];
        }
        opKind = kind;
        opComp = comp;
        opIov = iov;
        opIovKept = kept;
        opUnpacker = unp;
        opLen = len;
        opResult = res;
        opResultOff = resOff;
        opSize = size;
        opReply = reply;
        opsMask = m;
        return true;
    }

    /** True if one more waiter fits, doubling the waiter ring (up to {@link #WAIT_CAP}) when it is full. */
    private boolean waitRoom() {
        final int cap = waitMask + 1;
        if (waitTail - waitHead < cap) {
            return true;
        }
        if (cap == WAIT_CAP) {
            return false;
        }
        final int m = 2 * cap - 1;
        final byte[] kind = new byte[2 * cap];
        final long[] tx = new long[2 * cap];
        final long[] put = new long[2 * cap];
        final long[] ops = new long[2 * cap];
        final Status[] st = new Status[2 * cap];
        final Completion[] comp = new Completion[2 * cap];
        for (long w = waitHead; w < waitTail; w++) {
            final int o = (int) (w & waitMask);
            final int i = (int) (w & m);
            kind[i] = wKind[o];
            tx[i] = wTx[o];
            put[i] = wPut[o];
            ops[i] = wOps[o];
            st[i] = wStatus[o];
            comp[i] = wComp[o];
        }
        wKind = kind;
        wTx = tx;
        wPut = put;
        wOps = ops;
        wStatus = st;
        wComp = comp;
        waitMask = m;
        return true;
    }

    // ---------------------------------------------------------------- flush, fence, check

    /**
     * Both FLUSH_LOCAL and FLUSH_REMOTE complete when every byte left the socket, every get and
     * atomic got its reply and every put was acknowledged: over TCP the ack is the only evidence
     * that a buffered put_short has landed. A put refused by the target makes the next flush
     * complete with that error.
     */
    @Override
    public Status flush(final int flags, final Completion completion) {
        if (failStatus != null) {
            return failStatus;
        }
        if ((flags & Interface.FLUSH_CANCEL) != 0) {
            cancel();
            return Status.OK;
        }
        if (!pending.isEmpty()) {
            return noResource();
        }
        if (ch.bytesWritten >= ownTx && ackedSeq == putSeq && opsDone == opsIssued && waitHead == waitTail) {
            final Status e = putError;
            putError = null;
            return e == null ? Status.OK : e;
        }
        if (!waitRoom()) {
            return noResource();
        }
        addWaiter(W_FLUSH, ownTx, putSeq, opsIssued, completion);
        return Status.IN_PROGRESS;
    }

    @Override
    public Status fence() {
        // one ordered stream, served in order by the target: later operations cannot pass earlier
        // ones (a switch to another socket waits until the old one was served: see beginSwitch)
        return failStatus != null ? failStatus : Status.OK;
    }

    /** Sends a KEEPALIVE frame; a dead peer shows up as a reset from progress. */
    @Override
    public Status check() {
        if (failStatus != null) {
            return failStatus;
        }
        final int off = reserveReq(TcpFrame.HEADER, TcpFrame.HEADER);
        if (off >= 0) {
            TcpFrame.header(ch.tx, off, TcpFrame.KEEPALIVE, 0, 0, 0);
            kaSent++;
            if (!commit(off, TcpFrame.HEADER)) {
                return failStatus;
            }
        }
        return Status.OK;
    }

    // ---------------------------------------------------------------- progress side

    /** The connection wrote some of its queue (progress): completes what waited for it. */
    void txProgress() {
        if (failStatus != null) {
            return;
        }
        completeWaiters();
        if (switchTo != null) {
            maybeSwitch(true);
        }
    }

    /** The connection handled a batch of frames (progress). */
    void afterRead() {
        if (switchTo != null && failStatus == null) {
            maybeSwitch(true);
        }
    }

    /** The connection's ACCEPT frame checked out: the socket may now be shared. */
    void accepted() {
        if (switchPhase != 2) {
            gate = conn.shared;
        }
    }

    /** Dispatches pending requests when resources are back; returns the number dispatched. */
    int dispatchPending() {
        if (pending.isEmpty() || !hasResources()) {
            return 0;
        }
        final int n = pending.dispatch();
        iface.counters().add(Counter.PENDING_DISPATCHED, n);
        return n;
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    // ---------------------------------------------------------------- switching sockets

    /**
     * Moves this endpoint from the socket it opened to {@code target}, a shared socket the peer
     * interface opened (the peer's address is the smaller: its socket carries both directions).
     * The peer reads its two sockets in whatever order epoll reports them, so a request sent on
     * the new socket could overtake one still in flight on the old one. Hence, without ever
     * refusing an operation:
     * <ol>
     * <li>requests go on as before until the old socket's tx queue is empty (so that every
     * completion waiting for "bytes written" is due: none refers to the old stream after);</li>
     * <li>a KEEPALIVE goes out on the old socket, and later requests are queued on the new
     * socket, which holds its transmission ({@link TcpChannel#held});</li>
     * <li>once that KEEPALIVE's ack and every reply owed on the old socket are in (the peer
     * serves each socket in order: the ack proves that everything before it was served), the
     * new socket transmits and the old one is left (DETACH).</li>
     * </ol>
     * Replies keep their order: those of the old socket all arrive before any request on the
     * new one leaves. An endpoint that sent nothing yet moves at once.
     */
    void beginSwitch(final TcpConnection target) {
        switchTo = target;
        switchPhase = 1;
        target.requester = this; // claimed: no other endpoint attaches to it meanwhile
        target.hadRequester = true;
        maybeSwitch(true);
    }

    private void maybeSwitch(final boolean fromProgress) {
        final TcpConnection t = switchTo;
        if (t.closed) {
            switchTargetLost(t, fromProgress);
            return;
        }
        if (switchPhase == 1) {
            if (!sentAny && waitHead == waitTail && opsDone == opsIssued && ackedSeq == putSeq && !streaming) {
                final TcpConnection old = conn;
                conn = t;
                ch = t.ch;
                ownTx = 0;
                endSwitch(old);
                return;
            }
            if (!ch.txEmpty() || bigGets != 0) {
                return; // retried when the old socket drained (a large get: when it completed)
            }
            final int off = ch.reserve(TcpFrame.HEADER);
            if (off < 0) {
                return;
            }
            TcpFrame.header(ch.tx, off, TcpFrame.KEEPALIVE, 0, 0, 0);
            switchKa = ++kaSent;
            if (ch.commit(off, TcpFrame.HEADER) < 0) {
                conn.writeFailed(fromProgress);
                return;
            }
            // the old tx queue was empty before the KEEPALIVE: every "bytes written" wait is due
            for (long w = waitHead; w < waitTail; w++) {
                wTx[(int) (w & waitMask)] = 0;
            }
            opsAtSwitch = opsIssued;
            putAtSwitch = putSeq;
            t.ch.held = true;
            ch = t.ch;
            ownTx = 0;
            sentAny = false;
            gate = t.shared;
            switchPhase = 2;
        }
        if (kaAcked < switchKa || opsDone < opsAtSwitch || ackedSeq < putAtSwitch || streaming) {
            return;
        }
        final TcpConnection old = conn;
        conn = t;
        t.ch.held = false;
        if (t.ch.flushTx() < 0) {
            endSwitch(old);
            t.writeFailed(fromProgress);
            return;
        }
        endSwitch(old);
        completeWaiters();
    }

    private void endSwitch(final TcpConnection old) {
        switchTo = null;
        switchPhase = 0;
        gate = conn.shared;
        iface.countSwitch();
        old.detach(this);
    }

    /**
     * The socket this endpoint was moving to closed before the switch: stay where it is, or
     * fail if requests were already queued on it.
     */
    void switchTargetLost(final TcpConnection t, final boolean fromProgress) {
        if (switchTo != t) {
            return;
        }
        final boolean queued = switchPhase == 2;
        switchTo = null;
        switchPhase = 0;
        if (queued) {
            ch = conn.ch;
            connectionLost(Status.CONNECTION_RESET, fromProgress);
        } else {
            gate = conn.shared;
        }
    }

    /** True while moving to another socket. */
    boolean switching() {
        return switchTo != null;
    }

    // ---------------------------------------------------------------- replies

    /** Handles the reply frame at rxHead: CONT, MORE, DEAD or STREAM (GET_REP larger than rx). */
    int reply(final int avail, final long hdr) {
        final TcpChannel c = conn.ch;
        final int h = c.rxHead;
        final int type = TcpFrame.type(hdr);
        final long len = TcpFrame.length(hdr);
        if (TcpFrame.op(hdr) != 0 || TcpFrame.flags(hdr) != 0) {
            return conn.malformed();
        }
        switch (type) {
            case TcpFrame.PUT_ACK -> {
                if (len != TcpFrame.PUT_ACK_LEN) {
                    return conn.malformed();
                }
                if (avail < TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN) {
                    return more(TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN);
                }
                final long seq = ackedSeq + ((c.rx.get(I32, h + 8) - (int) ackedSeq) & 0xFFFFFFFFL);
                final Status st = Status.of(c.rx.get(I32, h + 12));
                if (seq > putSeq || !isReplyStatus(st)) {
                    return conn.malformed();
                }
                c.rxHead = h + TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN;
                ackedSeq = seq;
                if (st != Status.OK) {
                    putFailed(seq, st);
                }
                completeWaiters();
            }
            case TcpFrame.GET_REP -> {
                if (len < TcpFrame.GET_REP_FIXED) {
                    return conn.malformed();
                }
                if (avail < TcpFrame.HEADER + TcpFrame.GET_REP_FIXED) {
                    return more(TcpFrame.HEADER + TcpFrame.GET_REP_FIXED);
                }
                final int r = getReply(avail, len - TcpFrame.GET_REP_FIXED);
                if (r != TcpConnection.CONT) {
                    return r;
                }
            }
            case TcpFrame.ATOMIC_REP -> {
                if (len != TcpFrame.ATOMIC_REP_LEN) {
                    return conn.malformed();
                }
                if (avail < TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN) {
                    return more(TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN);
                }
                final int slot = (int) (opsDone & opsMask);
                if (opsDone == opsIssued || opKind[slot] != OP_ATOMIC || c.rx.get(I32, h + 8) != (int) opsDone) {
                    return conn.malformed();
                }
                final Status st = Status.of(c.rx.get(I32, h + 12));
                if (!isReplyStatus(st)) {
                    return conn.malformed();
                }
                if (st == Status.OK) {
                    final long old = c.rx.get(I64, h + 16);
                    if (opSize[slot] == 8) {
                        opResult[slot].set(ValueLayout.JAVA_LONG_UNALIGNED, opResultOff[slot], old);
                    } else {
                        opResult[slot].set(ValueLayout.JAVA_INT_UNALIGNED, opResultOff[slot], (int) old);
                    }
                }
                c.rxHead = h + TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN;
                completeOp(slot, st);
            }
            case TcpFrame.KEEPALIVE_ACK -> {
                if (len != 0 || kaAcked == kaSent) {
                    return conn.malformed();
                }
                c.rxHead = h + TcpFrame.HEADER;
                kaAcked++;
            }
            default -> {
                return conn.malformed();
            }
        }
        return conn.closed ? TcpConnection.DEAD : TcpConnection.CONT;
    }

    /** A reply carries OK or an error, never IN_PROGRESS / NO_RESOURCE / BUSY. */
    private static boolean isReplyStatus(final Status st) {
        return st == Status.OK || st.isError();
    }

    private int more(final int need) {
        conn.ch.need(need);
        return TcpConnection.MORE;
    }

    /** GET_REP at rxHead: CONT when handled, MORE when incomplete, STREAM, or DEAD (malformed). */
    private int getReply(final int avail, final long data) {
        final TcpChannel c = conn.ch;
        final int h = c.rxHead;
        final int slot = (int) (opsDone & opsMask);
        final byte kind = opKind[slot];
        if (opsDone == opsIssued || (kind != OP_GET_BCOPY && kind != OP_GET_ZCOPY)
            || c.rx.get(I32, h + 8) != (int) opsDone) {
            return conn.malformed();
        }
        final Status st = Status.of(c.rx.get(I32, h + 12));
        if (!isReplyStatus(st) || (st == Status.OK ? data != opLen[slot] : data != 0)) {
            return conn.malformed();
        }
        final int fixed = TcpFrame.HEADER + TcpFrame.GET_REP_FIXED;
        final boolean whole = fixed + data <= c.rxCap;
        if (whole && avail < fixed + data) {
            return more(fixed + (int) data);
        }
        iface.counters().add(Counter.RX_BYTES, data);
        if (whole) {
            c.rxHead = h + fixed + (int) data;
            if (st == Status.OK) {
                if (kind == OP_GET_BCOPY) {
                    opUnpacker[slot].unpack(c.rx, h + fixed, data);
                } else {
                    opIov[slot].scatter(c.rx, h + fixed, data);
                }
            }
            completeOp(slot, st);
            return TcpConnection.CONT;
        }
        // only zcopy gets exceed the rx buffer: scatter what is here, receive the rest in place
        final int take = avail - fixed;
        c.rxHead = c.rxTail;
        streaming = true;
        streamLeft = data;
        streamEntry = 0;
        streamEntryOff = 0;
        scatterStream(c.rxBase + h + fixed, take);
        return streaming ? TcpConnection.STREAM : TcpConnection.CONT;
    }

    boolean streaming() {
        return streaming;
    }

    /** Bytes of the streamed GET_REP still to come (when the endpoint leaves mid-stream). */
    long streamRemaining() {
        return streaming ? streamLeft : 0;
    }

    /** Copies {@code n} bytes at {@code address} into the iov of the head op at the stream cursor. */
    private void scatterStream(final long address, final long n) {
        final IoVector iov = opIov[(int) (opsDone & opsMask)];
        long done = 0;
        while (done < n) {
            final long room = iov.length(streamEntry) - streamEntryOff;
            if (room == 0) {
                streamEntry++;
                streamEntryOff = 0;
                continue;
            }
            final long k = Math.min(room, n - done);
            MemoryCopy.copy(TcpInterface.ALL, address + done, iov.segment(streamEntry),
                iov.offset(streamEntry) + streamEntryOff, k);
            streamEntryOff += k;
            done += k;
        }
        streamAdvance(n);
    }

    private void streamAdvance(final long n) {
        streamLeft -= n;
        if (streamLeft == 0) {
            streaming = false;
            conn.ch.rxHead = 0;
            conn.ch.rxTail = 0;
            completeOp((int) (opsDone & opsMask), Status.OK);
        }
    }

    /** Receives streamed get data straight into the user's iov: 1 progress, 0 none, -1 failed. */
    int streamIn() {
        final IoVector iov = opIov[(int) (opsDone & opsMask)];
        while (iov.length(streamEntry) == streamEntryOff) {
            streamEntry++;
            streamEntryOff = 0;
        }
        final long room = Math.min(iov.length(streamEntry) - streamEntryOff, streamLeft);
        final long n = conn.ch.recv(iov.segment(streamEntry).address() + iov.offset(streamEntry) + streamEntryOff, room);
        if (n == -LibC.EAGAIN) {
            return 0;
        }
        if (n <= 0) {
            conn.ioFailed(Status.CONNECTION_RESET);
            return -1;
        }
        streamEntryOff += n;
        streamAdvance(n);
        return failStatus == null ? 1 : -1;
    }

    private void completeOp(final int slot, final Status st) {
        final Completion c = opComp[slot];
        opComp[slot] = null;
        opIov[slot] = null; // the kept copy (opIovKept) is cleared at its next use
        opUnpacker[slot] = null;
        opResult[slot] = null;
        int reply = opReply[slot];
        if (reply < 0) {
            bigGets--;
            reply = -reply;
        }
        opReplyBytes -= reply;
        opsDone++;
        if (st != Status.OK) {
            iface.counters().increment(Counter.ERRORS);
        }
        if (c != null) {
            c.complete(st);
        }
        completeWaiters();
    }

    /** A put (or post atomic) was refused by the target. */
    private void putFailed(final long seq, final Status st) {
        iface.counters().increment(Counter.ERRORS);
        if (putError == null) {
            putError = st;
        }
        for (long w = waitHead; w < waitTail; w++) {
            final int i = (int) (w & waitMask);
            if (wKind[i] == W_PUT && wPut[i] == seq) {
                wStatus[i] = st;
            }
        }
    }

    /** Completes the waiters whose conditions hold, in order. */
    private void completeWaiters() {
        while (waitHead != waitTail) {
            final int i = (int) (waitHead & waitMask);
            if (ch.bytesWritten < wTx[i] || ackedSeq < wPut[i] || opsDone < wOps[i]) {
                return;
            }
            waitHead++;
            final Completion c = wComp[i];
            wComp[i] = null;
            Status st = wStatus[i];
            if (wKind[i] == W_FLUSH && putError != null) {
                st = putError;
                putError = null;
            }
            if (c != null) {
                c.complete(st);
            }
            if (failStatus != null) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- failure and close

    /**
     * The socket failed: marks the endpoint failed. From progress, outstanding operations
     * complete and the error handler runs now; from an operation call they are deferred to the
     * next progress.
     */
    void connectionLost(final Status st, final boolean fromProgress) {
        if (failStatus != null) {
            return;
        }
        failStatus = st;
        LOG.log(System.Logger.Level.DEBUG, "tcp: endpoint failed: {0}", st); // the error handler tells the user
        leaveSwitchTarget();
        if (fromProgress) {
            notifyFailure();
        } else {
            iface.deferFailure(this);
        }
    }

    /** FLUSH_CANCEL: fails this endpoint alone (a shared socket goes on serving the peer). */
    private void cancel() {
        if (failStatus != null) {
            return;
        }
        failStatus = Status.CANCELED;
        leaveSwitchTarget();
        conn.detach(this);
        iface.deferFailure(this);
    }

    private void leaveSwitchTarget() {
        final TcpConnection t = switchTo;
        if (t != null) {
            switchTo = null;
            if (switchPhase == 2) {
                ch = conn.ch;
                t.ch.held = false; // what was queued there goes out; its replies are dropped
                t.ch.flushTx();
            }
            switchPhase = 0;
            t.detach(this);
        }
    }

    /** Completes everything outstanding with the failure and tells the error handler (progress only). */
    void notifyFailure() {
        if (failureNotified || closed) {
            return;
        }
        failureNotified = true;
        drain(failStatus);
        iface.counters().increment(Counter.ERRORS);
        iface.endpointFailed(this, failStatus);
    }

    private void drain(final Status st) {
        streaming = false;
        bigGets = 0;
        opReplyBytes = 0;
        while (opsDone != opsIssued) {
            final int slot = (int) (opsDone & opsMask);
            final Completion c = opComp[slot];
            opComp[slot] = null;
            opIov[slot] = null;
            opUnpacker[slot] = null;
            opResult[slot] = null;
            opsDone++;
            if (c != null) {
                c.complete(st);
            }
        }
        while (waitHead != waitTail) {
            final int i = (int) (waitHead++ & waitMask);
            final Completion c = wComp[i];
            wComp[i] = null;
            if (c != null) {
                c.complete(st);
            }
        }
        // pending requests retry now and see the error status
        pending.purge(PendingRequest::dispatch);
    }

    Status failStatus() {
        return failStatus;
    }

    /** Puts (or post atomics) not acknowledged yet: their memory may be gone once this endpoint is. */
    boolean putsOutstanding() {
        return ackedSeq != putSeq;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (failStatus == null) {
            failStatus = Status.CLOSED;
        }
        leaveSwitchTarget();
        conn.detach(this); // closes the socket unless the peer may still use it
        closed = true;
        drain(Status.CANCELED);
        iface.endpointClosed(this);
    }
}
