package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Interface;
import weft.uct.Packer;
import weft.uct.RemoteKey;
import weft.ucp.wire.ControlMessage;
import weft.ucp.wire.KeyList;
import weft.ucp.wire.RtrPutHeader;

import java.lang.foreign.MemorySegment;

/**
 * Rendezvous by put (RDMA-write style, {@code WEFT_RNDV_SCHEME=put}): the sender's RTS carries no key;
 * the receiver that matches it registers its buffer on the rendezvous lanes and answers RTR_PUT with the
 * address and keys; the sender puts the data in chunks striped over those lanes by bandwidth weight,
 * flushes the lanes it used (remote completion: the data is in place), and sends ATP; the receiver
 * completes on ATP. When the only lane used is the AM lane and its fence orders the puts before the ATP
 * (tcp), the fence replaces the flush and the ATP follows the data without waiting a round trip. The
 * copy work moves from the receiver to the sender.
 *
 * <p>Wire: RNDV_RTR_PUT is {@link weft.ucp.wire.RtrPutHeader} + {@link weft.ucp.wire.KeyList} (am bcopy);
 * RNDV_ATP a {@link weft.ucp.wire.ControlMessage} naming the receiver's request, with the status code.
 */
final class RndvPut {
    private RndvPut() {
    }

    /**
     * Receiver: a matched RTS whose sender offered its data for a put. Registers the receive buffer and
     * queues the RTR_PUT on the endpoint (ordered, retried on NO_RESOURCE, like control messages).
     */
    static void requestPut(final Endpoint ep, final Request r, final long want) {
        r.wide = true;
        try {
            r.rndv.handles = ep.rndvCache.acquireHandles(r.buffer, r.offset, want);
            r.rndv.packedKeys = ep.rndvCache.packedKeys(r.rndv.handles);
        } catch (final WeftException e) {
            ep.rndvCache.release(r);
            ep.sendControl(AmId.RNDV_ATS, r.rndv.peerReq, e.status().code());
            ep.worker.complete(r, e.status());
            return;
        }
        r.remoteAddress = r.buffer.address() + r.offset;
        r.rndv.want = want;
        ep.worker.inflight.register(r);
        ep.queue.add(r);
        ep.queue.progress();
    }

    /** Receiver, from the send queue: sends the RTR_PUT of {@code r}. */
    static Status sendRtr(final Endpoint ep, final Request r) {
        final RtrPacker p = ep.worker.rtrPacker;
        p.r = r;
        final long n = ep.am.uct.amBcopy(AmId.RNDV_RTR_PUT, p);
        p.r = null;
        if (n < 0) {
            return Status.ofLength(n);
        }
        r.rndv.packedKeys = null;
        return Status.OK; // the request waits for ATP (registered in flight)
    }

    /** AM handler (sender side): the receiver's buffer is ready; put the data there. */
    static Status onRtrPut(final Worker w, final MemorySegment data, final long off, final long len) {
        if (!RtrPutHeader.fits(len)) {
            return w.control.dropMalformed("RNDV_RTR_PUT", len);
        }
        final Request r = w.inflight.byId(RtrPutHeader.senderReq(data, off));
        // only a send waiting for its answer: a second RTR_PUT would put (and complete) it twice
        if (r == null || r.kind != Request.RNDV_SEND || r.buffer == null || r.sendStage != RndvSend.ST_WAIT
            || r.rndv.byPut) {
            return Status.OK;
        }
        final Endpoint ep = r.ep;
        r.rndv.peerReq = RtrPutHeader.recvReq(data, off);
        r.remoteAddress = RtrPutHeader.address(data, off);
        final long want = Math.min(RtrPutHeader.length(data, off), r.capacity);
        final int n = RtrPutHeader.keyCount(data, off);
        final Lane[] lanes = ep.rndv;
        if (n != lanes.length || n == 0 || want < 0) { // no put lanes here, or a length no receive has
            ep.sendControl(AmId.RNDV_ATP, r.rndv.peerReq, Status.UNSUPPORTED.code());
            w.complete(r, Status.UNSUPPORTED);
            return Status.OK;
        }
        final RemoteKey[] rk;
        try {
            final byte[][] keys = ep.rndvCache.keys(data, off + RtrPutHeader.LENGTH, n, off + len); // cached: no copy
            if (keys == null) {
                throw new WeftException(Status.INVALID_RKEY, "truncated RTR_PUT");
            }
            rk = ep.rndvCache.unpack(keys);
        } catch (final WeftException e) {
            ep.sendControl(AmId.RNDV_ATP, r.rndv.peerReq, e.status().code());
            w.complete(r, e.status());
            return Status.OK;
        }
        r.rndv.peerKeys = rk;
        r.rndv.want = want;
        r.moved = 0;
        r.zdata = true;      // completes by its count: the puts and the flushes of the lanes used
        r.rndv.byPut = true;
        r.completion.reset(1); // our reference, dropped once every put and flush is issued
        if (!issuePuts(r)) {
            w.getPending.add(r); // retried from progress (PendingPieces)
        }
        return Status.OK;
    }

