package weft.ucp;

import weft.ucs.LogLimit;
import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.uct.Interface;
import weft.ucp.wire.EagerFirstHeader;
import weft.ucp.wire.EagerHeader;
import weft.ucp.wire.FragmentHeader;

import java.lang.foreign.MemorySegment;

/**
 * Eager tag messages, both sides (one per worker): the sender's choice of protocol for a tag send (short,
 * single copied message, copied or zero-copy fragments, GET-based eager, or rendezvous from
 * {@code WEFT_RNDV_THRESH}), the eager send steps run from the endpoint's send queue, and the receiver's
 * handlers of EAGER, EAGER_FIRST, EAGER_MIDDLE and SYNC_ACK.
 *
 * <p>A message sent in fragments names the receiver's endpoint, whose fragments of one message arrive back
 * to back on the AM lane: the receiver keeps the message being rebuilt on that endpoint
 * ({@link Endpoint#rxRequest} for a matched receive, {@link Endpoint#rxMessage} for an unexpected one).
 * The short send that needs no queue runs in {@link Endpoint#sendTag(long, MemorySegment, long, long)}
 * itself.
 */
final class TagEager extends SendProtocol {
    private static final System.Logger LOG = System.getLogger(TagEager.class.getName());
    private static final int ST_SHORT = 0;
    private static final int ST_SINGLE = 1;
    private static final int ST_FRAGMENTS = 2;
    private static final int ST_MIDDLES = 6;
    private static final int ST_EAGER_GET = 7;

    private final Worker worker;
    private final EagerPacker packer = new EagerPacker();
    /** EAGER_FIRST / EAGER_MIDDLE header of a zero-copy fragment (the transport copies it). */
    private final MemorySegment zhdr;
    /** Eager tag fragments dropped as malformed (short, out of sequence, unknown endpoint). */
    private long malformed;

    TagEager(final Worker worker) {
        this.worker = worker;
        this.zhdr = worker.arena().allocate(EagerFirstHeader.LENGTH, 8);
    }

    void register(final Interface i) {
        i.setAmHandler(AmId.EAGER, this::onEager);
        i.setAmHandler(AmId.EAGER_FIRST, this::onEagerFirst);
        i.setAmHandler(AmId.EAGER_MIDDLE, this::onEagerMiddle);
        i.setAmHandler(AmId.SYNC_ACK, this::onSyncAck);
    }

    long malformed() {
        return malformed;
    }

    // ------------------------------------------------------------------ send

