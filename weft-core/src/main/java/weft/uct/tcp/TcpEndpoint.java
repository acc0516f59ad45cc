package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
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

import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * The requester role towards one peer interface: requests and AMs go out on one {@link TcpConnection}; replies
 * come back on it in request order. The connection is the socket this endpoint opened, or, with one socket per
 * peer pair, a socket the peer opened (at connect, or by a switch: {@link TcpSocketSwitch}).
 *
 * <p>Whether a request may go now is {@link TcpSendGate}'s to say: the sharing rules of a socket both peers'
 * requesters use, and the replay window.
 *
 * <p>Bookkeeping without allocation: gets and fetching atomics sit in a ring of op slots matched with
 * their replies in order; puts and post atomics carry a sequence number acknowledged cumulatively by
 * PUT_ACK; completions wait for "bytes written", "acked up to seq" or "replies up to op n" in a FIFO.
 */
final class TcpEndpoint extends AbstractEndpoint {
    private static final System.Logger LOG = System.getLogger("weft.uct.tcp");

    final TcpInterface iface;
    /** The socket this endpoint's requests go to (changes once at most, by a switch). */
    TcpConnection conn;
    TcpChannel ch;
    final int targetIp;
    final int targetPort;
    /** Says whether a request may take room on the socket now (sharing rules, replay window). */
    final TcpSendGate gate = new TcpSendGate(this);
    /** Moving to a socket the peer opened (one socket per peer pair). */
    final TcpSocketSwitch move = new TcpSocketSwitch(this);
    long kaSent;
    long kaAcked;
    /** A request went out on this endpoint's current socket (beyond the hello). */
    boolean sentAny;
    /** Stream position after this endpoint's last frame: what a flush waits to see written. */
    long ownTx;

    /** null while usable; the error every operation returns once failed or closed. */
    private Status failStatus;
    private boolean closed;
    boolean failureNotified;

    long putSeq;
    /** The sequence of the last putZcopy: its memory is referenced (spliced, replayable) until acknowledged. */
    private long refPutSeq;
    long ackedSeq;
    /** The last put a KEEPALIVE asked the target to acknowledge (a flush asks; zero-copy puts ask themselves). */
    private long askedSeq;
    private Status putError;

    /** Gets and fetching atomics waiting for their replies, with the reply credits they hold. */
    final TcpOpRing ops = new TcpOpRing();
    /** Completions waiting for bytes written, puts acknowledged or replies received. */
    final TcpWaiters waits = new TcpWaiters();

    /** Decodes the replies to this endpoint's requests (and streams large get data in place). */
    final TcpReplyReader replies = new TcpReplyReader(this);

    /** An endpoint on a socket of its own (queues the hello; operations queue behind it). */
    TcpEndpoint(final TcpInterface iface, final int ip, final int port, final byte[] secretDigest,
                final byte[] acceptDigest) {
        this.iface = iface;
        this.targetIp = ip;
        this.targetPort = port;
        this.conn = TcpHandshake.connect(iface, this, ip, port, secretDigest, acceptDigest);
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
        this.gate.shared = accepted.shared;
    }

    @Override
    public Interface iface() {
        return iface;
    }

    @Override
    protected boolean hasResources() {
        return failStatus != null || gate.hasRoom();
    }

    // ---------------------------------------------------------------- send helpers

    private Status noResource() {
        iface.counters().increment(Counter.NO_RESOURCE);
        return Status.NO_RESOURCE;
    }

