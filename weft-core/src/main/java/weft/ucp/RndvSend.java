package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Interface;
import weft.uct.MemoryHandle;
import weft.ucp.wire.ControlMessage;
import weft.ucp.wire.FragmentHeader;
import weft.ucp.wire.KeyList;
import weft.ucp.wire.RtsHeader;

import java.lang.foreign.MemorySegment;

/**
 * The sender of a rendezvous (tag or active message; one per worker). It registers the data with every
 * rendezvous lane's memory domain and sends an RTS carrying the packed keys and the data's address, then
 * waits: the receiver gets the data and answers ATS ({@link RndvRecv}), asks for it to be put into its
 * buffer with RTR_PUT ({@link RndvPut}), or asks for it over the AM lane with RTR, answered here by RNDV_DATA
 * fragments (zero-copy ones striped over the rendezvous lanes that send zero-copy active messages, see
 * {@link Rails#sendRndvStriped}).
 *
 * <p>Stages ({@link Request#sendStage}): {@link #ST_RTS} queued until the RTS leaves; {@link #ST_WAIT}
 * waiting for the answer; {@link #ST_DATA} queued while the data fragments go.
 */
final class RndvSend extends SendProtocol {
    static final int ST_RTS = 3;
    static final int ST_WAIT = 4;
    static final int ST_DATA = 5;
    private static final MemoryHandle[] NO_HANDLES = new MemoryHandle[0];
    private static final byte[][] NO_KEYS = new byte[0][];

    private final Worker worker;
    private final RndvPacker packer = new RndvPacker();
    /** RNDV_DATA header of a zero-copy piece (the transport copies it). */
    private final MemorySegment zhdr;
    /** RNDV_DATA pieces striped over the rendezvous lanes (their header in {@link #zhdr}). */
    private final Stripes.AmData stripedData;

    RndvSend(final Worker worker) {
        this.worker = worker;
        this.zhdr = worker.arena().allocate(FragmentHeader.LENGTH, 8);
        this.stripedData = new Stripes.AmData(zhdr);
    }

