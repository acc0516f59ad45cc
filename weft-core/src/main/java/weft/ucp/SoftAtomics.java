package weft.ucp;

import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.MemoryAtomics;
import weft.ucp.wire.ControlMessage;
import weft.ucp.wire.SoftAmoRequest;
import weft.ucp.wire.SoftTarget;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Atomics emulated at the target over the endpoint's AM lane, for remote memory that no lane can
 * operate on atomically: memory the peer registered (not allocated) reached over shm + cma, where cma
 * moves bytes but has no atomics. The target performs the operation with a CPU atomic (VarHandle) on
 * its own mapping of the memory, so it is coherent with the target's local atomics on the same word,
 * and answers with the old value (fetching ops) or an acknowledgement (post ops: a flush waits for it).
 * A key takes this path for all of its atomics or for none (one atomicity domain per key).
 *
 * <p>The target finds the memory by the map id in the key's {@code ucp-amo} entry, checks that the
 * entry's nonce is its context's (random per context; for symmetric maps a stamp of the job, with ids
 * that are never reused: see {@link Context#newMapId}; a key from another process, context or job is
 * refused with INVALID_RKEY), that the map is still mapped (INVALID_RKEY after unmap) and that the word lies in
 * it (OUT_OF_RANGE) and is aligned (INVALID_PARAM). Nothing is touched when a check fails.
 *
 * <pre>
 *  SOFT_AMO      {@link SoftAmoRequest}, am short, header = initiator request id
 *  SOFT_AMO_REP  {@link ControlMessage}: initiator request id, old value
 *  SOFT_AMO_NAK  {@link ControlMessage}: initiator request id, status code
 * </pre>
 */
final class SoftAtomics {
    /** Name of the packed-key entry that names a memory map for emulated atomics. */
    static final String ENTRY = "ucp-amo";
    private static final AtomicOp[] OPS = AtomicOp.values();

    private final Worker worker;

    SoftAtomics(final Worker worker) {
        this.worker = worker;
    }

    /**
     * Sends the atomic of {@code r} (an RMA request, AMO_POST / AMO_FETCH / AMO_CSWAP); OK once its fate
     * is in the request's completion count, NO_RESOURCE to retry later (nothing was sent).
     */
    static Status issue(final Request r, final Rkey k) {
        final Endpoint ep = r.ep;
        if (ep.remoteId < 0) {
            return Status.NO_RESOURCE; // the request names the peer's endpoint: wait for wireup
        }
        final long size = r.capacity;
        final AtomicOp op = r.rma.op == Rma.AMO_CSWAP ? AtomicOp.CSWAP : r.rma.atomicOp;
        if (op == null || (r.rma.op == Rma.AMO_POST && !op.postable())) {
            r.completion.complete(Status.INVALID_PARAM);
            return Status.OK;
        }
        if (r.id < 0) {
            ep.worker.inflight.register(r); // the reply names the request
        }
        final MemorySegment b = ep.rma.softAmoBuffer();
        SoftAmoRequest.writePayload(b, ep.remoteId, k.softNonce, k.softMapId, r.remoteAddress, r.rma.operand, r.rma.compare,
            op.ordinal(), (int) size, r.rma.op == Rma.AMO_POST);
        r.completion.expect(1); // the reply's
        final Status st = ep.amEp.amShort(AmId.SOFT_AMO, r.id, b, 0, SoftAmoRequest.PAYLOAD_LENGTH);
        if (st == Status.NO_RESOURCE) {
            r.completion.expect(-1);
            return st;
        }
        ep.am.counters.increment(weft.ucs.stats.Counter.ATOMICS);
        if (ep.rma.softSent(r, st)) {
            r.completion.complete(Status.OK); // drop our reference: the reply completes the request
        }
        return Status.OK;
    }

    /** Target side: performs the operation and answers. */
    void register(final weft.uct.Interface i) {
        i.setAmHandler(AmId.SOFT_AMO, this::onRequest);
        i.setAmHandler(AmId.SOFT_AMO_REP, this::onReply);
        i.setAmHandler(AmId.SOFT_AMO_NAK, this::onNak);
    }

    Status onRequest(final MemorySegment data, final long off, final long len, final int flags) {
        if (!SoftAmoRequest.fits(len)) {
            return worker.control.dropMalformed("SOFT_AMO", len);
        }
        final long reqId = SoftTarget.reqId(data, off);
        final Endpoint ep = worker.epTable.byId(SoftTarget.dstEp(data, off));
        if (ep == null) {
            return Status.OK; // the initiator's endpoint to us is gone
        }
        final long nonce = SoftTarget.nonce(data, off);
        final long mapId = SoftTarget.mapId(data, off);
        final long address = SoftTarget.address(data, off);
        final long value = SoftAmoRequest.value(data, off);
        final long compare = SoftAmoRequest.compare(data, off);
        final int opIndex = SoftAmoRequest.op(data, off);
        final int size = SoftAmoRequest.size(data, off);
        final boolean post = SoftAmoRequest.post(data, off);
        Status st = Status.OK;
        long old = 0;
        final MemoryMap map = worker.context.softAmoTarget(nonce, mapId);
        if (map == null) {
            st = Status.INVALID_RKEY;
        } else if (opIndex < 0 || opIndex >= OPS.length || (size != 4 && size != 8)
            || post && !OPS[opIndex].postable()) {
            st = Status.INVALID_PARAM;
        } else {
            final MemorySegment seg = map.segmentUnchecked();
            final long at = address - seg.address();
            if (address < seg.address() || at > seg.byteSize() - size) {
                st = Status.OUT_OF_RANGE;
            } else if (!MemoryAtomics.aligned(address, size)) {
                st = Status.INVALID_PARAM;
            } else {
                final AtomicOp op = OPS[opIndex];
                try {
                    if (size == 8) {
                        old = op == AtomicOp.CSWAP ? MemoryAtomics.cswap64(seg, at, compare, value)
                            : MemoryAtomics.fetch64(op, seg, at, value);
                    } else {
                        old = op == AtomicOp.CSWAP ? MemoryAtomics.cswap32(seg, at, (int) compare, (int) value)
                            : MemoryAtomics.fetch32(op, seg, at, (int) value);
                    }
                } catch (final IllegalStateException e) {
                    st = Status.INVALID_RKEY; // unmapped by another thread meanwhile (its arena closed)
                }
            }
        }
        if (st == Status.OK) {
            ep.sendReply(AmId.SOFT_AMO_REP, reqId, post ? 0 : old);
        } else {
            ep.sendReply(AmId.SOFT_AMO_NAK, reqId, st.code());
        }
        return Status.OK;
    }

    /** Initiator side: the old value (or the acknowledgement of a post). */
    Status onReply(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = worker.inflight.named(data, off, len, "SOFT_AMO_REP");
        if (r == null || r.kind != Request.RMA) {
            return Status.OK; // completed meanwhile (its endpoint failed)
        }
        if (r.rma.op == Rma.AMO_FETCH || r.rma.op == Rma.AMO_CSWAP) {
            final long old = ControlMessage.value(data, off);
            if (r.capacity == 8) {
                r.buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, r.offset, old);
            } else {
                r.buffer.set(ValueLayout.JAVA_INT_UNALIGNED, r.offset, (int) old);
            }
        }
        final Endpoint ep = r.ep;
        r.completion.complete(Status.OK);
        ep.rma.softAmoDone(Status.OK);
        return Status.OK;
    }

    /** Initiator side: the target refused the operation (nothing was changed). */
    Status onNak(final MemorySegment data, final long off, final long len, final int flags) {
        final Request r = worker.inflight.named(data, off, len, "SOFT_AMO_NAK");
        if (r == null || r.kind != Request.RMA) {
            return Status.OK;
        }
        Status st = Status.of((int) ControlMessage.value(data, off));
        if (!st.isError()) {
            st = Status.IO_ERROR; // a NAK always carries an error
        }
        final Endpoint ep = r.ep;
        // a refused post reports at the next flush, as does a put or get (emulated: SoftRma) nobody holds (nbi)
        final boolean nbi = r.rma.op == Rma.AMO_POST || (r.rma.op == Rma.PUT || r.rma.op == Rma.GET) && r.released;
        r.completion.complete(st);
        ep.rma.softAmoDone(nbi ? st : Status.OK);
        return Status.OK;
    }
}