    /** Commits a frame; false if a socket error failed the endpoint (a resuming one keeps the frame queued). */
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
        final int off = gate.reserve(total, 0);
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
        if (ch.txFirst()) {
            return amBcopyAside(id, packer, seg);
        }
        final int off = gate.reserve(TcpFrame.HEADER + seg, 0);
        if (off < 0) {
            return noResource().code();
        }
        return amFrame(off, id, packer.pack(ch.tx, off + TcpFrame.HEADER, seg), seg);
    }

    /** The channel's tx ring is still its first, small one: packs aside, then takes the room the AM needs. */
    private long amBcopyAside(final int id, final Packer packer, final int seg) {
        if (!gate.mayQueue(TcpFrame.HEADER + seg, 0)) {
            return noResource().code();
        }
        final MemorySegment aside = iface.packAside();
        final long len = packer.pack(aside, 0, seg);
        if (len < 0 || len > seg) {
            return Status.INVALID_PARAM.code();
        }
        final int off = ch.reserve(TcpFrame.HEADER + (int) len); // fits, or the ring grows
        if (off < 0) {
            return noResource().code();
        }
        MemorySegment.copy(aside, 0, ch.tx, off + TcpFrame.HEADER, len);
        return amFrame(off, id, len, seg);
    }

    /** Completes an AM frame whose {@code len} payload bytes were packed at {@code off} + HEADER. */
    private long amFrame(final int off, final int id, final long len, final int seg) {
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
            || data > TcpFrame.MAX_AM_ZCOPY || iov.count() > TcpInterface.MAX_IOV || !iov.isNative()) {
            return Status.INVALID_PARAM;
        }
        final int off = gate.reserve(TcpFrame.HEADER + headerLength, 0);
        if (off < 0 || ch.iovFree() < iov.count() + 1 || !waits.room()) {
            return noResource();
        }
        TcpFrame.header(ch.tx, off, TcpFrame.AM, id, 0, (int) (headerLength + data));
        MemoryCopy.copy(header, headerOffset, ch.tx, off + TcpFrame.HEADER, headerLength);
        countTx(headerLength + data);
        return sendWithIov(off, TcpFrame.HEADER + headerLength, iov, TcpWaiters.TX, 0, completion);
    }

    /** Queues a header and the iov's memory, writes what the socket takes: OK if done, else a waiter and IN_PROGRESS. */
    private Status sendWithIov(final int off, final int hdrLen, final IoVector iov, final byte kind, final long seq,
                               final Completion completion) {
        final boolean wasEmpty = ch.txEmpty() || ch.ackRidesNext();
        sentAny = true;
        ch.queue(off, hdrLen);
        for (int i = 0; i < iov.count(); i++) {
            // a put's memory stays as it is until the target's acknowledgement (it may be spliced,
            // and the replay log refers to it); an AM's only until written (the log copies it)
            ch.appendUser(iov.segment(i).address() + iov.offset(i), iov.length(i),
                kind == TcpWaiters.PUT ? TcpReplayLog.REF : TcpReplayLog.COPY);
        }
        ownTx = ch.bytesQueued;
        if (wasEmpty && ch.flushTx() < 0) {
            conn.writeFailed(false);
            if (failStatus != null) {
                return failStatus;
            }
        }
        if (kind == TcpWaiters.TX && ch.bytesWritten >= ch.bytesQueued) {
            return Status.OK;
        }
        waits.add(kind, ch.bytesQueued, kind == TcpWaiters.PUT ? seq : 0, 0, completion);
        return Status.IN_PROGRESS;
    }

    // ---------------------------------------------------------------- put

    @Override
    public Status putShort(final MemorySegment src, final long offset, final int length, final long remoteAddress,
                           final RemoteKey rkey) {
        final Status bad = checkRma(rkey, remoteAddress, length);
        if (bad != null) {
            return bad;
        }
        if (length > iface.segSize) {
            return Status.INVALID_PARAM;
        }
        final int total = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED + length;
        final int off = gate.reserve(total, 16);
        if (off < 0) {
            return noResource();
        }
        putHeader(off, length, remoteAddress, (TcpMemoryDomain.Key) rkey, 0);
        MemoryCopy.copy(src, offset, ch.tx, off + TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED, length);
        return commit(off, total) ? Status.OK : failStatus;
    }

    /**
     * A PUT_REQ frame (the data copied into the tx ring, up to a segment) and the signal's ATOMIC_REQ behind it
     * in one write; the target serves them in order.
     */
    @Override
    public Status putShortSignal(final MemorySegment src, final long offset, final int length, final long remoteAddress,
                                 final RemoteKey rkey, final AtomicOp signalOp, final long signal,
                                 final long signalAddress, final RemoteKey signalKey) {
        final Status badPut = checkRma(rkey, remoteAddress, length);
        final Status bad = badPut != null ? badPut : checkRma(signalKey, signalAddress, 8);
        if (bad != null || length > iface.segSize || !signalOp.postable() || (signalAddress & 7) != 0) {
            return bad != null ? bad : Status.INVALID_PARAM;
        }
        final int put = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED + length;
        final int total = put + TcpFrame.HEADER + TcpFrame.ATOMIC_REQ_LEN;
        final int off = gate.reserve(total, 32);
        if (off < 0) {
            return noResource();
        }
        putHeader(off, length, remoteAddress, (TcpMemoryDomain.Key) rkey, 0);
        MemoryCopy.copy(src, offset, ch.tx, off + put - length, length);
        atomicFrame(off + put, signalOp, 8, true, (int) ++putSeq, signal, 0, signalAddress, (TcpMemoryDomain.Key) signalKey);
        return commit(off, total) ? Status.OK : failStatus;
    }

    private void putHeader(final int off, final long length, final long address, final TcpMemoryDomain.Key k,
                           final int flags) {
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.PUT_REQ, 0, flags, (int) (TcpFrame.PUT_REQ_FIXED + length));
        tx.set(I32, off + 8, (int) ++putSeq);
        tx.set(I32, off + 12, 0);
        TcpFrame.rmaTarget(tx, off, address, k.regionId, k.incarnation);
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
        final int off = gate.reserve(fixed + seg, 16);
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
        putHeader(off, len, remoteAddress, (TcpMemoryDomain.Key) rkey, 0);
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
        if (len > TcpFrame.MAX_RMA || iov.count() > TcpInterface.MAX_IOV || !iov.isNative()) {
            return Status.INVALID_PARAM;
        }
        final int fixed = TcpFrame.HEADER + TcpFrame.PUT_REQ_FIXED;
        final int off = gate.reserve(fixed, 16);
        if (off < 0 || ch.iovFree() < iov.count() + 1 || !waits.room()) {
            return noResource();
        }
        putHeader(off, len, remoteAddress, (TcpMemoryDomain.Key) rkey, TcpFrame.FLAG_ACK); // memory by reference
        refPutSeq = putSeq;
        return sendWithIov(off, fixed, iov, TcpWaiters.PUT, putSeq, completion);
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
        final int slot = getRequest(length, remoteAddress, (TcpMemoryDomain.Key) rkey, TcpOpRing.GET_BCOPY, completion);
        if (slot < 0) {
            return slot == -1 ? noResource() : failStatus;
        }
        ops.unpacker[slot] = unpacker;
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
        if (len > TcpFrame.MAX_RMA || !iov.isNative()) {
            return Status.INVALID_PARAM;
        }
        final int slot = getRequest(len, remoteAddress, (TcpMemoryDomain.Key) rkey, TcpOpRing.GET_ZCOPY, completion);
        if (slot < 0) {
            return slot == -1 ? noResource() : failStatus;
        }
        ops.iov[slot] = ops.keepIov(slot, iov);
        return Status.IN_PROGRESS;
    }

    /** Sends GET_REQ; the op slot, -1 for no resource, -2 if the endpoint failed. */
    private int getRequest(final long len, final long address, final TcpMemoryDomain.Key k, final byte kind,
                           final Completion completion) {
        final int total = TcpFrame.HEADER + TcpFrame.GET_REQ_LEN;
        final boolean big = len > TcpServerConnection.GET_COPY_MAX;
        final int reply = TcpFrame.HEADER + TcpFrame.GET_REP_FIXED + (big ? 0 : (int) len);
        final int off = gate.reserve(total, reply);
        if (off < 0 || !ops.room()) {
            return -1;
        }
        final long n = ops.issued;
        final int slot = ops.issue(kind, reply, big, completion);
        ops.len[slot] = len;
        final MemorySegment tx = ch.tx;
        TcpFrame.header(tx, off, TcpFrame.GET_REQ, 0, 0, TcpFrame.GET_REQ_LEN);
        tx.set(I32, off + 8, (int) n);
        tx.set(I32, off + 12, (int) len);
        TcpFrame.rmaTarget(tx, off, address, k.regionId, k.incarnation);
        iface.counters().increment(Counter.GETS);
        return commit(off, total) ? slot : -2;
    }

    // ---------------------------------------------------------------- atomics

    private Status atomicPost(final AtomicOp op, final int size, final long value, final long address,
                              final RemoteKey rkey) {
        if (!op.postable()) {
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
        final int off = gate.reserve(total, 16);
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
        TcpFrame.rmaTarget(tx, off, address, k.regionId, k.incarnation);
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
        final int off = gate.reserve(total, reply);
        if (off < 0 || !ops.room()) {
            return noResource();
        }
        final long n = ops.issued;
        final int slot = ops.issue(TcpOpRing.ATOMIC, reply, false, completion);
        ops.result[slot] = result;
        ops.resultOff[slot] = resultOffset;
        ops.size[slot] = (byte) size;
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
        return op == AtomicOp.CSWAP ? Status.INVALID_PARAM
            : atomicFetch(op, 8, value, 0, result, resultOffset, remoteAddress, rkey, completion);
    }

    @Override
    public Status atomic32Fetch(final AtomicOp op, final int value, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        return op == AtomicOp.CSWAP ? Status.INVALID_PARAM
            : atomicFetch(op, 4, value, 0, result, resultOffset, remoteAddress, rkey, completion);
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
     * that a buffered put_short has landed; the target defers OK acks, so such a flush first sends a
     * KEEPALIVE, which it answers after them. A put refused by the target makes the next flush
     * complete with that error. FLUSH_SENT completes when every byte left the socket and every putZcopy (whose
     * memory goes by reference) was acknowledged; it waits for no other ack and no reply.
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
        final boolean sent = (flags & Interface.FLUSH_SENT) != 0;
        final long seq = sent ? refPutSeq : putSeq;
        if (ch.bytesWritten >= ownTx && ackedSeq >= seq && (sent || ops.isEmpty() && waits.isEmpty())) {
            final Status e = sent ? null : putError;
            putError = sent ? putError : null;
            return e == null ? Status.OK : e;
        }
        final boolean ask = !sent && askedSeq < putSeq && ackedSeq < putSeq; // the target defers put acks until asked
        if (!waits.room() || ask && !keepalive()) {
            return noResource();
        }
        askedSeq = ask ? putSeq : askedSeq;
        waits.add(sent ? TcpWaiters.TX : TcpWaiters.FLUSH, ownTx, seq, sent ? 0 : ops.issued, completion);
        return Status.IN_PROGRESS;
    }

    @Override
    public Status fence() {
        // one ordered stream, served in order by the target: later operations cannot pass earlier
        // ones (a switch to another socket waits until the old one was served: see TcpSocketSwitch)
        return failStatus != null ? failStatus : Status.OK;
    }

    /** Sends a KEEPALIVE frame; a dead peer shows up as a reset from progress. */
    @Override
    public Status check() {
        if (failStatus == null) {
            keepalive();
        }
        return failStatus != null ? failStatus : Status.OK;
    }

    /** Queues a KEEPALIVE, which the target answers after its deferred put acks; false if there is no room. */
    private boolean keepalive() {
        final int off = gate.reserve(TcpFrame.HEADER, TcpFrame.HEADER);
        if (off < 0) {
            return false;
        }
        TcpFrame.header(ch.tx, off, TcpFrame.KEEPALIVE, 0, 0, 0);
        kaSent++;
        commit(off, TcpFrame.HEADER);
        return true;
    }

    // ---------------------------------------------------------------- progress side

    /** The connection wrote some of its queue (progress): completes what waited for it. */
    void txProgress() {
        if (failStatus != null) {
            return;
        }
        completeWaiters();
        move.advance(true);
    }

    /** The connection handled a batch of frames (progress). */
    void afterRead() {
        if (failStatus == null) {
            completeWaiters(); // a reply written while reading (a keepalive's, an ACK) may have flushed our queue too
            move.advance(true);
        }
    }

    /** The connection's ACCEPT frame checked out: the socket may now be shared. */
    void accepted() {
        if (!move.holding()) {
            gate.shared = conn.shared;
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

    // ---------------------------------------------------------------- replies (decoded by TcpReplyReader)

    /** A PUT_ACK: puts up to {@code seq} are acknowledged; {@code st} is not OK if the last one was refused. */
    void acked(final long seq, final Status st) {
        ackedSeq = seq;
        if (st != Status.OK) {
            putFailed(seq, st);
        }
        completeWaiters();
    }

    /** A put (or post atomic) was refused by the target. */
    private void putFailed(final long seq, final Status st) {
        iface.counters().increment(Counter.ERRORS);
        if (putError == null) {
            putError = st;
        }
        waits.putFailed(seq, st);
    }

    /** Completes the waiters whose conditions hold, in order. */
    void completeWaiters() {
        while (waits.headDue(ch.bytesWritten, ackedSeq, ops.done)) {
            Status st = waits.headStatus();
            final boolean flush = waits.headIsFlush();
            final Completion c = waits.pop();
            if (flush && putError != null) {
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

    /** The socket failed: outstanding operations complete and the error handler runs (from an op call: at next progress). */
    void connectionLost(final Status st, final boolean fromProgress) {
        if (failStatus != null) {
            return;
        }
        failStatus = st;
        LOG.log(System.Logger.Level.DEBUG, "tcp: endpoint failed: {0}", st); // the error handler tells the user
        move.leave();
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
        move.leave();
        conn.detach(this);
        iface.deferFailure(this);
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
        replies.stop();
        ops.drain(st);
        waits.drain(st);
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
        move.leave();
        conn.detach(this); // closes the socket unless the peer may still use it
        closed = true;
        drain(Status.CANCELED);
        iface.endpointClosed(this);
    }
}
