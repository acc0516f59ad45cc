package weft.ucp;

import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.ucp.wire.AmHeader;
import weft.ucp.wire.SoftGetRequest;
import weft.ucp.wire.SoftRmaHeader;
import weft.ucp.wire.SoftTarget;

import java.lang.foreign.MemorySegment;

/**
 * Put and get emulated over active messages, for remote memory that no lane reaches directly: memory the
 * peer registered (not allocated) reached over shm without cma (a host where ptrace or seccomp blocks
 * {@code process_vm_readv}); and gets of such memory over shm though cma reaches it ({@link Rkey#softGetMin}:
 * two copies through the FIFO cost less than the kernel's page pinning). As {@link SoftAtomics}, the key's
 * {@code ucp-amo} entry names the target's map, and the target checks the nonce (INVALID_RKEY), that the map
 * is still mapped (INVALID_RKEY) and that the whole range lies in it (OUT_OF_RANGE) before it touches a byte.
 *
 * <pre>
 *  put: SOFT_PUT (internal AM: header {@link SoftRmaHeader}, the data) ---&gt;
 *       &lt;--- SOFT_AMO_REP (request id) once written, or SOFT_AMO_NAK (status)
 *  get: SOFT_GET ({@link SoftGetRequest}, am short) ---&gt;
 *       &lt;--- SOFT_GET_DATA x answers (internal AM: header = request id + address, the data), or as many NAKs
 * </pre>
 *
 * An operation goes in pieces of at most {@link #pieceMax} bytes, each its own message and answer, sent
 * eager (never rendezvous): rendezvous data is queued again when the receiver asks for it, behind a fence
 * that may be waiting for this very answer. Each piece counts as one emulated operation of its endpoint
 * ({@link EndpointRma#softAmoIssued}): a flush or a fence waits for its answer, as for emulated atomics, so
 * put-flush-get and put-fence-put keep their order.
 */
final class SoftRma {
    /** Internal AM ids, above every user id (the am word carries 32 bits of id). */
    static final int SOFT_PUT = ActiveMessages.MAX_ID + 1;
    static final int SOFT_GET_DATA = ActiveMessages.MAX_ID + 2;
    private static final long PIECE = 256 * 1024;

    private final Worker worker;
    /** Where this worker writes a SOFT_PUT or SOFT_GET_DATA header ({@code sendInternal} keeps a copy). */
    private final MemorySegment header = MemorySegment.ofArray(new long[SoftRmaHeader.PUT_LENGTH / 8]);

    SoftRma(final Worker worker) {
        this.worker = worker;
    }

    void register(final weft.uct.Interface i) {
        i.setAmHandler(AmId.SOFT_GET, this::onGet);
    }

    /** The handlers of the internal active messages ({@link ActiveMessages}). */
    AmRecvHandler handler(final int id) {
        return id == SOFT_PUT ? this::onPut : id == SOFT_GET_DATA ? this::onGetData : null;
    }

    /** A piece fits the peer's unexpected budget (eager data is reassembled there) with room to spare. */
    static long pieceMax(final Context c) {
        return Math.max(1, Math.min(PIECE, c.unexpectedBudget / 4));
    }

    /**
     * The most bytes one answer of a get carries: what fits a single message of the AM lane (no fragments to
     * reassemble here: the handler copies straight from the lane's buffer), or the whole piece where that is
     * too small to be worth the answers.
     */
    private static long answerMax(final Endpoint ep, final long piece) {
        final long single = ep.thresholds.maxBcopy - AmHeader.SINGLE_LENGTH - SoftRmaHeader.GET_DATA_LENGTH;
        return single >= SoftGetRequest.MIN_ANSWER ? single : Math.max(piece, SoftGetRequest.MIN_ANSWER);
    }

