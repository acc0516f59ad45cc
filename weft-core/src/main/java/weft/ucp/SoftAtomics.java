package weft.ucp;

import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.MemoryAtomics;

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
 *  SOFT_AMO      am short, header = initiator request id,
 *                [u64 dst ep][u64 nonce][u64 map id][u64 address][u64 value][u64 compare][u8 op][u8 size][u8 post]
 *  SOFT_AMO_REP  am short, header = initiator request id, [u64 old value]
 *  SOFT_AMO_NAK  am short, header = initiator request id, [u64 status code]
 * </pre>
 */
final class SoftAtomics {
    /** Name of the packed-key entry that names a memory map for emulated atomics. */
    static final String ENTRY = "ucp-amo";
    static final int ENTRY_LENGTH = 16;
    static final int REQUEST_LENGTH = 56;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final AtomicOp[] OPS = AtomicOp.values();

    private final Worker worker;

    SoftAtomics(final Worker worker) {
        this.worker = worker;
    }

    /** The key entry of {@code map}: {@code [u64 context nonce][u64 map id]}. */
    static byte[] entry(final long nonce, final long mapId) {
        final byte[] b = new byte[ENTRY_LENGTH];
        final MemorySegment s = MemorySegment.ofArray(b);
        s.set(LONG, 0, nonce);
        s.set(LONG, 8, mapId);
        return b;
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
        final AtomicOp op = r.rmaOp == Rma.AMO_CSWAP ? AtomicOp.CSWAP : r.atomicOp;
        if (op == null || (r.rmaOp == Rma.AMO_POST && op.bit() > AtomicOp.XOR.bit())) {
            r.completion.complete(Status.INVALID_PARAM);
            return Status.OK;
        }
        if (r.id < 0) {
            ep.worker.inflight.register(r); // the reply names the request
        }
        final MemorySegment b = ep.rma.softAmoBuffer();
        b.set(LONG, 0, ep.remoteId);
        b.set(LONG, 8, k.softNonce);
        b.set(LONG, 16, k.softMapId);
        b.set(LONG, 24, r.remoteAddress);
        b.set(LONG, 32, r.value);
        b.set(LONG, 40, r.compare);
        b.set(ValueLayout.JAVA_BYTE, 48, (byte) op.ordinal());
        b.set(ValueLayout.JAVA_BYTE, 49, (byte) size);
        b.set(ValueLayout.JAVA_BYTE, 50, (byte) (r.rmaOp == Rma.AMO_POST ? 1 : 0));
        r.completion.expect(1); // the reply's
        final Status st = ep.amEp.amShort(AmId.SOFT_AMO, r.id, b, 0, REQUEST_LENGTH);
        if (st == Status.NO_RESOURCE) {
            r.completion.expect(-1);
            return st;
        }
        ep.am.counters.increment(weft.ucs.stats.Counter.ATOMICS);
        if (st.isError()) {
            r.completion.complete(st); // the reply's share: it will never come
            r.completion.complete(st); // our reference
            return Status.OK;
        }
        ep.rma.softAmoIssued++;
        r.completion.complete(Status.OK); // drop our reference: the reply completes the request
        return Status.OK;
    }

    /** Target side: performs the operation and answers. */
    void register(final weft.uct.Interface i) {
        i.setAmHandler(AmId.SOFT_AMO, this::onRequest);
        i.setAmHandler(AmId.SOFT_AMO_REP, this::onReply);
        i.setAmHandler(AmId.SOFT_AMO_NAK, this::onNak);
    }

    Status onRequest(final MemorySegment data, final long off, final long len, final int flags) {
        if (len != 8 + REQUEST_LENGTH) {
            return Status.OK; // not ours to interpret: a malformed message is dropped
        }
        final long reqId = data.get(LONG, off);
        final Endpoint ep = worker.epTable.byId(data.get(LONG, off + 8));
        if (ep == null) {
            return Status.OK; // the initiator's endpoint to us is gone
        }
        final long nonce = data.get(LONG, off + 16);
        final long mapId = data.get(LONG, off + 24);
        final long address = data.get(LONG, off + 32);
        final long value = data.get(LONG, off + 40);
        final long compare = data.get(LONG, off + 48);
        final int opIndex = data.get(ValueLayout.JAVA_BYTE, off + 56);
        final int size = data.get(ValueLayout.JAVA_BYTE, off + 57);
        final boolean post = data.get(ValueLayout.JAVA_BYTE, off + 58) != 0;
        Status st = Status.OK;
        long old = 0;
        final MemoryMap map = worker.context.softAmoTarget(nonce, mapId);
        if (map == null) {
            st = Status.INVALID_RKEY;
        } else if (opIndex < 0 || opIndex >= OPS.length || (size != 4 && size != 8)
            || post && OPS[opIndex].bit() > AtomicOp.XOR.bit()) {
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
        if (len < 16) {
            return worker.dropMalformedControl("SOFT_AMO_REP", len);
        }
        final Request r = worker.inflight.byId(data.get(LONG, off));
        if (r == null || r.kind != Request.RMA) {
            return Status.OK; // completed meanwhile (its endpoint failed)
        }
        if (r.rmaOp == Rma.AMO_FETCH || r.rmaOp == Rma.AMO_CSWAP) {
            final long old = data.get(LONG, off + 8);
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
        if (len < 16) {
            return worker.dropMalformedControl("SOFT_AMO_NAK", len);
        }
        final Request r = worker.inflight.byId(data.get(LONG, off));
        if (r == null || r.kind != Request.RMA) {
            return Status.OK;
        }
        Status st = Status.of((int) data.get(LONG, off + 8));
        if (!st.isError()) {
            st = Status.IO_ERROR; // a NAK always carries an error
        }
        final Endpoint ep = r.ep;
        final boolean post = r.rmaOp == Rma.AMO_POST;
        r.completion.complete(st);
        ep.rma.softAmoDone(post ? st : Status.OK); // a refused post reports at the next flush
        return Status.OK;
    }
}