    void register(final Interface i) {
        i.setAmHandler(AmId.RNDV_ATS, this::onAts);
        i.setAmHandler(AmId.RNDV_RTR, this::onRtr);
        i.setAmHandler(AmId.RNDV_RTR_PUT, (d, o, l, f) -> RndvPut.onRtrPut(worker, d, o, l));
    }

    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        if (r.sendStage == ST_RTS) {
            if (ep.queue.holdNewMessage()) {
                return Status.NO_RESOURCE; // the peer is flooded: no new message (FlowControl)
            }
            return r.amSend.active ? worker.ams.sendRts(ep, r) : sendRts(ep, r);
        }
        if (r.sendStage == ST_DATA) {
            final Status st = sendData(ep, r);
            if (st == Status.OK && !r.zdata) {
                worker.complete(r, Status.OK); // copied out: done (zero-copy completes by its count)
            }
            return st;
        }
        return Status.OK;
    }

    /** Asked-for data may pass a message that flow control holds: the receiver waits for it. */
    @Override
    boolean bypassesFlowStop(final Request r) {
        return r.sendStage == ST_DATA;
    }

    @Override
    boolean resume(final Request r) {
        return RndvPut.issuePuts(r);
    }

    /** Every put and flush of a put rendezvous, or every zero-copy RNDV_DATA piece, finished. */
    @Override
    void onCompletion(final Request r, final Status st) {
        if (r.rndv.byPut) {
            RndvPut.finishPut(worker, r, st);
        } else if (r.zdata) {
            r.rmaIov.clear();
            worker.complete(r, st);
        }
    }

    private Status sendRts(final Endpoint ep, final Request r) {
        if (ep.remoteId < 0) {
            return Status.NO_RESOURCE;
        }
        final RndvCache cache = ep.rndvCache;
        if (r.rndv.handles == null) {
            // non-contiguous data has no region to register, nor has Java-heap memory (no fixed native
            // address: no transport registers it): the receiver asks for it over AM (RTR)
            final boolean get = ep.thresholds.rndvGet && r.capacity > 0 && r.dt == Datatypes.CONTIG
                && r.buffer.isNative();
            try {
                r.rndv.handles = get ? cache.acquireHandles(r.buffer, r.offset, r.capacity) : NO_HANDLES;
            } catch (final WeftException e) {
                ep.rndvCache.release(r);
                return e.status();
            }
        }
        packer.keys = r.rndv.handles.length == 0 ? NO_KEYS : cache.packedKeys(r.rndv.handles); // again on a retry
        packer.set(RndvPacker.RTS, r, 0, 0);
        final long n = ep.amEp.amBcopy(AmId.RNDV_RTS, packer);
        packer.keys = null;
        if (n < 0) {
            return Status.ofLength(n);
        }
        r.sendStage = ST_WAIT; // the peer answers with ATS (it got the data) or RTR (send it to me)
        return Status.OK;
    }

    /** The peer asked for the data over AM (no get lane): queue the data fragments. */
    private void startData(final Endpoint ep, final Request r) {
        r.sendStage = ST_DATA;
        r.moved = 0;
        // zero-copy needs one off-heap region (a transport writes it with a native iovec); heap data is copied
        final Lane am = ep.am;
        r.zdata = r.dt == Datatypes.CONTIG && r.buffer.isNative() && am.local.attrs.has(weft.uct.Capability.AM_ZCOPY)
            && (am.remote.capabilities() & weft.uct.Capability.AM_ZCOPY) != 0;
        if (r.zdata) {
            r.completion.reset(1); // our reference, dropped when the last piece is issued
        }
        ep.queue.add(r);
        ep.queue.progress();
    }

    private Status sendData(final Endpoint ep, final Request r) {
        if (r.zdata) {
            return sendDataZcopy(ep, r);
        }
        final long frag = ep.thresholds.maxBcopy - FragmentHeader.LENGTH;
        while (r.moved < r.capacity) {
            final long n = Math.min(frag, r.capacity - r.moved);
            packer.set(RndvPacker.DATA, r, r.moved, n);
            final long st = ep.amEp.amBcopy(AmId.RNDV_DATA, packer);
            if (st < 0) {
                return Status.ofLength(st);
            }
            r.moved += n;
        }
        return Status.OK;
    }

    /**
     * Streams the data from the user's buffer (no copy at the sender) in pieces of the lane's zero-copy
     * limit. Returns OK once every piece is issued or the send failed (its fate is then in its completion
     * count), NO_RESOURCE to be called again.
     */
    private Status sendDataZcopy(final Endpoint ep, final Request r) {
        if (r.rndv.anyOrder && Rails.stripesRendezvous(ep, ep.amRails, r.capacity)) {
            return Rails.sendRndvStriped(ep, r, ep.amRails, stripedData);
        }
        final long frag = Math.min(ep.am.local.attrs.amMaxZcopy(), worker.context.rndvChunk);
        while (r.moved < r.capacity) {
            final long n = Math.min(frag, r.capacity - r.moved);
            FragmentHeader.write(zhdr, 0, r.rndv.peerReq, r.moved);
            final Status st = zcopyPiece(ep.amEp, AmId.RNDV_DATA, zhdr, FragmentHeader.LENGTH, r, r.moved, n);
            if (st == Status.NO_RESOURCE) {
                return st;
            }
            if (st.isError()) {
                break;
            }
            r.moved += n;
        }
        r.completion.complete(Status.OK); // drop our reference: the request completes with the last piece
        return Status.OK;
    }

    // ------------------------------------------------------------------ answers from the receiver

    private Status onAts(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = worker.inflight.named(data, off, len, "RNDV_ATS");
        if (r != null) {
            final Status st = Status.of((int) ControlMessage.value(data, off));
            worker.complete(r, st == Status.MESSAGE_TRUNCATED ? Status.OK : st);
        }
        return Status.OK;
    }

    private Status onRtr(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = worker.inflight.named(data, off, len, "RNDV_RTR");
        // only a send waiting for its answer: a second RTR would queue the request twice
        if (r != null && r.kind == Request.RNDV_SEND && r.sendStage == ST_WAIT && !r.rndv.byPut) {
            final long v = ControlMessage.value(data, off);
            r.rndv.peerReq = v & ~AmId.RTR_ANY_ORDER;
            r.rndv.anyOrder = (v & AmId.RTR_ANY_ORDER) != 0;
            startData(r.ep, r);
        }
        return Status.OK;
    }

    /** Writes RTS and RNDV_DATA messages; one per worker, set before each amBcopy call (no allocation). */
    private static final class RndvPacker extends RequestPacker {
        static final int RTS = 1;
        static final int DATA = 2;

        byte[][] keys;

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            switch (mode) {
                case DATA -> {
                    FragmentHeader.write(d, o, r.rndv.peerReq, pos);
                    Datatypes.pack(r, pos, d, o + FragmentHeader.LENGTH, len);
                    return FragmentHeader.LENGTH + len;
                }
                case RTS -> {
                    final byte[][] k = keys == null ? NO_KEYS : keys;
                    // address 0 = not offered for a put (the data is not one off-heap region)
                    RtsHeader.write(d, o, r.tag, r.ep.remoteId, r.capacity, r.id,
                        r.buffer == null || !r.buffer.isNative() ? 0 : r.buffer.address() + r.offset, k.length);
                    return KeyList.write(d, o + RtsHeader.LENGTH, o + capacity, k) - o;
                }
                default -> throw new IllegalStateException("packer mode " + mode);
            }
        }
    }
}