    /**
     * Sends what remains of the put or get of {@code r}, piece by piece ({@code r.moved}: bytes sent so
     * far); OK once its fate is in the request's completion count, NO_RESOURCE to retry later.
     */
    static Status issue(final Request r, final Rkey k) {
        final Endpoint ep = r.ep;
        if (ep.remoteId < 0) {
            return Status.NO_RESOURCE; // the messages name the peer's endpoint: wait for wireup
        }
        if (r.dt != Datatypes.CONTIG) {
            RmaBounce.attach(r); // an iov travels as contiguous pieces
        }
        if (r.id < 0) {
            ep.worker.inflight.register(r); // the answers name the request
        }
        final long max = pieceMax(ep.worker.context);
        // called from the queue's progress (r at its head: the data must come next, before a fence queued
        // behind r that waits for its answer), or directly with nothing queued
        Request after = ep.queue.head() == r ? r : null;
        final boolean direct = ep.queue.isEmpty();
        do {
            final long at = r.moved;
            final long n = Math.min(max, r.capacity - at);
            r.completion.expect(1); // the answer's share
            Status st;
            if (r.rma.op == Rma.GET) {
                final long answerMax = answerMax(ep, max);
                final MemorySegment b = ep.rma.softAmoBuffer();
                SoftGetRequest.writePayload(b, ep.remoteId, k.softNonce, k.softMapId, r.remoteAddress + at, n,
                    answerMax);
                st = ep.amEp.amShort(AmId.SOFT_GET, r.id, b, 0, SoftGetRequest.PAYLOAD_LENGTH);
                if (st == Status.NO_RESOURCE) {
                    r.completion.expect(-1);
                    return st;
                }
                if (!st.isError()) {
                    // the answers after the first, a share each (at most a piece / MIN_ANSWER of them)
                    final int more = (int) SoftGetRequest.answers(n, answerMax) - 1;
                    r.completion.expect(more);
                    ep.rma.softAmoIssued += more; // softSent below counts the first
                }
            } else {
                final MemorySegment h = SoftRmaHeader.put(ep.worker.softRma.header, r.id, ep.remoteId, k.softNonce,
                    k.softMapId, r.remoteAddress + at);
                final Request s = ep.worker.ams.sendInternal(ep, SOFT_PUT, h, SoftRmaHeader.PUT_LENGTH, r.buffer,
                    r.offset + at, n, after, direct);
                st = s.isCompleted() ? s.status() : Status.OK;
                if (after != null && !s.isCompleted()) {
                    after = s; // the next piece follows this one
                }
                s.release(); // the answer completes the piece: the data has left by then
            }
            if (!ep.rma.softSent(r, st)) {
                return Status.OK;
            }
            r.moved = at + n;
        } while (r.moved < r.capacity);
        r.completion.complete(Status.OK); // drop our reference
        return Status.OK;
    }

    // ------------------------------------------------------------------ target side

    /** A put's piece arrived. */
    private Status onPut(final MemorySegment h, final long hOff, final long hLen, final MemorySegment data,
                         final long dOff, final long dLen, final AmMessage m) {
        if (hLen < SoftRmaHeader.PUT_LENGTH) {
            worker.control.dropMalformed("SOFT_PUT", hLen);
            return Status.OK;
        }
        final long reqId = SoftTarget.reqId(h, hOff);
        final Endpoint ep = worker.epTable.byId(SoftTarget.dstEp(h, hOff));
        if (ep == null) {
            return Status.OK; // the initiator's endpoint to us is gone
        }
        final MemoryMap map = worker.context.softAmoTarget(SoftTarget.nonce(h, hOff), SoftTarget.mapId(h, hOff));
        final long address = SoftTarget.address(h, hOff);
        Status st = m.isRendezvous() ? Status.IO_ERROR : check(map, address, dLen); // pieces are sent eager
        if (st == Status.OK) {
            final MemorySegment seg = map.segmentUnchecked();
            try {
                MemoryCopy.copy(data, dOff, seg, address - seg.address(), dLen);
            } catch (final IllegalStateException e) {
                st = Status.INVALID_RKEY; // unmapped by another thread meanwhile
            }
        }
        answer(ep, reqId, st);
        return Status.OK;
    }

