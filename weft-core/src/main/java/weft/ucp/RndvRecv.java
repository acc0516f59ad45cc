package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Interface;
import weft.uct.RemoteKey;
import weft.ucp.wire.FragmentHeader;
import weft.ucp.wire.RtsHeader;

import java.lang.foreign.MemorySegment;

/**
 * The receiver of a rendezvous (one per worker). An RTS matches a posted receive, or waits as an
 * unexpected message until one is posted; the matched receive then pulls the data with gets striped
 * over the rendezvous lanes in {@code WEFT_RNDV_CHUNK_SIZE} pieces and answers ATS, or asks the sender to
 * put it ({@link RndvPut}, RTR_PUT, sent from the send queue), or to stream it over the AM lane (RTR,
 * answered by RNDV_DATA fragments placed here by their offset).
 */
final class RndvRecv extends SendProtocol {

    private final Worker worker;

    RndvRecv(final Worker worker) {
        this.worker = worker;
    }

    void register(final Interface i) {
        i.setAmHandler(AmId.RNDV_RTS, this::onRts);
        i.setAmHandler(AmId.RNDV_DATA, this::onData);
        i.setAmHandler(AmId.RNDV_ATP, (d, o, l, f) -> RndvPut.onAtp(worker, d, o, l));
    }

    /** The RTR_PUT of a put rendezvous, queued behind earlier sends (like control traffic). */
    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        return RndvPut.sendRtr(ep, r);
    }

    /** The sender waits for it, whatever flow control holds. */
    @Override
    boolean bypassesFlowStop(final Request r) {
        return true;
    }

    @Override
    boolean resume(final Request r) {
        return issueGets(r);
    }

    /** Every get landed (or failed): tell the sender (ATS) and complete. */
    @Override
    void onCompletion(final Request r, final Status st) {
        final Endpoint ep = r.ep;
        if (r.rndv.peerKeys != null) {
            ep.rndvCache.releaseKeys(r.rndv.peerKeys);
            r.rndv.peerKeys = null;
        }
        r.rmaIov.clear();
        ep.sendControl(AmId.RNDV_ATS, r.rndv.peerReq, st.code());
        worker.complete(r, st.isError() ? st : r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
    }

    /** A receive matched an RTS: pull the data with gets, or ask the sender to put or stream it. */
    void start(final Endpoint ep, final Request r, final long sreq, final long address, final byte[][] keys) {
        r.wide = true;
        r.kind = Request.RNDV_RECV;
        r.ep = ep;
        r.rndv.peerReq = sreq;
        r.remoteAddress = address;
        r.moved = 0;
        final long want = Math.min(r.length, r.capacity);
        if (ep.failure() != null) {
            worker.complete(r, ep.failure());
            return;
        }
        if (want == 0) {
            ep.sendControl(AmId.RNDV_ATS, sreq, Status.OK.code());
            worker.complete(r, r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
            return;
        }
        if (keys.length == 0 && ep.thresholds.rndvPut && address != 0 && r.dt == Datatypes.CONTIG
            && r.buffer.isNative()) {
            RndvPut.requestPut(ep, r, want); // the sender offered its contiguous data for a put
            return;
        }
        if (keys.length == 0 || keys.length != ep.rndv.length || r.dt != Datatypes.CONTIG || !r.buffer.isNative()) {
            // (a get writes through a native iovec: a Java-heap receive buffer has the data streamed instead)
            worker.inflight.register(r);
            // a contiguous or iov receive takes the pieces in any order (striped over lanes); a generic
            // datatype's unpack may expect them in order
            ep.sendControl(AmId.RNDV_RTR, sreq, r.dt == Datatypes.GENERIC ? r.id : r.id | AmId.RTR_ANY_ORDER);
            return;
        }
        final RemoteKey[] rk;
        try {
            rk = ep.rndvCache.unpack(keys);
        } catch (final WeftException e) {
            ep.sendControl(AmId.RNDV_ATS, sreq, e.status().code());
            worker.complete(r, e.status());
            return;
        }
        r.rndv.peerKeys = rk;
        r.completion.reset(1); // our own reference, dropped when every get is issued
        if (!issueGets(r)) {
            worker.getPending.add(r);
        }
    }

    /**
     * Issues the remaining gets of a rendezvous receive, striped over the rendezvous lanes by bandwidth in
     * pieces of at most one chunk ({@link Stripes}); false if a lane ran out of resources.
     */
    private boolean issueGets(final Request r) {
        final Lane[] rndv = r.ep.rndv;
        if (r.stripes.count == 0) {
            Stripes.plan(r, rndv, rndv.length, Math.min(r.length, r.capacity));
        }
        final Status st = Stripes.issue(r, rndv, r.rndv.peerKeys, worker.context.rndvChunk, Stripes.RNDV_GET);
        if (st == Status.NO_RESOURCE) {
            return false;
        }
        r.completion.complete(st); // drop our reference: completes when the last get lands
        return true;
    }

    // ------------------------------------------------------------------ messages from the sender

    private Status onRts(final MemorySegment data, final long off, final long len, final int flags) {
        if (!RtsHeader.fits(len)) {
            return worker.tagEager.dropMalformed("RNDV_RTS of " + len + " bytes");
        }
        final long tag = RtsHeader.tag(data, off);
        final Endpoint ep = worker.epTable.byId(RtsHeader.dstEp(data, off));
        final long total = RtsHeader.total(data, off);
        final long sreq = RtsHeader.senderReq(data, off);
        final long addr = RtsHeader.address(data, off);
        final int n = RtsHeader.keyCount(data, off);
        if (ep == null || !RtsHeader.fieldsValid(data, off)) {
            return worker.tagEager.dropMalformed("RNDV_RTS for an unknown endpoint or with bad fields");
        }
        final byte[][] keys = ep.rndvCache.keys(data, off + RtsHeader.LENGTH, n, off + len); // cached: no copy
        if (keys == null) {
            return worker.tagEager.dropMalformed("RNDV_RTS keys run past the message");
        }
        final Request r = worker.matcher.matchExpected(tag);
        if (r != null) {
            r.kind = Request.RNDV_RECV;
            r.tag = tag;
            r.length = total;
            start(ep, r, sreq, addr, keys);
            return Status.OK;
        }
        final TagMessage m = worker.unexpected.acquire(0);
        m.tag = tag;
        m.length = total;
        m.rts = true;
        m.ep = ep;
        m.syncReqId = sreq;
        m.rtsAddress = addr;
        m.rkeys = keys;
        worker.matcher.addUnexpected(m);
        worker.flow.added();
        return Status.OK;
    }

    private Status onData(final MemorySegment data, final long off, final long len, final int flags) {
        if (!FragmentHeader.fits(len)) {
            return worker.control.dropMalformed("RNDV_DATA", len);
        }
        final Request r = worker.inflight.byId(FragmentHeader.id(data, off));
        final long at = FragmentHeader.offset(data, off);
        final long plen = len - FragmentHeader.LENGTH;
        if (r == null || r.kind != Request.RNDV_RECV) {
            return Status.OK;
        }
        if (at < 0 || plen > r.length - at) {
            return worker.control.dropMalformed("RNDV_DATA at " + at + " (+" + plen + ") of a " + r.length
                + "-byte message", len);
        }
        Datatypes.unpack(r, at, data, off + FragmentHeader.LENGTH, plen);
        r.moved += plen;
        if (r.moved >= r.length) {
            worker.complete(r, r.length > r.capacity ? Status.MESSAGE_TRUNCATED : Status.OK);
        }
        return Status.OK;
    }
}