    /** Sender: issues the remaining puts of {@code r}, then flushes the lanes; false if a lane is full. */
    static boolean issuePuts(final Request r) {
        final Endpoint ep = r.ep;
        final Lane[] lanes = ep.rndv;
        if (r.stripes.count == 0) {
            Stripes.plan(r, lanes, lanes.length, r.rndv.want);
            r.rndv.lanesToFlush = Stripes.lanesWithShare(r); // flushed once every put is issued
        }
        final Status issued = Stripes.issue(r, lanes, r.rndv.peerKeys, ep.worker.context.rndvChunk, Stripes.PUT);
        if (issued == Status.NO_RESOURCE) {
            return false;
        }
        if (issued.isError()) {
            Stripes.abandon(r); // the error is recorded; the flushes wait for the puts already issued
        }
        // remote completion before ATP: the data must be in place when the receiver completes. Where every
        // put went over the AM lane and its fence orders them before what follows (tcp: one ordered stream
        // that the target serves in order), the ATP that follows on that lane is enough: a fence instead
        // of a flush round trip (UCX's fenced ATP)
        if (r.rndv.lanesToFlush != 0 && (r.rndv.lanesToFlush & (r.rndv.lanesToFlush - 1)) == 0
            && lanes[Long.numberOfTrailingZeros(r.rndv.lanesToFlush)] == ep.am && ep.am.uct.fence() == Status.OK) {
            r.rndv.lanesToFlush = 0;
        }
        while (r.rndv.lanesToFlush != 0) {
            final int lane = Long.numberOfTrailingZeros(r.rndv.lanesToFlush);
            r.completion.expect(1);
            final Status st = lanes[lane].uct.flush(Interface.FLUSH_REMOTE, r.completion);
            if (st == Status.NO_RESOURCE) {
                r.completion.expect(-1);
                return false;
            }
            r.rndv.lanesToFlush &= ~(1L << lane);
            if (st != Status.IN_PROGRESS) {
                r.completion.complete(st);
            }
        }
        r.completion.complete(Status.OK); // drop our reference: done when the last put and flush land
        return true;
    }

    /** Sender: every put and flush finished; tell the receiver, then complete. */
    static void finishPut(final Worker w, final Request r, final Status st) {
        final Endpoint ep = r.ep;
        if (r.rndv.peerKeys != null) {
            ep.rndvCache.releaseKeys(r.rndv.peerKeys);
        }
        r.rndv.peerKeys = null;
        r.rmaIov.clear();
        if (ep.failure() == null) {
            ep.sendControl(AmId.RNDV_ATP, r.rndv.peerReq, st.code());
        }
        w.complete(r, st);
    }

    /** AM handler (receiver side): the sender's data is in place. */
    static Status onAtp(final Worker w, final MemorySegment data, final long off, final long len) {
        final Request r = w.inflight.named(data, off, len, "RNDV_ATP");
        if (r != null && r.kind == Request.RNDV_RECV) {
            final Status st = Status.of((int) ControlMessage.value(data, off));
            r.moved = r.rndv.want;
            w.complete(r, st != Status.OK ? st : r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
        }
        return Status.OK;
    }

    /** Packs an RTR_PUT (one per worker, reused). */
    static final class RtrPacker implements Packer {
        Request r;

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            RtrPutHeader.write(d, o, r.rndv.peerReq, r.id, r.remoteAddress, r.rndv.want, r.rndv.packedKeys.length);
            return KeyList.write(d, o + RtrPutHeader.LENGTH, o + capacity, r.rndv.packedKeys) - o;
        }
    }
}