    /** A get's request: answers with the data or a NAK. */
    private Status onGet(final MemorySegment data, final long off, final long len, final int flags) {
        if (!SoftGetRequest.fits(len)) {
            return worker.control.dropMalformed("SOFT_GET", len);
        }
        final long reqId = SoftTarget.reqId(data, off);
        final Endpoint ep = worker.epTable.byId(SoftTarget.dstEp(data, off));
        if (ep == null) {
            return Status.OK;
        }
        final MemoryMap map = worker.context.softAmoTarget(SoftTarget.nonce(data, off),
            SoftTarget.mapId(data, off));
        final long address = SoftTarget.address(data, off);
        final long n = SoftGetRequest.length(data, off);
        final long answerMax = SoftGetRequest.answerMax(data, off);
        if (answerMax < n && answerMax < SoftGetRequest.MIN_ANSWER) {
            return worker.control.dropMalformed("SOFT_GET answer size", answerMax);
        }
        Status st = check(map, address, n);
        if (st == Status.OK && n > pieceMax(worker.context)) {
            st = Status.INVALID_PARAM; // a peer asking for more than a piece
        }
        final long answers = SoftGetRequest.answers(n, answerMax);
        if (st != Status.OK) {
            refuse(ep, reqId, st, answers);
            return Status.OK;
        }
        final MemorySegment seg = map.segmentUnchecked();
        long at = 0;
        try {
            // queued, never sent from here: a handler may run inside this endpoint's own queue progress (self)
            for (long i = 0; i < answers; i++) {
                final long part = Math.min(answerMax, n - at);
                final Request s = worker.ams.sendInternal(ep, SOFT_GET_DATA,
                    SoftRmaHeader.getData(header, reqId, address + at), SoftRmaHeader.GET_DATA_LENGTH, seg,
                    address + at - seg.address(), part, null, false);
                s.release();
                at += part;
            }
        } catch (final IllegalStateException e) { // unmapped by another thread meanwhile
            refuse(ep, reqId, Status.INVALID_RKEY, SoftGetRequest.answers(n - at, answerMax));
        }
        return Status.OK;
    }

    /** Answers each of a get's {@code answers} with a NAK: the initiator waits for that many. */
    private static void refuse(final Endpoint ep, final long reqId, final Status st, final long answers) {
        for (long i = 0; i < answers; i++) {
            answer(ep, reqId, st);
        }
    }

    /** OK if {@code [address, +n)} lies in a live map; else what the initiator is told. */
    private static Status check(final MemoryMap map, final long address, final long n) {
        if (map == null) {
            return Status.INVALID_RKEY;
        }
        final MemorySegment seg = map.segmentUnchecked();
        final long at = address - seg.address();
        if (n < 0 || address < seg.address() || at > seg.byteSize() || n > seg.byteSize() - at) {
            return Status.OUT_OF_RANGE;
        }
        return Status.OK;
    }

    private static void answer(final Endpoint ep, final long reqId, final Status st) {
        if (st == Status.OK) {
            ep.sendReply(AmId.SOFT_AMO_REP, reqId, 0);
        } else {
            ep.sendReply(AmId.SOFT_AMO_NAK, reqId, (st.isError() ? st : Status.IO_ERROR).code());
        }
    }

    // ------------------------------------------------------------------ initiator side

    /** A piece of a get's data arrived. */
    private Status onGetData(final MemorySegment h, final long hOff, final long hLen, final MemorySegment data,
                             final long dOff, final long dLen, final AmMessage m) {
        if (hLen < SoftRmaHeader.GET_DATA_LENGTH) {
            worker.control.dropMalformed("SOFT_GET_DATA", hLen);
            return Status.OK;
        }
        final Request r = worker.inflight.byId(SoftRmaHeader.getDataReqId(h, hOff));
        if (r == null || r.kind != Request.RMA || r.rma.op != Rma.GET) {
            return Status.OK; // completed meanwhile (its endpoint failed)
        }
        final long at = SoftRmaHeader.getDataAddress(h, hOff) - r.remoteAddress;
        Status st = Status.OK;
        if (m.isRendezvous() || at < 0 || at > r.capacity || dLen > r.capacity - at) {
            st = Status.IO_ERROR; // not what was asked for
        } else {
            MemoryCopy.copy(data, dOff, r.buffer, r.offset + at, dLen);
        }
        final Endpoint ep = r.ep;
        r.completion.complete(st);
        ep.rma.softAmoDone(Status.OK); // the get's own request carries a failure
        return Status.OK;
    }
}
