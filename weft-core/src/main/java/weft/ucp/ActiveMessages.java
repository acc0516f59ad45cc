package weft.ucp;

import weft.ucs.LogLimit;
import weft.ucs.Status;
import weft.ucp.wire.AmHeader;
import weft.ucp.wire.FragmentHeader;
import weft.ucp.wire.KeyList;
import weft.ucp.wire.RtsHeader;
import weft.ucs.WeftException;
import weft.ucs.memory.MemoryCopy;
import weft.uct.AmHandler;
import weft.uct.Interface;
import weft.uct.MemoryHandle;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * User active messages of one worker: the handler table, the send protocols (eager short, eager
 * single bcopy, eager multi-fragment, rendezvous) and the receive side (reassembly, keeping data,
 * pulling rendezvous data). Wire layouts are in {@link AmId}.
 *
 * <p>Protocol per send: no header, no reply and data ≤ the lane's short limit → AM_SHORT (inline, no
 * allocation); header + data fit one bcopy → AM_SINGLE; data at or above the endpoint's rendezvous
 * threshold → AM_RTS (the receiver's handler decides: pull into its buffer with get or, without a get
 * lane, by asking the sender to stream it; or drop); otherwise AM_FIRST + AM_MIDDLE fragments of
 * header+data, reassembled in a buffer of the worker's unexpected pool. {@link AmFlags#SEND_EAGER} and
 * {@link AmFlags#SEND_RNDV} force a side.
 *
 * <p>Received messages are described by pooled {@link AmMessage} objects (nothing is allocated per
 * message once warm). A kept eager message holds either the transport descriptor (when the transport
 * allows it: shm) or a copy in the unexpected pool.
 */
final class ActiveMessages extends SendProtocol {
    private static final System.Logger LOG = System.getLogger(ActiveMessages.class.getName());
    /** Largest user AM id. */
    static final int MAX_ID = 0xFFFF;

    private static final int ST_SHORT = 0;
    private static final int ST_SINGLE = 1;
    private static final int ST_FRAGMENTS = 2;
    private static final int ST_MIDDLES = 3;

    private final Worker worker;
    private AmRecvHandler[] handlers = new AmRecvHandler[16];
    private int[] handlerFlags = new int[16];
    private AmMessage[] free = new AmMessage[16];
    private int freeCount;
    private final AmPacker packer = new AmPacker();
    private long unknownIds;
    private long malformed;

    ActiveMessages(final Worker worker) {
        this.worker = worker;
    }

    /** Installs the uct handlers on one interface (each lambda is allocated once, here). */
    void register(final Interface i) {
        i.setAmHandler(AmId.AM_SHORT, (d, o, l, f) -> onShort(i, d, o, l, f));
        i.setAmHandler(AmId.AM_SINGLE, (d, o, l, f) -> onSingle(i, d, o, l, f));
        i.setAmHandler(AmId.AM_FIRST, this::onFirst);
        i.setAmHandler(AmId.AM_MIDDLE, this::onMiddle);
        i.setAmHandler(AmId.AM_RTS, this::onRts);
    }

    long unknownIds() {
        return unknownIds;
    }

    long malformed() {
        return malformed;
    }

    // ------------------------------------------------------------------ handlers

    void setHandler(final int id, final AmRecvHandler h, final int flags) {
        if (id < 0 || id > MAX_ID) {
            throw new WeftException(Status.INVALID_PARAM, "AM id " + id + " is outside 0.." + MAX_ID);
        }
        if ((flags & ~AmFlags.HANDLER_ALL) != 0) {
            throw new WeftException(Status.INVALID_PARAM, "unknown AM handler flags 0x" + Integer.toHexString(flags));
        }
        if (id >= handlers.length) {
            final int n = Math.max(handlers.length * 2, Integer.highestOneBit(id) * 2);
            handlers = Arrays.copyOf(handlers, n);
            handlerFlags = Arrays.copyOf(handlerFlags, n);
        }
        handlers[id] = h;
        handlerFlags[id] = flags;
    }

    private AmRecvHandler handler(final int id) {
        return id >= 0 && id < handlers.length ? handlers[id] : id > MAX_ID ? internal(id) : null;
    }

    /** The handlers of internal ids (above every user id): emulated put/get ({@link SoftRma}). */
    private AmRecvHandler internal(final int id) {
        if (id == SoftRma.SOFT_PUT) {
            return softPut;
        }
        return id == SoftRma.SOFT_GET_DATA ? softGetData : null;
    }

    private AmRecvHandler softPut;
    private AmRecvHandler softGetData;

    void setInternalHandlers(final SoftRma soft) {
        softPut = soft.handler(SoftRma.SOFT_PUT);
        softGetData = soft.handler(SoftRma.SOFT_GET_DATA);
    }

    // ------------------------------------------------------------------ send

    Request send(final Endpoint ep, final int id, final MemorySegment header, final long hOff, final long hLen,
                 final MemorySegment data, final long off, final long len, final int flags,
                 final RequestCallback cb) {
        final Worker w = worker;
        w.guard.enter();
        try {
            final MemorySegment d = data == null ? MemorySegment.NULL : data;
            Datatypes.checkRange(d, off, len);
            if (hLen == 0 && len <= ep.thresholds.maxShort && cb == null && (flags & ~AmFlags.SEND_EAGER) == 0
                && id >= 0 && id <= MAX_ID && ep.queue.isEmpty() && ep.status() == Status.OK) {
                final Status st = ep.amEp.amShort(AmId.AM_SHORT, AmHeader.word(id, flags), d, off, (int) len);
                if (st != Status.NO_RESOURCE) {
                    return Request.done(st);
                }
            }
            if (ep.connecting != null && ep.status() == Status.OK) {
                worker.checkOpen();
                checkSend(id, header, hOff, hLen, flags, false);
                return ep.connecting.defer(cb, done -> send(ep, id, header, hOff, hLen, data, off, len, flags, done));
            }
            final Request r = sendSlow(ep, id, header, hOff, hLen, d, off, len, flags, cb, false, null);
            if (!r.completed) {
                ep.queue.progress();
            }
            return worker.finishImmediate(r);
        } finally {
            w.guard.exit();
        }
    }

    /**
     * Sends an internal message ({@link SoftRma}) eager (never rendezvous: its data must not be queued again
     * behind a fence that waits for its answer) with the user protocols; the caller holds the guard.
     * {@code after}: the queued request that sends it, which it must follow at once (a fence may be queued
     * behind that one, waiting for this message's answer), or null to queue it in order. It is sent inside
     * the call only when {@code now} and nothing is queued.
     */
    Request sendInternal(final Endpoint ep, final int id, final MemorySegment header, final long hLen,
                         final MemorySegment data, final long off, final long len, final Request after,
                         final boolean now) {
        final Request r = sendSlow(ep, id, header, 0, hLen, data, off, len, AmFlags.SEND_EAGER, null, true, after);
        if (now && after == null && !r.completed && ep.queue.head() == r) {
            ep.queue.progress();
        }
        return worker.finishImmediate(r);
    }

    /** The checks of a send's id, flags and header; returns the header (NULL for none). */
    private static MemorySegment checkSend(final int id, final MemorySegment header, final long hOff, final long hLen,
                                           final int flags, final boolean internal) {
        if (id < 0 || id > MAX_ID && !internal) {
            throw new WeftException(Status.INVALID_PARAM, "AM id " + id + " is outside 0.." + MAX_ID);
        }
        if ((flags & ~AmFlags.SEND_ALL) != 0
            || (flags & (AmFlags.SEND_EAGER | AmFlags.SEND_RNDV)) == (AmFlags.SEND_EAGER | AmFlags.SEND_RNDV)) {
            throw new WeftException(Status.INVALID_PARAM, "bad AM send flags 0x" + Integer.toHexString(flags));
        }
        final MemorySegment h = header == null ? MemorySegment.NULL : header;
        Datatypes.checkRange(h, hOff, hLen);
        return h;
    }

    private Request sendSlow(final Endpoint ep, final int id, final MemorySegment header, final long hOff,
                             final long hLen, final MemorySegment data, final long off, final long len,
                             final int flags, final RequestCallback cb, final boolean internal,
                             final Request after) {
        worker.checkOpen();
        final MemorySegment h = checkSend(id, header, hOff, hLen, flags, internal);
        final Request r = worker.acquire(Request.AM_SEND);
        r.ep = ep;
        r.callback = cb;
        if (ep.status() != Status.OK) {
            worker.complete(r, ep.status());
            return r;
        }
        r.buffer = data;
        r.offset = off;
        r.capacity = len;
        r.length = len;
        r.amSend.active = true;
        r.amSend.id = id;
        r.amSend.flags = flags;
        r.amSend.header = h;
        r.amSend.headerOffset = hOff;
        r.amSend.headerLength = hLen;
        if (internal && hLen <= AmSendState.OWN_HEADER) { // the caller's scratch: no header object per message
            MemorySegment.copy(h, hOff, r.amSend.ownHeader, 0, hLen);
            r.amSend.header = r.amSend.ownHeader;
            r.amSend.headerOffset = 0;
        }
        final ProtocolThresholds t = ep.thresholds;
        final boolean rndv = (flags & AmFlags.SEND_RNDV) != 0
            || (flags & AmFlags.SEND_EAGER) == 0 && len >= t.rndvThresh && hLen <= t.maxBcopy / 4;
        if (rndv) {
            r.kind = Request.RNDV_SEND;
            r.sendStage = RndvSend.ST_RTS;
            worker.inflight.register(r);
        } else if (hLen == 0 && len <= t.maxShort && (flags & AmFlags.SEND_REPLY) == 0) {
            r.sendStage = ST_SHORT;
        } else if (AmHeader.SINGLE_LENGTH + hLen + len <= t.maxBcopy) {
            r.sendStage = ST_SINGLE;
        } else {
            r.sendStage = ST_FRAGMENTS;
        }
        if (after != null) {
            ep.queue.insertAfter(after, r);
        } else {
            ep.queue.add(r);
        }
        return r;
    }

    /** Advances a queued eager AM send (called from the endpoint's send queue); OK = it left the queue. */
    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        final weft.uct.Endpoint u = ep.amEp;
        final boolean reply = (r.amSend.flags & AmFlags.SEND_REPLY) != 0;
        final Status st;
        switch (r.sendStage) {
            case ST_SHORT -> st = u.amShort(AmId.AM_SHORT, AmHeader.word(r.amSend.id, r.amSend.flags), r.buffer, r.offset,
                (int) r.capacity);
            case ST_SINGLE -> {
                if (reply && ep.remoteId < 0) {
                    return Status.NO_RESOURCE; // the reply endpoint is named by the peer's id: wait for wireup
                }
                packer.set(AmPacker.SINGLE, r, 0, r.amSend.headerLength + r.capacity);
                st = Status.ofLength(u.amBcopy(AmId.AM_SINGLE, packer));
            }
            default -> st = sendFragments(ep, r);
        }
        if (st == Status.OK) {
            worker.complete(r, Status.OK);
        }
        return st;
    }

    private Status sendFragments(final Endpoint ep, final Request r) {
        if (ep.remoteId < 0) {
            return Status.NO_RESOURCE; // fragments name the peer's endpoint: wait for wireup
        }
        final long total = r.amSend.headerLength + r.capacity;
        final long frag0 = ep.thresholds.maxBcopy - AmHeader.FIRST_LENGTH;
        final long fragN = ep.thresholds.maxBcopy - FragmentHeader.LENGTH;
        if (frag0 <= 0) {
            return Status.BUFFER_TOO_SMALL;
        }
        while (true) {
            final long pos = r.moved;
            final boolean first = r.sendStage == ST_FRAGMENTS;
            final long n = Math.min(total - pos, first ? frag0 : fragN);
            packer.set(first ? AmPacker.FIRST : AmPacker.MIDDLE, r, pos, n);
            final long st = ep.amEp.amBcopy(first ? AmId.AM_FIRST : AmId.AM_MIDDLE, packer);
            if (st < 0) {
                return Status.ofLength(st);
            }
            r.sendStage = ST_MIDDLES;
            r.moved = pos + n;
            if (r.moved >= total) {
                return Status.OK;
            }
        }
    }

    /** Sends the RTS of a rendezvous AM: registers the data (get lanes) and carries the user header. */
    private static final MemoryHandle[] NO_HANDLES = new MemoryHandle[0];
    private static final byte[][] NO_KEYS = new byte[0][];

    Status sendRts(final Endpoint ep, final Request r) {
        if (ep.remoteId < 0) {
            return Status.NO_RESOURCE;
        }
        if (r.rndv.handles == null) {
            // Java-heap data cannot be registered (no fixed native address): the receiver asks for it (RTR)
            final boolean get = ep.thresholds.rndvGet && r.capacity > 0 && r.buffer.isNative();
            try {
                r.rndv.handles = get ? ep.rndvCache.acquireHandles(r.buffer, r.offset, r.capacity) : NO_HANDLES;
            } catch (final WeftException e) {
                ep.rndvCache.release(r);
                return e.status();
            }
        }
        // keys are looked up again on a retry: the packer is shared by every endpoint of the worker
        final byte[][] keys = r.rndv.handles.length == 0 ? NO_KEYS : ep.rndvCache.packedKeys(r.rndv.handles);
        final long size = RtsHeader.LENGTH + AmHeader.RTS_TRAILER + r.amSend.headerLength + KeyList.wireLength(keys);
        if (size > ep.thresholds.maxBcopy) {
            return Status.BUFFER_TOO_SMALL; // a header this large cannot ride in the RTS: send it eager
        }
        packer.set(AmPacker.RTS, r, 0, 0);
        packer.keys = keys;
        final long n = ep.amEp.amBcopy(AmId.AM_RTS, packer);
        packer.keys = null;
        if (n < 0) {
            return Status.ofLength(n);
        }
        r.sendStage = RndvSend.ST_WAIT; // the peer answers with ATS (got or dropped it) or RTR (send it)
        return Status.OK;
    }

    // ------------------------------------------------------------------ receive

    private Status onShort(final Interface iface, final MemorySegment d, final long o, final long l, final int f) {
        if (l < AmHeader.SHORT_LENGTH) {
            return dropMalformed("AM_SHORT of " + l + " bytes");
        }
        final long w = AmHeader.word(d, o);
        return deliver(iface, AmHeader.id(w), AmHeader.flags(w), null, MemorySegment.NULL, 0, 0, d,
            o + AmHeader.SHORT_LENGTH, l - AmHeader.SHORT_LENGTH, o, f);
    }

    private Status onSingle(final Interface iface, final MemorySegment d, final long o, final long l, final int f) {
        if (l < AmHeader.SINGLE_LENGTH) {
            return dropMalformed("AM_SINGLE of " + l + " bytes");
        }
        final long w = AmHeader.word(d, o);
        final long hLen = AmHeader.headerLength(d, o);
        final long replyId = AmHeader.replyEp(d, o);
        if (hLen < 0 || hLen > l - AmHeader.SINGLE_LENGTH) {
            return dropMalformed("AM_SINGLE with header length " + hLen + " in a message of " + l);
        }
        final long h = o + AmHeader.SINGLE_LENGTH;
        return deliver(iface, AmHeader.id(w), AmHeader.flags(w), replyEndpoint(replyId), d, h, hLen, d, h + hLen,
            l - AmHeader.SINGLE_LENGTH - hLen, o, f);
    }

    private Endpoint replyEndpoint(final long replyId) {
        return replyId >= 0 ? worker.epTable.byId(replyId) : null;
    }

    private Status dropMalformed(final String what) {
        if (LogLimit.due(++malformed)) {
            LOG.log(System.Logger.Level.WARNING, "dropping a malformed active message: " + what + " (" + malformed
                + " so far: Worker.amMalformedCount())");
        }
        return Status.OK;
    }

    private void unknownId(final int id) {
        if (unknownIds++ == 0) {
            LOG.log(System.Logger.Level.WARNING, "dropping an active message for id " + id
                + " that has no handler (further ones are only counted: Worker.amUnknownIdCount())");
        }
    }

    /** An eager message in the transport's memory: call the handler, keep the data if it asks to. */
    private Status deliver(final Interface iface, final int id, final int sendFlags, final Endpoint reply,
                           final MemorySegment hSeg, final long hOff, final long hLen, final MemorySegment dSeg,
                           final long dOff, final long dLen, final long msgOffset, final int uctFlags) {
        final AmRecvHandler h = handler(id);
        if (h == null) {
            unknownId(id);
            return Status.OK;
        }
        final AmMessage m = take();
        m.id = id;
        m.sendFlags = sendFlags;
        m.reply = reply;
        m.data = dSeg;
        m.dataOffset = dOff;
        m.dataLength = dLen;
        final boolean desc = (uctFlags & AmHandler.FLAG_DESC) != 0;
        if (desc) {
            m.kind = AmMessage.DESC;
            m.descIface = iface;
            m.descSegment = dSeg;
            m.descOffset = msgOffset;
        } else if (id <= MAX_ID && (handlerFlags[id] & AmFlags.HANDLER_PERSISTENT_DATA) != 0 && !copyToPool(m)) {
            recycle(m);
            return Status.OK;
        }
        final Status st = call(h, hSeg, hOff, hLen, m);
        if (st == Status.IN_PROGRESS && !m.claimed) {
            m.state = AmMessage.KEPT;
            if (m.kind == AmMessage.DESC) {
                return Status.IN_PROGRESS; // the interface leaves the descriptor to us until releaseAmData
            }
            if (m.kind == AmMessage.TRANSIENT && !copyToPool(m)) {
                recycle(m);
            }
            return Status.OK;
        }
        if (!m.claimed && m.kind == AmMessage.POOLED) {
            worker.unexpected.release(m.buffer);
        }
        recycle(m);
        return Status.OK;
    }

    /** Moves transient eager data into a pool buffer; false (counted, logged) if the pool refuses. */
    private boolean copyToPool(final AmMessage m) {
        final TagMessage b;
        try {
            b = worker.unexpected.acquire(m.dataLength);
        } catch (final WeftException e) {
            dropMalformed("cannot keep " + m.dataLength + " bytes: " + e.getMessage());
            return false;
        }
        MemoryCopy.copy(m.data, m.dataOffset, b.data, 0, m.dataLength);
        m.kind = AmMessage.POOLED;
        m.buffer = b;
        m.data = b.data;
        m.dataOffset = 0;
        return true;
    }

    private Status call(final AmRecvHandler h, final MemorySegment hSeg, final long hOff, final long hLen,
                        final AmMessage m) {
        m.state = AmMessage.IN_HANDLER;
        try {
            return h.onReceive(hSeg, hOff, hLen, m.data, m.dataOffset, m.dataLength, m);
        } catch (final RuntimeException e) {
            worker.requests.deferFailure(e); // rethrown by progress(); the message counts as not kept
            return Status.OK;
        }
    }

    private Status onFirst(final MemorySegment d, final long o, final long l, final int f) {
        if (l < AmHeader.FIRST_LENGTH) {
            return dropMalformed("AM_FIRST of " + l + " bytes");
        }
        final long w = AmHeader.word(d, o);
        final long hLen = AmHeader.headerLength(d, o);
        final long replyId = AmHeader.replyEp(d, o);
        final Endpoint ep = worker.epTable.byId(AmHeader.dstEp(d, o));
        final long total = AmHeader.total(d, o);
        final long plen = l - AmHeader.FIRST_LENGTH;
        if (ep == null || total < plen || hLen < 0 || hLen > total) {
            return dropMalformed("AM_FIRST for an unknown endpoint or with bad lengths");
        }
        if (total > worker.context.unexpectedBudget) { // never let a peer make us map more than the budget
            return dropMalformed("eager message of " + total + " bytes exceeds WEFT_UNEXPECTED_BUDGET");
        }
        final TagMessage b;
        try {
            b = worker.unexpected.acquire(total);
        } catch (final WeftException e) {
            return dropMalformed("cannot buffer " + total + " bytes: " + e.getMessage());
        }
        MemoryCopy.copy(d, o + AmHeader.FIRST_LENGTH, b.data, 0, plen);
        b.length = total;
        b.received = plen;
        final AmMessage m = take();
        m.id = (int) w;
        m.sendFlags = (int) (w >>> 32);
        m.reply = replyEndpoint(replyId);
        m.kind = AmMessage.POOLED;
        m.buffer = b;
        m.data = b.data;
        m.dataOffset = hLen;
        m.dataLength = total - hLen;
        if (plen == total) {
            deliverPooled(m);
        } else {
            if (ep.amRx != null) { // the previous message never finished: cannot happen on an ordered lane
                dropRx(ep);
            }
            ep.amRx = m;
        }
        return Status.OK;
    }

    private Status onMiddle(final MemorySegment d, final long o, final long l, final int f) {
        if (l < FragmentHeader.LENGTH) {
            return dropMalformed("AM_MIDDLE of " + l + " bytes");
        }
        final Endpoint ep = worker.epTable.byId(FragmentHeader.id(d, o));
        final long at = FragmentHeader.offset(d, o);
        final long plen = l - FragmentHeader.LENGTH;
        final AmMessage m = ep == null ? null : ep.amRx;
        if (m == null || at != m.buffer.received || at + plen > m.buffer.length) {
            return dropMalformed("AM_MIDDLE out of sequence");
        }
        MemoryCopy.copy(d, o + FragmentHeader.LENGTH, m.buffer.data, at, plen);
        m.buffer.received += plen;
        if (m.buffer.received == m.buffer.length) {
            ep.amRx = null;
            deliverPooled(m);
        }
        return Status.OK;
    }

    /** A reassembled message (header + data in one pool buffer). */
    private void deliverPooled(final AmMessage m) {
        final AmRecvHandler h = handler(m.id);
        if (h == null) {
            unknownId(m.id);
            worker.unexpected.release(m.buffer);
            recycle(m);
            return;
        }
        final Status st = call(h, m.data, 0, m.dataOffset, m);
        if (st == Status.IN_PROGRESS && !m.claimed) {
            m.state = AmMessage.KEPT;
            return;
        }
        if (!m.claimed) {
            worker.unexpected.release(m.buffer);
        }
        recycle(m);
    }

    /** Drops a half-reassembled message (the endpoint failed or closed). */
    void dropRx(final Endpoint ep) {
        final AmMessage m = ep.amRx;
        if (m != null) {
            ep.amRx = null;
            worker.unexpected.release(m.buffer);
            recycle(m);
        }
    }

    private Status onRts(final MemorySegment d, final long o, final long l, final int f) {
        if (!RtsHeader.fits(l)) {
            return dropMalformed("AM_RTS of " + l + " bytes");
        }
        final long w = RtsHeader.tag(d, o); // the am word in place of the tag
        final Endpoint ep = worker.epTable.byId(RtsHeader.dstEp(d, o));
        final long total = RtsHeader.total(d, o);
        final long sreq = RtsHeader.senderReq(d, o);
        final long addr = RtsHeader.address(d, o);
        final int n = RtsHeader.keyCount(d, o);
        if (ep == null || !RtsHeader.fieldsValid(d, o)) {
            return dropMalformed("AM_RTS for an unknown endpoint or with bad fields");
        }
        final long end = o + l;
        final byte[][] keys = ep.rndvCache.keys(d, o + RtsHeader.LENGTH, n, end); // cached: no copy
        if (keys == null) {
            return dropMalformed("AM_RTS keys run past the message");
        }
        long p = o + RtsHeader.LENGTH + KeyList.wireLength(keys);
        if (p + AmHeader.RTS_TRAILER > end) {
            return dropMalformed("AM_RTS without its header trailer");
        }
        final long hLen = AmHeader.rtsHeaderLength(d, p);
        final long replyId = AmHeader.rtsReplyEp(d, p);
        p += AmHeader.RTS_TRAILER;
        if (hLen < 0 || hLen > end - p) {
            return dropMalformed("AM_RTS header length " + hLen);
        }
        final int id = (int) w;
        final AmRecvHandler h = handler(id);
        if (h == null) {
            unknownId(id);
            ep.sendControl(AmId.RNDV_ATS, sreq, Status.NO_ELEMENT.code()); // the sender fails with a clear status
            return Status.OK;
        }
        final AmMessage m = take();
        m.id = id;
        m.sendFlags = (int) (w >>> 32);
        m.reply = replyEndpoint(replyId);
        m.kind = AmMessage.RNDV;
        m.dataLength = total;
        m.rtsEp = ep;
        m.senderReq = sreq;
        m.address = addr;
        m.keys = keys;
        final Status st = call(h, d, p, hLen, m);
        if (m.claimed) {
            recycle(m);
        } else if (st == Status.IN_PROGRESS) {
            m.state = AmMessage.KEPT;
        } else {
            drop(m);
            recycle(m);
        }
        return Status.OK;
    }

    /** Tells the sender of a rendezvous message that nobody wants the data: it completes with OK. */
    private static void drop(final AmMessage m) {
        if (m.rtsEp.status() == Status.OK) {
            m.rtsEp.sendControl(AmId.RNDV_ATS, m.senderReq, Status.OK.code());
        }
    }

    // ------------------------------------------------------------------ user calls on received messages

    private void checkLive(final AmMessage m) {
        if (m == null || m.worker != worker || m.claimed
            || m.state != AmMessage.IN_HANDLER && m.state != AmMessage.KEPT) {
            throw new WeftException(Status.INVALID_PARAM, "active message " + m + " is not live on this worker "
                + "(already received or released, or not kept by its handler)");
        }
    }

    Request recvData(final AmMessage m, final MemorySegment buf, final long off, final long len,
                     final RequestCallback cb) {
        worker.guard.enter();
        try {
            worker.checkOpen();
            checkLive(m);
            Datatypes.checkRange(buf, off, len);
            if (m.kind != AmMessage.RNDV) {
                final long n = Math.min(len, m.dataLength);
                MemoryCopy.copy(m.data, m.dataOffset, buf, off, n);
                final Status st = m.dataLength > len ? Status.MESSAGE_TRUNCATED : Status.OK;
                final long length = m.dataLength;
                final int id = m.id;
                finish(m);
                if (cb == null) {
                    return Request.done(st);
                }
                final Request r = worker.acquire(Request.RECV);
                r.callback = cb;
                r.length = length;
                r.tag = id;
                worker.complete(r, st);
                return r;
            }
            final Request r = worker.acquire(Request.RNDV_RECV);
            r.buffer = buf;
            r.offset = off;
            r.capacity = len;
            r.length = m.dataLength;
            r.tag = m.id;
            r.callback = cb;
            final Endpoint ep = m.rtsEp;
            final long sreq = m.senderReq;
            final long addr = m.address;
            final byte[][] keys = m.keys;
            finish(m);
            if (ep.status() != Status.OK) {
                r.ep = ep;
                worker.complete(r, ep.status());
            } else {
                worker.rndvRecv.start(ep, r, sreq, addr, keys);
            }
            return worker.finishImmediate(r);
        } finally {
            worker.guard.exit();
        }
    }

    void release(final AmMessage m) {
        worker.guard.enter();
        try {
            checkLive(m);
            if (m.kind == AmMessage.RNDV) {
                drop(m);
            }
            finish(m);
        } finally {
            worker.guard.exit();
        }
    }

    /** The user is done with {@code m}: frees kept data; a message still in its handler is freed after it. */
    private void finish(final AmMessage m) {
        if (m.state == AmMessage.IN_HANDLER) {
            m.claimed = true; // the dispatcher frees what it must when the handler returns
            if (m.kind == AmMessage.POOLED) {
                worker.unexpected.release(m.buffer);
                m.buffer = null;
            }
            return;
        }
        if (m.kind == AmMessage.DESC) {
            m.descIface.releaseDescriptor(m.descSegment, m.descOffset);
        } else if (m.kind == AmMessage.POOLED) {
            worker.unexpected.release(m.buffer);
        }
        recycle(m);
    }

    // ------------------------------------------------------------------ message pool

    private AmMessage take() {
        final AmMessage m = freeCount == 0 ? new AmMessage(worker) : free[--freeCount];
        m.reset();
        return m;
    }

    private void recycle(final AmMessage m) {
        m.reset();
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = m;
    }

    /** Writes AM bcopy messages; one per worker, set right before each amBcopy call. */
    private static final class AmPacker extends RequestPacker {
        static final int SINGLE = 1;
        static final int FIRST = 2;
        static final int MIDDLE = 3;
        static final int RTS = 4;

        byte[][] keys;

        private long replyId() {
            return (r.amSend.flags & AmFlags.SEND_REPLY) != 0 ? r.ep.remoteId : -1L;
        }

        /** Copies header+data bytes [at, at+n) of the message to {@code d}. */
        private void copy(final long at, final MemorySegment d, final long o, final long n) {
            final long h = r.amSend.headerLength;
            long src = at;
            long dst = o;
            long left = n;
            if (src < h) {
                final long k = Math.min(left, h - src);
                MemoryCopy.copy(r.amSend.header, r.amSend.headerOffset + src, d, dst, k);
                src += k;
                dst += k;
                left -= k;
            }
            if (left > 0) {
                MemoryCopy.copy(r.buffer, r.offset + src - h, d, dst, left);
            }
        }

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            switch (mode) {
                case SINGLE -> {
                    AmHeader.writeSingle(d, o, AmHeader.word(r.amSend.id, r.amSend.flags), r.amSend.headerLength, replyId());
                    copy(pos, d, o + AmHeader.SINGLE_LENGTH, len);
                    return AmHeader.SINGLE_LENGTH + len;
                }
                case FIRST -> {
                    AmHeader.writeFirst(d, o, AmHeader.word(r.amSend.id, r.amSend.flags), r.amSend.headerLength, replyId(),
                        r.ep.remoteId, r.amSend.headerLength + r.capacity);
                    copy(pos, d, o + AmHeader.FIRST_LENGTH, len);
                    return AmHeader.FIRST_LENGTH + len;
                }
                case MIDDLE -> {
                    FragmentHeader.write(d, o, r.ep.remoteId, pos);
                    copy(pos, d, o + FragmentHeader.LENGTH, len);
                    return FragmentHeader.LENGTH + len;
                }
                case RTS -> {
                    RtsHeader.write(d, o, AmHeader.word(r.amSend.id, r.amSend.flags), r.ep.remoteId, r.capacity, r.id,
                        r.capacity == 0 || !r.buffer.isNative() ? 0 : r.buffer.address() + r.offset, keys.length);
                    long p = KeyList.write(d, o + RtsHeader.LENGTH, o + capacity, keys);
                    AmHeader.writeRtsTrailer(d, p, r.amSend.headerLength, replyId());
                    p += AmHeader.RTS_TRAILER;
                    MemoryCopy.copy(r.amSend.header, r.amSend.headerOffset, d, p, r.amSend.headerLength);
                    return p + r.amSend.headerLength - o;
                }
                default -> throw new IllegalStateException("AM packer mode " + mode);
            }
        }
    }
}
