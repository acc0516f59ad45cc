package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.WeftException;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * The connecting side: an endpoint owns one socket to the peer interface. Requests and active
 * messages go out on it; replies (put acks, get data, atomic results, keepalive acks) come back
 * on it in request order.
 *
 * <p>Bookkeeping without allocation: gets and fetching atomics sit in a ring of op slots and are
 * matched with their replies in order (the request id only double-checks); puts and post atomics
 * carry a sequence number acknowledged cumulatively by PUT_ACK; completions that wait for "bytes
 * written", "acked up to seq" and "replies up to op n" (zcopy, putZcopy, flush) sit in a FIFO of
 * waiters whose three targets only ever grow.
 */
final class TcpEndpoint extends AbstractEndpoint implements TcpChannel.Owner {
    private static final System.Logger LOG = System.getLogger("weft.uct.tcp");

    private static final int OPS_CAP = 1024;
    private static final int OPS_MASK = OPS_CAP - 1;
    private static final int WAIT_CAP = 1024;
    private static final int WAIT_MASK = WAIT_CAP - 1;
    private static final byte OP_GET_BCOPY = 1;
    private static final byte OP_GET_ZCOPY = 2;
    private static final byte OP_ATOMIC = 3;
    private static final byte W_TX = 0;
    private static final byte W_PUT = 1;
    private static final byte W_FLUSH = 2;

    private final TcpInterface iface;
    final TcpChannel ch;

    /** null while usable; the error every operation returns once failed or closed. */
    private Status failStatus;
    private boolean closed;
    boolean failureNotified;

    private long putSeq;
    private long ackedSeq;
    private Status putError;

    private long opsIssued;
    private long opsDone;
    private final byte[] opKind = new byte[OPS_CAP];
    private final Completion[] opComp = new Completion[OPS_CAP];
    private final IoVector[] opIov = new IoVector[OPS_CAP];
    private final Unpacker[] opUnpacker = new Unpacker[OPS_CAP];
    private final long[] opLen = new long[OPS_CAP];
    private final MemorySegment[] opResult = new MemorySegment[OPS_CAP];
    private final long[] opResultOff = new long[OPS_CAP];
    private final byte[] opSize = new byte[OPS_CAP];

    private long waitHead;
    private long waitTail;
    private final byte[] wKind = new byte[WAIT_CAP];
    private final long[] wTx = new long[WAIT_CAP];
    private final long[] wPut = new long[WAIT_CAP];
    private final long[] wOps = new long[WAIT_CAP];
    private final Status[] wStatus = new Status[WAIT_CAP];
    private final Completion[] wComp = new Completion[WAIT_CAP];

    /** Streaming GET_REP into the iov of the head op. */
    private boolean streaming;
    /** Bytes of the handshake: a flush does not wait for them if no operation followed. */
    private final long handshakeLen;
    private long streamLeft;
    private int streamEntry;
    private long streamEntryOff;