    /** Chooses the protocol of a tag send, queues it on {@code ep} and tries to send it now. */
    Request start(final Endpoint ep, final Request r, final long tag, final long length, final boolean sync,
                  final RequestCallback callback) {
        final ProtocolThresholds thresholds = ep.thresholds;
        r.ep = ep;
        r.capacity = length;
        r.length = length;
        r.tag = tag;
        r.sync = sync;
        r.callback = callback;
        if (length >= thresholds.rndvThresh) {
            r.kind = Request.RNDV_SEND;
            r.sendStage = RndvSend.ST_RTS;
        } else if (!sync && thresholds.eagerGet(length)) {
            r.sendStage = ST_EAGER_GET; // copied into the pool the peer maps; done when the header went
        } else if (length >= thresholds.zcopyThresh && r.dt == Datatypes.CONTIG && r.buffer.isNative()) {
            r.zdata = true; // eager zero-copy: fragments sent from the user's buffer, done by their completions
            r.completion.reset(1); // our reference, dropped once every fragment is issued
            r.sendStage = ST_FRAGMENTS;
        } else if (sync || length > thresholds.maxBcopy - EagerHeader.LENGTH) {
            r.sendStage = ST_FRAGMENTS;
        } else if (length <= thresholds.maxShort && r.dt == Datatypes.CONTIG) {
            r.sendStage = ST_SHORT;
        } else {
            r.sendStage = ST_SINGLE;
        }
        if (r.sendStage != ST_SHORT || sync || r.kind != Request.SEND || r.dt != Datatypes.CONTIG) {
            r.wide = true; // only a plain short eager send stays within the fields reset() always restores
        }
        if (sync || r.kind == Request.RNDV_SEND) {
            worker.inflight.register(r);
        }
        ep.queue.add(r);
        ep.queue.progress();
        return worker.finishImmediate(r);
    }

    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        if (r.sendStage != ST_MIDDLES && ep.queue.holdNewMessage()) {
            return Status.NO_RESOURCE; // the peer is flooded: no new message (FlowControl)
        }
        if (r.zdata) {
            return sendZcopy(ep, r);
        }
        final Status st = send(ep, r);
        if (st == Status.OK) {
            r.localDone = true;
            if (!r.sync || r.acked) {
                worker.complete(r, Status.OK);
            }
        }
        return st;
    }

    private Status send(final Endpoint ep, final Request r) {
        final weft.uct.Endpoint amEp = ep.amEp;
        final ProtocolThresholds thresholds = ep.thresholds;
        switch (r.sendStage) {
            case ST_SHORT -> {
                return amEp.amShort(AmId.EAGER, r.tag, r.buffer, r.offset, (int) r.capacity);
            }
            case ST_SINGLE -> {
                packer.set(EagerPacker.EAGER, r, 0, r.capacity);
                final long n = amEp.amBcopy(AmId.EAGER, packer);
                return n >= 0 ? Status.OK : Status.ofLength(n);
            }
            case ST_EAGER_GET -> {
                final Status st = worker.eagerGet.send(ep, r);
                if (st != Status.UNSUPPORTED) {
                    return st;
                }
                // no free slot (or no pool): eager fragments instead, never a wait
                r.sendStage = r.capacity > thresholds.maxBcopy - EagerHeader.LENGTH ? ST_FRAGMENTS : ST_SINGLE;
                return send(ep, r);
            }
            default -> {
                if (ep.remoteId < 0) {
                    return Status.NO_RESOURCE; // fragments name the peer's endpoint: wait for wireup
                }
                final long frag0 = thresholds.maxBcopy - EagerFirstHeader.LENGTH;
                final long fragN = thresholds.maxBcopy - FragmentHeader.LENGTH;
                while (true) {
                    final long pos = r.moved;
                    final boolean first = r.sendStage == ST_FRAGMENTS;
                    final long n = Math.min(r.capacity - pos, first ? frag0 : fragN);
                    packer.set(first ? EagerPacker.FIRST : EagerPacker.MIDDLE, r, pos, n);
                    final long st = amEp.amBcopy(first ? AmId.EAGER_FIRST : AmId.EAGER_MIDDLE, packer);
                    if (st < 0) {
                        return Status.ofLength(st);
                    }
                    r.sendStage = ST_MIDDLES;
                    r.moved = pos + n;
                    if (r.moved >= r.capacity) {
                        return Status.OK;
                    }
                }
            }
        }
    }

    /**
     * Eager zero-copy: the fragments of {@code r} (EAGER_FIRST then EAGER_MIDDLE, the receiver sees no
     * difference from copied ones) go from the user's buffer in pieces of the lane's zero-copy limit.
     * Returns NO_RESOURCE to be called again (the request stays at the head of the send queue, so the
     * fragments stay back to back), or OK once every fragment is issued or the send failed: its fate is
     * then in its completion count ({@link #onCompletion}).
     */
    private Status sendZcopy(final Endpoint ep, final Request r) {
        final long remoteId = ep.remoteId;
        if (remoteId < 0) {
            return Status.NO_RESOURCE; // fragments name the peer's endpoint: wait for wireup
        }
        final long frag = ep.thresholds.maxZcopy;
        while (r.moved < r.capacity) {
            final long pos = r.moved;
            final boolean first = r.sendStage == ST_FRAGMENTS;
            final long n = Math.min(r.capacity - pos, frag);
            final int hlen;
            if (first) {
                EagerFirstHeader.write(zhdr, 0, r.tag, remoteId, r.capacity, r.sync ? r.id : -1L);
                hlen = EagerFirstHeader.LENGTH;
            } else {
                FragmentHeader.write(zhdr, 0, remoteId, pos);
                hlen = FragmentHeader.LENGTH;
            }
            final Status st = zcopyPiece(ep.amEp, first ? AmId.EAGER_FIRST : AmId.EAGER_MIDDLE, zhdr, hlen, r, pos, n);
            if (st == Status.NO_RESOURCE) {
                return st;
            }
            if (st.isError()) {
                break;
            }
            r.sendStage = ST_MIDDLES;
            r.moved = pos + n;
        }
        r.completion.complete(Status.OK); // drop our reference: the send is locally done with the last piece
        return Status.OK;
    }

    /** Eager zero-copy: every fragment has left the user's buffer; a sync send also waits for its ack. */
    @Override
    void onCompletion(final Request r, final Status st) {
        if (!r.zdata) {
            return;
        }
        r.rmaIov.clear();
        r.localDone = true;
        final Status failed = r.ep.failure();
        if (st != Status.OK || !r.sync || r.acked) {
            worker.complete(r, st);
        } else if (failed != null) {
            worker.complete(r, failed); // the ack cannot come any more
        }
    }

    // ------------------------------------------------------------------ receive

    private Status onEager(final MemorySegment data, final long off, final long len, final int flags) {
        if (!EagerHeader.fits(len)) {
            return dropMalformed("EAGER of " + len + " bytes");
        }
        deliver(EagerHeader.tag(data, off), data, off + EagerHeader.LENGTH, len - EagerHeader.LENGTH);
        return Status.OK;
    }

    /** An eager message of {@code plen} bytes at {@code data[src]}: into a matching receive, else unexpected. */
    void deliver(final long tag, final MemorySegment data, final long src, final long plen) {
        final Request r = worker.matcher.matchExpected(tag);
        if (r != null) {
            Datatypes.unpack(r, 0, data, src, plen);
            r.tag = tag;
            r.length = plen;
            worker.complete(r, plen > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            return;
        }
        final TagMessage m = worker.unexpected.acquire(plen);
        MemoryCopy.copy(data, src, m.data, 0, plen);
        m.tag = tag;
        m.length = plen;
        m.received = plen;
        worker.matcher.addUnexpected(m);
        worker.flow.added();
    }

    private Status onEagerFirst(final MemorySegment data, final long off, final long len, final int flags) {
        if (!EagerFirstHeader.fits(len)) {
            return dropMalformed("EAGER_FIRST of " + len + " bytes");
        }
        final long tag = EagerFirstHeader.tag(data, off);
        final Endpoint ep = worker.epTable.byId(EagerFirstHeader.dstEp(data, off));
        final long total = EagerFirstHeader.total(data, off);
        final long sync = EagerFirstHeader.syncReq(data, off);
        final long plen = len - EagerFirstHeader.LENGTH;
        if (ep == null || plen > total || total < 0) {
            return dropMalformed("EAGER_FIRST for an unknown endpoint or with a bad length");
        }
        final long src = off + EagerFirstHeader.LENGTH;
        final Request r = worker.matcher.matchExpected(tag);
        if (r != null) {
            r.tag = tag;
            r.length = total;
            Datatypes.unpack(r, 0, data, src, plen);
            r.moved = plen;
            if (sync >= 0) {
                ep.sendControl(AmId.SYNC_ACK, sync, 0);
            }
            if (plen == total) {
                worker.complete(r, total > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            } else {
                ep.rxRequest = r;
            }
            return Status.OK;
        }
        final long budget = worker.context.unexpectedBudget;
        if (total > budget) {
            // the buffer would be as large as the sender claims: never more than the budget (a legitimate
            // sender with a huge WEFT_RNDV_THRESH must raise WEFT_UNEXPECTED_BUDGET, or post its receives first)
            malformed++;
            LOG.log(System.Logger.Level.WARNING, "failing " + ep + ": an unexpected eager message of " + total
                + " bytes exceeds WEFT_UNEXPECTED_BUDGET (" + budget + " bytes)");
            worker.lifecycle.failLater(ep, Status.NO_MEMORY);
            return Status.OK;
        }
        final TagMessage m = worker.unexpected.acquire(total);
        MemoryCopy.copy(data, src, m.data, 0, plen);
        m.tag = tag;
        m.length = total;
        m.received = plen;
        m.ep = ep;
        m.syncReqId = sync;
        if (plen < total) {
            ep.rxMessage = m;
        }
        worker.matcher.addUnexpected(m);
        worker.flow.added();
        return Status.OK;
    }

    private Status onEagerMiddle(final MemorySegment data, final long off, final long len, final int flags) {
        if (!FragmentHeader.fits(len)) {
            return dropMalformed("EAGER_MIDDLE of " + len + " bytes");
        }
        final Endpoint ep = worker.epTable.byId(FragmentHeader.id(data, off));
        final long at = FragmentHeader.offset(data, off);
        final long plen = len - FragmentHeader.LENGTH;
        if (ep == null) {
            return dropMalformed("EAGER_MIDDLE for an unknown endpoint");
        }
        final Request r = ep.rxRequest;
        if (r != null) {
            // fragments come in order on one lane: each starts where the last ended, within the message
            if (at != r.moved || at + plen > r.length) {
                ep.rxRequest = null;
                worker.complete(r, Status.IO_ERROR); // the message cannot be rebuilt: fail it, never write out of place
                return dropMalformed("EAGER_MIDDLE at " + at + " (+" + plen + ") of a " + r.length
                    + "-byte message with " + r.moved + " received");
            }
            Datatypes.unpack(r, at, data, off + FragmentHeader.LENGTH, plen);
            r.moved += plen;
            if (r.moved >= r.length) {
                ep.rxRequest = null;
                worker.complete(r, r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            }
            return Status.OK;
        }
        final TagMessage m = ep.rxMessage;
        if (m == null || at != m.received || at + plen > m.length) {
            return dropMalformed("EAGER_MIDDLE out of sequence");
        }
        MemoryCopy.copy(data, off + FragmentHeader.LENGTH, m.data, at, plen);
        m.received += plen;
        if (m.received >= m.length) {
            ep.rxMessage = null;
        }
        return Status.OK;
    }

    private Status onSyncAck(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = worker.inflight.named(data, off, len, "SYNC_ACK");
        if (r != null) {
            r.acked = true;
            if (r.localDone) {
                worker.complete(r, Status.OK);
            }
        }
        return Status.OK;
    }

    /** Counts and logs a tag message (eager fragment or RTS) dropped as malformed. */
    Status dropMalformed(final String what) {
        if (LogLimit.due(++malformed)) {
            LOG.log(System.Logger.Level.WARNING, "dropping a malformed eager tag fragment: " + what + " (" + malformed
                + " so far: Worker.tagMalformedCount())");
        }
        return Status.OK;
    }

    /** Writes copied eager messages; one per worker, set before each amBcopy call (no allocation). */
    private static final class EagerPacker extends RequestPacker {
        static final int EAGER = 1;
        static final int FIRST = 2;
        static final int MIDDLE = 3;

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            switch (mode) {
                case EAGER -> {
                    EagerHeader.write(d, o, r.tag);
                    Datatypes.pack(r, pos, d, o + EagerHeader.LENGTH, len);
                    return EagerHeader.LENGTH + len;
                }
                case FIRST -> {
                    EagerFirstHeader.write(d, o, r.tag, r.ep.remoteId, r.capacity, r.sync ? r.id : -1L);
                    Datatypes.pack(r, pos, d, o + EagerFirstHeader.LENGTH, len);
                    return EagerFirstHeader.LENGTH + len;
                }
                case MIDDLE -> {
                    FragmentHeader.write(d, o, r.ep.remoteId, pos);
                    Datatypes.pack(r, pos, d, o + FragmentHeader.LENGTH, len);
                    return FragmentHeader.LENGTH + len;
                }
                default -> throw new IllegalStateException("packer mode " + mode);
            }
        }
    }
}