    TcpEndpoint(final TcpInterface iface, final int ip, final int port, final byte[] secretDigest) {
        this.iface = iface;
        final int fd = LibC.socket(LibC.AF_INET, LibC.SOCK_STREAM | LibC.SOCK_NONBLOCK | LibC.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new WeftException(Status.NO_RESOURCE, "tcp: socket: " + LibC.strerror(-fd));
        }
        TcpChannel c = null;
        try {
            iface.configureSocket(fd);
            c = new TcpChannel(iface, this, fd, iface.rxBufSize, iface.txBufSize);
            final int r;
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment sa = TcpInterface.sockaddr(a, ip, port);
                r = LibC.connect(fd, sa, (int) LibC.SOCKADDR_IN_SIZE);
            }
            if (r < 0 && r != -LibC.EINPROGRESS) {
                throw new WeftException(Status.UNREACHABLE, "tcp: connect to " + TcpAddress.ipString(ip) + ":"
                    + port + ": " + LibC.strerror(-r));
            }
            c.connected = r == 0;
            iface.register(c);
        } catch (final RuntimeException e) {
            if (c != null) {
                c.close();
            } else {
                LibC.close(fd);
            }
            throw e;
        }
        this.ch = c;
        // the handshake is the first thing in the stream; operations queue behind it
        final byte[] own = iface.interfaceAddress();
        final int len = TcpFrame.HANDSHAKE_FIXED + own.length;
        this.handshakeLen = len;
        final int off = c.reserve(len);
        c.tx.set(I64, off, TcpFrame.MAGIC);
        c.tx.set(TcpFrame.I16, off + 8, (short) TcpFrame.VERSION);
        c.tx.set(TcpFrame.I16, off + 10, (short) own.length);
        c.tx.set(I32, off + 12, 0);
        MemorySegment.copy(secretDigest, 0, c.tx, ValueLayout.JAVA_BYTE, off + 16, 32);
        MemorySegment.copy(own, 0, c.tx, ValueLayout.JAVA_BYTE, off + TcpFrame.HANDSHAKE_FIXED, own.length);
        if (c.commit(off, len) < 0) {
            fail(Status.CONNECTION_RESET, false);
        }
    }

    @Override
    public Interface iface() {
        return iface;
    }

    @Override
    protected boolean hasResources() {
        return failStatus != null
            || (ch.txFree() > iface.segSize + 64 && ch.iovFree() > 16 && opsIssued - opsDone < OPS_CAP
            && waitTail - waitHead < WAIT_CAP);
    }

    // ---------------------------------------------------------------- send helpers

    private Status noResource() {
        iface.countersInternal().increment(Counter.NO_RESOURCE);
        return Status.NO_RESOURCE;
    }

    /** Commits a frame; on a socket error fails the endpoint and returns false. */
    private boolean commit(final int off, final int len) {
        if (ch.commit(off, len) < 0) {
            fail(Status.CONNECTION_RESET, false);
            return false;
        }
        return true;
    }

    private void countTx(final long bytes) {
        iface.countersInternal().increment(Counter.TX_MESSAGES);
        iface.countersInternal().add(Counter.TX_BYTES, bytes);
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
            iface.countersInternal().increment(Counter.ERRORS);
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
        final int off = ch.reserve(total);
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
        final int off = ch.reserve(TcpFrame.HEADER + seg);
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
        final int off = ch.reserve(TcpFrame.HEADER + headerLength);
        if (off < 0 || ch.iovFree() < iov.count() + 1 || waitTail - waitHead == WAIT_CAP) {
            return noResource();
        }
        TcpFrame.header(ch.tx, off, TcpFrame.AM, id, 0, (int) (headerLength + data));
        MemorySegment.copy(header, headerOffset, ch.tx, off + TcpFrame.HEADER, headerLength);
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
        ch.queue(off, hdrLen);
        for (int i = 0; i < iov.count(); i++) {
            ch.appendUser(iov.segment(i).address() + iov.offset(i), iov.length(i));
        }
        if (wasEmpty && ch.flushTx() < 0) {
            fail(Status.CONNECTION_RESET, false);
            return failStatus;
        }
        if (kind == W_TX && ch.bytesWritten >= ch.bytesQueued) {
            return Status.OK;
        }
        addWaiter(kind, ch.bytesQueued, kind == W_PUT ? seq : 0, 0, completion);
        return Status.IN_PROGRESS;
    }

    private void addWaiter(final byte kind, final long tx, final long put, final long ops, final Completion c) {
        final int i = (int) (waitTail++ & WAIT_MASK);
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
        final int off = ch.reserve(total);
        if (off < 0) {
            return noResource();
        }
        putHeader(off, length, remoteAddress, (TcpMemoryDomain.Key) rkey);
        MemorySegment.copy(src, offset, ch.tx, off + TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED, length);
        return commit(off, total) ? Status.OK : failStatus;
    }

    private void putHeader(final int off, final long length, final long address, final TcpMemoryDomain.Key k) {
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.PUT_REQ, 0, 0, (int) (TcpFrame.PUT_REQ_FIXED + length));
        tx.set(I32, off + 8, (int) ++putSeq);
        tx.set(I32, off + 12, 0);
        rmaFields(tx, off, address, k);
        iface.countersInternal().increment(Counter.PUTS);
        iface.countersInternal().add(Counter.TX_BYTES, length);
    }

    @Override
    public long putBcopy(final Packer packer, final long remoteAddress, final RemoteKey rkey) {
        final Status bad = checkRma(rkey, remoteAddress, 0);
        if (bad != null) {
            return bad.code();
        }
        final int seg = iface.segSize;
        final int fixed = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED;
        final int off = ch.reserve(fixed + seg);
        if (off < 0) {
            return noResource().code();
        }
        final long len = packer.pack(ch.tx, off + fixed, seg);
        if (len < 0 || len > seg) {
            return Status.INVALID_PARAM.code();
        }
        if (!rkey.contains(remoteAddress, len)) {
            iface.countersInternal().increment(Counter.ERRORS);
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
        final int off = ch.reserve(fixed);
        if (off < 0 || ch.iovFree() < iov.count() + 1 || waitTail - waitHead == WAIT_CAP) {
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
        opIov[slot] = iov;
        return Status.IN_PROGRESS;
    }

    /** Sends GET_REQ; the op slot, -1 for no resource, -2 if the endpoint failed. */
    private int getRequest(final long len, final long address, final TcpMemoryDomain.Key k, final byte kind,
                           final Completion completion) {
        final int total = TcpFrame.HEADER + TcpFrame.GET_REQ_LEN;
        final int off = ch.reserve(total);
        if (off < 0 || opsIssued - opsDone == OPS_CAP) {
            return -1;
        }
        final long n = opsIssued++;
        final int slot = (int) (n & OPS_MASK);
        opKind[slot] = kind;
        opComp[slot] = completion;
        opLen[slot] = len;
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.GET_REQ, 0, 0, TcpFrame.GET_REQ_LEN);
        tx.set(I32, off + 8, (int) n);
        tx.set(I32, off + 12, (int) len);
        rmaFields(tx, off, address, k);
        iface.countersInternal().increment(Counter.GETS);
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
        final int off = ch.reserve(total);
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
        iface.countersInternal().increment(Counter.ATOMICS);
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
        final int off = ch.reserve(total);
        if (off < 0 || opsIssued - opsDone == OPS_CAP) {
            return noResource();
        }
        final long n = opsIssued++;
        final int slot = (int) (n & OPS_MASK);
        opKind[slot] = OP_ATOMIC;
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
            fail(Status.CANCELED, false);
            return Status.OK;
        }
        if (!pending.isEmpty()) {
            return noResource();
        }
        if ((ch.txEmpty() || ch.bytesQueued == handshakeLen) && ackedSeq == putSeq && opsDone == opsIssued && waitHead == waitTail) {
            final Status e = putError;
            putError = null;
            return e == null ? Status.OK : e;
        }
        if (waitTail - waitHead == WAIT_CAP) {
            return noResource();
        }
        addWaiter(W_FLUSH, ch.bytesQueued, putSeq, opsIssued, completion);
        return Status.IN_PROGRESS;
    }

    @Override
    public Status fence() {
        // one ordered stream, served in order by the target: later operations cannot pass earlier ones
        return failStatus != null ? failStatus : Status.OK;
    }

    /** Sends a KEEPALIVE frame; a dead peer shows up as a reset from progress. */
    @Override
    public Status check() {
        if (failStatus != null) {
            return failStatus;
        }
        final int off = ch.reserve(TcpFrame.HEADER);
        if (off >= 0) {
            TcpFrame.header(ch.tx, off, TcpFrame.KEEPALIVE, 0, 0, 0);
            if (!commit(off, TcpFrame.HEADER)) {
                return failStatus;
            }
        }
        return Status.OK;
    }

    // ---------------------------------------------------------------- progress side

    @Override
    public void onWritable() {
        if (failStatus != null) {
            return;
        }
        if (!ch.connected) {
            final int err = iface.socketError(ch.fd);
            if (err != 0) {
                fail(Status.UNREACHABLE, true);
                return;
            }
            ch.connected = true;
            ch.updateInterest();
        }
        if (ch.flushTx() < 0) {
            fail(Status.CONNECTION_RESET, true);
            return;
        }
        completeWaiters();
    }

    /** Dispatches pending requests when resources are back; returns the number dispatched. */
    int dispatchPending() {
        if (pending.isEmpty() || !hasResources()) {
            return 0;
        }
        final int n = pending.dispatch();
        iface.countersInternal().add(Counter.PENDING_DISPATCHED, n);
        return n;
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    @Override
    public void onReadable() {
        if (failStatus != null) {
            return;
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
                fail(ch.connected ? Status.CONNECTION_RESET : Status.UNREACHABLE, true);
                return;
            }
            if (!parse()) {
                return;
            }
            if (!streaming && n < ch.lastAsk) {
                break;
            }
        }
    }

    /** Handles the buffered replies; false if the endpoint failed. */
    private boolean parse() {
        final TcpChannel c = ch;
        while (!streaming) {
            final int avail = c.rxTail - c.rxHead;
            if (avail < TcpFrame.HEADER) {
                return more(TcpFrame.HEADER);
            }
            final int h = c.rxHead;
            final long hdr = c.rx.get(I64, h);
            final int type = TcpFrame.type(hdr);
            final long len = TcpFrame.length(hdr);
            if (TcpFrame.op(hdr) != 0 || TcpFrame.flags(hdr) != 0) {
                return malformed();
            }
            switch (type) {
                case TcpFrame.PUT_ACK -> {
                    if (len != TcpFrame.PUT_ACK_LEN) {
                        return malformed();
                    }
                    if (avail < TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN) {
                        return more(TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN);
                    }
                    final long seq = ackedSeq + ((c.rx.get(I32, h + 8) - (int) ackedSeq) & 0xFFFFFFFFL);
                    final Status st = Status.of(c.rx.get(I32, h + 12));
                    if (seq > putSeq || !isReplyStatus(st)) {
                        return malformed();
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
                        return malformed();
                    }
                    if (avail < TcpFrame.HEADER + TcpFrame.GET_REP_FIXED) {
                        return more(TcpFrame.HEADER + TcpFrame.GET_REP_FIXED);
                    }
                    if (!getReply(avail, len - TcpFrame.GET_REP_FIXED)) {
                        return failStatus == null;
                    }
                }
                case TcpFrame.ATOMIC_REP -> {
                    if (len != TcpFrame.ATOMIC_REP_LEN) {
                        return malformed();
                    }
                    if (avail < TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN) {
                        return more(TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN);
                    }
                    final int slot = (int) (opsDone & OPS_MASK);
                    if (opsDone == opsIssued || opKind[slot] != OP_ATOMIC || c.rx.get(I32, h + 8) != (int) opsDone) {
                        return malformed();
                    }
                    final Status st = Status.of(c.rx.get(I32, h + 12));
                    if (!isReplyStatus(st)) {
                        return malformed();
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
                    if (len != 0) {
                        return malformed();
                    }
                    c.rxHead = h + TcpFrame.HEADER;
                }
                default -> {
                    return malformed();
                }
            }
            if (failStatus != null) {
                return false;
            }
        }
        return true;
    }

    /** A reply carries OK or an error, never IN_PROGRESS / NO_RESOURCE / BUSY. */
    private static boolean isReplyStatus(final Status st) {
        return st == Status.OK || st.isError();
    }

    private boolean more(final int need) {
        ch.need(need);
        return true;
    }

    private boolean malformed() {
        iface.countMalformed();
        fail(Status.CONNECTION_RESET, true);
        return false;
    }

    /** GET_REP at rxHead; false when the frame is incomplete (or malformed: then failed). */
    private boolean getReply(final int avail, final long data) {
        final TcpChannel c = ch;
        final int h = c.rxHead;
        final int slot = (int) (opsDone & OPS_MASK);
        final byte kind = opKind[slot];
        if (opsDone == opsIssued || (kind != OP_GET_BCOPY && kind != OP_GET_ZCOPY)
            || c.rx.get(I32, h + 8) != (int) opsDone) {
            return malformed();
        }
        final Status st = Status.of(c.rx.get(I32, h + 12));
        if (!isReplyStatus(st) || (st == Status.OK ? data != opLen[slot] : data != 0)) {
            return malformed();
        }
        final int fixed = TcpFrame.HEADER + TcpFrame.GET_REP_FIXED;
        final boolean whole = fixed + data <= c.rxCap;
        if (whole && avail < fixed + data) {
            more(fixed + (int) data);
            return false;
        }
        iface.countersInternal().add(Counter.RX_BYTES, data);
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
            return true;
        }
        // only zcopy gets exceed the rx buffer: scatter what is here, receive the rest in place
        final int take = avail - fixed;
        c.rxHead = c.rxTail;
        streaming = true;
        streamLeft = data;
        streamEntry = 0;
        streamEntryOff = 0;
        scatterStream(c.rxBase + h + fixed, take);
        return true;
    }

    /** Copies {@code n} bytes at {@code address} into the iov of the head op at the stream cursor. */
    private void scatterStream(final long address, final long n) {
        final IoVector iov = opIov[(int) (opsDone & OPS_MASK)];
        long done = 0;
        while (done < n) {
            final long room = iov.length(streamEntry) - streamEntryOff;
            if (room == 0) {
                streamEntry++;
                streamEntryOff = 0;
                continue;
            }
            final long k = Math.min(room, n - done);
            MemorySegment.copy(TcpInterface.ALL, address + done, iov.segment(streamEntry),
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
            ch.rxHead = 0;
            ch.rxTail = 0;
            completeOp((int) (opsDone & OPS_MASK), Status.OK);
        }
    }

    /** Receives streamed get data straight into the user's iov: 1 progress, 0 none, -1 failed. */
    private int streamIn() {
        final IoVector iov = opIov[(int) (opsDone & OPS_MASK)];
        while (iov.length(streamEntry) == streamEntryOff) {
            streamEntry++;
            streamEntryOff = 0;
        }
        final long room = Math.min(iov.length(streamEntry) - streamEntryOff, streamLeft);
        final long n = ch.recv(iov.segment(streamEntry).address() + iov.offset(streamEntry) + streamEntryOff, room);
        if (n == -LibC.EAGAIN) {
            return 0;
        }
        if (n <= 0) {
            fail(Status.CONNECTION_RESET, true);
            return -1;
        }
        streamEntryOff += n;
        streamAdvance(n);
        return failStatus == null ? 1 : -1;
    }

    private void completeOp(final int slot, final Status st) {
        final Completion c = opComp[slot];
        opComp[slot] = null;
        opIov[slot] = null;
        opUnpacker[slot] = null;
        opResult[slot] = null;
        opsDone++;
        if (st != Status.OK) {
            iface.countersInternal().increment(Counter.ERRORS);
        }
        if (c != null) {
            c.complete(st);
        }
        completeWaiters();
    }

    /** A put (or post atomic) was refused by the target. */
    private void putFailed(final long seq, final Status st) {
        iface.countersInternal().increment(Counter.ERRORS);
        if (putError == null) {
            putError = st;
        }
        for (long w = waitHead; w < waitTail; w++) {
            final int i = (int) (w & WAIT_MASK);
            if (wKind[i] == W_PUT && wPut[i] == seq) {
                wStatus[i] = st;
            }
        }
    }

    /** Completes the waiters whose conditions hold, in order. */
    private void completeWaiters() {
        while (waitHead != waitTail) {
            final int i = (int) (waitHead & WAIT_MASK);
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
     * Marks the endpoint failed and closes its socket. From progress, outstanding operations
     * complete and the error handler runs now; from an operation call they are deferred to the
     * next progress.
     */
    void fail(final Status st, final boolean fromProgress) {
        if (failStatus != null) {
            return;
        }
        failStatus = st;
        LOG.log(System.Logger.Level.INFO, "tcp: endpoint failed: {0}", st);
        ch.close();
        if (fromProgress) {
            notifyFailure();
        } else {
            iface.deferFailure(this);
        }
    }

    /** Completes everything outstanding with the failure and tells the error handler (progress only). */
    void notifyFailure() {
        if (failureNotified || closed) {
            return;
        }
        failureNotified = true;
        drain(failStatus);
        iface.countersInternal().increment(Counter.ERRORS);
        iface.endpointFailed(this, failStatus);
    }

    private void drain(final Status st) {
        streaming = false;
        while (opsDone != opsIssued) {
            final int slot = (int) (opsDone & OPS_MASK);
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
            final int i = (int) (waitHead++ & WAIT_MASK);
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

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (failStatus == null) {
            failStatus = Status.CLOSED;
        }
        ch.close();
        closed = true;
        drain(Status.CANCELED);
        iface.removeEndpoint(this);
    }
}
