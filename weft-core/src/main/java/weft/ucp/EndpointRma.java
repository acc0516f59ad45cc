package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.IoVector;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;

/**
 * One endpoint's one-sided operations (one per endpoint): the put/get/atomic entry points behind
 * {@link Endpoint}'s public calls (the immediate path first, else a pooled request issued now or queued
 * in order), flush of every lane, the lazy per-endpoint fence, and the replies the emulated atomics
 * ({@link SoftAtomics}) still owe to a flush. Pieces, lanes and striping are {@link Rma}'s and
 * {@link Rails}'; {@link #PROTOCOL} drives queued RMA requests and completes them.
 */
final class EndpointRma {
    /** Queued RMA requests (operations, flushes, fences) and their completion. */
    static final SendProtocol PROTOCOL = new SendProtocol() {
        @Override
        Status progressSend(final Endpoint ep, final Request r) {
            return ep.rma.progress(r);
        }

        @Override
        void onCompletion(final Request r, final Status st) {
            r.rmaIov.clear();
            RmaBounce.finish(r, st);
            Rails.retire(r); // its bytes are no longer outstanding on its rails
            r.worker.complete(r, st);
        }
    };

    /** See {@link Worker#flush()}: one request over every endpoint's flush. */
    static Request flushAll(final Worker worker) {
        final ArrayList<Endpoint> eps = new ArrayList<>(worker.epTable.live());
        final int bound = eps.size();
        worker.lifecycle.addConnecting(eps); // their flush waits for the bind and the operations posted before
        return flushAll(worker, eps, bound, (byte) 0);
    }

    /**
     * See {@link Worker#flushSent()}: as {@link #flushAll(Worker)} with {@link Rma#FLUSH_SENT}s, over the live
     * list itself (a flush that only asks the lanes removes no endpoint, and the hot path allocates nothing).
     */
    static Request flushSentAll(final Worker worker) {
        worker.checkOpen();
        java.util.List<Endpoint> eps = worker.epTable.live();
        final int bound = eps.size();
        if (worker.lifecycle.anyConnecting()) { // operations waiting for a bind have not left either
            eps = new ArrayList<>(eps);
            worker.lifecycle.addConnecting(eps);
        }
        return flushAll(worker, eps, bound, Rma.FLUSH_SENT);
    }

    /** Flushes {@code eps}; those below {@code bound} are bound, and skipped if no one-sided operation used them. */
    private static Request flushAll(final Worker worker, final java.util.List<Endpoint> eps, final int bound,
                                    final byte op) {
        final Request parent = worker.acquire(Request.RMA);
        parent.completion.reset(1);
        for (int i = 0; i < eps.size(); i++) {
            final Endpoint ep = eps.get(i);
            if (i < bound && !ep.userOwned && !ep.rma.used) {
                // made by a peer's wireup and never given a one-sided operation: nothing to complete, and its
                // failure (that peer's worker closed, e.g. an OpenSHMEM context) is no operation's failure
                continue;
            }
            final Request child = ep.rma.flush(null, op);
            if (!child.isCompleted()) {
                parent.completion.expect(1);
                child.rma.parent = parent;
                child.release();
            } else if (child.status().isError()) {
                parent.completion.expect(1);
                parent.completion.complete(child.status());
            }
        }
        parent.completion.complete(Status.OK);
        return worker.finishImmediate(parent);
    }

    static long iovLength(final IoVector iov) {
        if (iov == null) {
            throw new WeftException(Status.INVALID_PARAM, "null IoVector");
        }
        return iov.totalLength();
    }

    private final Endpoint ep;
    private final Worker worker;
    /** Round-robin cursor of this peer's rails ({@link Rails#RR}). */
    int rrNext;

    EndpointRma(final Endpoint ep) {
        this.ep = ep;
        this.worker = ep.worker;
    }

    /** See {@link Endpoint#putNbi}: a short put goes straight to its lane when nothing orders it. */
    Status putNbi(final MemorySegment src, final long offset, final long length, final long remoteAddress,
                  final Rkey rkey) {
        if (length <= rkey.putShortMax && rkey.ep == ep) {
            final Status st = putShortNow(src, offset, length, remoteAddress, rkey);
            if (st != null) {
                return st;
            }
        }
        return nbi(Rma.PUT, src, offset, length, remoteAddress, rkey, null, 0, 0);
    }

    /**
     * A short put without {@link #nbi}'s general dispatch (shm's is a copy into the peer's mapping): the
     * endpoint's checks, then {@link Rma#putShort}. Null when the general path must decide (something queued
     * or fenced, a closed endpoint or key, a bad range, heap memory, a full transport).
     */
    private Status putShortNow(final MemorySegment src, final long offset, final long length,
                               final long remoteAddress, final Rkey rkey) {
        worker.guard.enter();
        try {
            if (ep.failure() != null || ep.isClosed() || !ep.queue.isEmpty() || fencePending || rkey.isClosed() || offset < 0
                || length < 0 || length > src.byteSize() - offset) {
                return null;
            }
            return Rma.putShort(ep, src, offset, length, remoteAddress, rkey);
        } finally {
            worker.guard.exit();
        }
    }

    /**
     * See {@link Endpoint#putSignalNbi}: one lane call when the lane fuses the two ({@link Rma#putSignal}), else
     * the put, a fence and the signal, each as {@link #nbi}.
     */
    Status putSignalNbi(final MemorySegment src, final long offset, final long length, final long remoteAddress,
                        final Rkey rkey, final weft.uct.AtomicOp sigOp, final long signal, final long signalAddress,
                        final Rkey signalKey) {
        if (src == null || rkey == null || signalKey == null || sigOp == null) {
            throw new WeftException(Status.INVALID_PARAM, "putSignalNbi: null source, key or signal operation");
        }
        final Status fused = putSignalNow(src, offset, length, remoteAddress, rkey, sigOp, signal, signalAddress,
            signalKey);
        if (fused != null) {
            return fused;
        }
        final Status put = length == 0 ? Status.OK : nbi(Rma.PUT, src, offset, length, remoteAddress, rkey, null, 0, 0);
        if (put.isError()) {
            return put;
        }
        worker.guard.enter();
        try {
            fence();
        } finally {
            worker.guard.exit();
        }
        final Status sig = nbi(Rma.AMO_POST, null, 0, 8, signalAddress, signalKey, sigOp, signal, 0);
        return sig == Status.OK ? put : sig;
    }

    /** {@link Rma#putSignal} under the checks of {@link #putShortNow}; null when the general path must decide. */
    private Status putSignalNow(final MemorySegment src, final long offset, final long length,
                                final long remoteAddress, final Rkey rkey, final weft.uct.AtomicOp sigOp,
                                final long signal, final long signalAddress, final Rkey signalKey) {
        worker.guard.enter();
        try {
            if (ep.failure() != null || ep.isClosed() || !ep.queue.isEmpty() || fencePending || rkey.ep != ep
                || signalKey.ep != ep || rkey.isClosed() || signalKey.isClosed() || offset < 0 || length < 0
                || length > src.byteSize() - offset) {
                return null;
            }
            return Rma.putSignal(ep, src, offset, length, remoteAddress, rkey, sigOp, signal, signalAddress, signalKey);
        } finally {
            worker.guard.exit();
        }
    }

    /** An operation completed by flush (nbi): OK if done, IN_PROGRESS, or an error. */
    Status nbi(final byte op, final MemorySegment buf, final long off, final long len, final long raddr,
               final Rkey rkey, final weft.uct.AtomicOp aop, final long value, final long compare) {
        return nbi(op, buf, off, len, raddr, rkey, aop, value, compare, null);
    }

    Status nbi(final byte op, final MemorySegment buf, final long off, final long len, final long raddr,
               final Rkey rkey, final weft.uct.AtomicOp aop, final long value, final long compare,
               final IoVector iov) {
        worker.guard.enter();
        try {
            if (ep.failure() != null || ep.isClosed()) {
                return ep.status();
            }
            if (iov == null && ep.queue.isEmpty() && !fencePending) {
                final Request d = Rma.immediate(ep, op, buf, off, len, raddr, rkey, aop, value, compare);
                if (d != null) {
                    if (d.isCompleted()) {
                        return d.status();
                    }
                    d.released = true; // nobody waits for it: recycled on completion
                    return Status.IN_PROGRESS;
                }
            }
            final Request r = Rma.prepare(ep, op, buf, off, len, raddr, rkey, aop, value, compare, null, iov);
            r.released = true; // nobody waits for it: recycled on completion
            orderRma(Rails.choose(ep, r));
            if (ep.queue.isEmpty() && Rma.issue(r) == Status.OK) {
                return r.completed ? r.status : Status.IN_PROGRESS; // completed: fields stay valid until reuse
            }
            ep.queue.add(r);
            return Status.IN_PROGRESS;
        } finally {
            worker.guard.exit();
        }
    }

    /** An operation with a request of its own (the immediate path returns a shared done request). */
    Request rmaRequest(final byte op, final MemorySegment buf, final long off, final long len, final long raddr,
                       final Rkey rkey, final weft.uct.AtomicOp aop, final long value, final long compare,
                       final RequestCallback cb) {
        return rmaRequest(op, buf, off, len, raddr, rkey, aop, value, compare, cb, null);
    }

    Request rmaRequest(final byte op, final MemorySegment buf, final long off, final long len, final long raddr,
                       final Rkey rkey, final weft.uct.AtomicOp aop, final long value, final long compare,
                       final RequestCallback cb, final IoVector iov) {
        worker.guard.enter();
        try {
            if (ep.failure() != null || ep.isClosed()) {
                return ep.failedSend(cb);
            }
            if (cb == null && iov == null && ep.queue.isEmpty() && !fencePending) {
                final Request d = Rma.immediate(ep, op, buf, off, len, raddr, rkey, aop, value, compare);
                if (d != null) {
                    return d;
                }
            }
            final Request r = Rma.prepare(ep, op, buf, off, len, raddr, rkey, aop, value, compare, cb, iov);
            orderRma(Rails.choose(ep, r));
            if (!ep.queue.isEmpty() || Rma.issue(r) != Status.OK) {
                ep.queue.add(r);
            }
            return worker.finishImmediate(r);
        } finally {
            worker.guard.exit();
        }
    }

    /** A queued flush, fence or operation, from the send queue. */
    Status progress(final Request r) {
        if (r.rma.op == Rma.FENCE) {
            if (r.sendStage == 0) {
                if (flushLanes(r) == Status.NO_RESOURCE) {
                    return Status.NO_RESOURCE;
                }
                r.sendStage = 1;
                r.completion.complete(Status.OK); // drop our reference
            }
            if (!r.completed) {
                return Status.NO_RESOURCE; // later operations wait behind the fence
            }
            worker.requests.recycle(r);
            return Status.OK;
        }
        if (r.rma.op == 0 || r.rma.op == Rma.FLUSH_SENT) { // flush
            if (flushLanes(r) == Status.NO_RESOURCE) {
                return Status.NO_RESOURCE;
            }
            r.completion.complete(Status.OK);
            return Status.OK;
        }
        return Rma.issue(r);
    }

    /**
     * Flushes lanes from index r.moved on; NO_RESOURCE leaves the rest for a retry. Once every lane
     * is flushed, the request also waits for the replies of the emulated atomics sent before it (not
     * a {@link Rma#FLUSH_SENT}, which asks the lanes only whether they sent everything).
     */
    private Status flushLanes(final Request r) {
        final int n = ep.laneSet.count();
        final boolean sent = r.rma.op == Rma.FLUSH_SENT;
        final int flags = sent ? weft.uct.Interface.FLUSH_SENT : weft.uct.Interface.FLUSH_REMOTE;
        while (r.moved < n) {
            final int i = (int) r.moved;
            final Lane l = ep.laneSet.at(i);
            r.completion.expect(1);
            final Status st = l.uct.flush(flags, r.completion);
            if (st == Status.NO_RESOURCE) {
                r.completion.expect(-1);
                return st;
            }
            if (st != Status.IN_PROGRESS) {
                r.completion.complete(st);
            }
            r.moved++;
        }
        if (sent) {
            return Status.OK;
        }
        if (softAmoIssued != softAmoDone) {
            r.completion.expect(1);
            r.rma.softAmoWanted = softAmoIssued;
            softAmoWaiters.add(r);
        } else if (softAmoError != null) {
            r.completion.expect(1);
            r.completion.complete(softAmoError); // records the error (the caller drops our reference)
            softAmoError = null;
        }
        return Status.OK;
    }

    // emulated atomics (SoftAtomics): sent and answered counts (replies come in order), the flushes
    // waiting for replies, and the first refusal of a post not yet reported by a flush
    long softAmoIssued;
    private long softAmoDone;
    private final java.util.ArrayDeque<Request> softAmoWaiters = new java.util.ArrayDeque<>(4);
    private Status softAmoError;
    private MemorySegment softAmoBuf;

    /**
     * Accounts an emulated request (atomic, get or put piece) handed to the lane with {@code st}, whose answer
     * completes one share of {@code r}: true if it went; false if it failed, and then {@code r} is complete
     * (the answer's share and our reference both dropped with {@code st}).
     */
    boolean softSent(final Request r, final Status st) {
        if (st.isError()) {
            r.completion.complete(st); // the answer's share: it will never come
            r.completion.complete(st); // our reference
            return false;
        }
        softAmoIssued++;
        used = true;
        return true;
    }

    /** The payload buffer of this endpoint's SOFT_AMO requests (made on first use). */
    MemorySegment softAmoBuffer() {
        if (softAmoBuf == null) {
            softAmoBuf = worker.arena().allocate(weft.ucp.wire.SoftAmoRequest.PAYLOAD_LENGTH, 8);
        }
        return softAmoBuf;
    }

    /** One emulated atomic was answered; {@code st} is an error for a refused post. */
    void softAmoDone(final Status st) {
        softAmoDone++;
        if (st.isError() && softAmoError == null) {
            softAmoError = st;
        }
        Request w;
        while ((w = softAmoWaiters.peek()) != null && w.rma.softAmoWanted <= softAmoDone) {
            softAmoWaiters.poll();
            final Status e = softAmoError;
            softAmoError = null;
            w.completion.complete(e == null ? Status.OK : e);
        }
    }

    /** The endpoint failed: flushes waiting for emulated atomics complete with its error. */
    void failSoftAmoWaiters(final Status st) {
        softAmoDone = softAmoIssued;
        Request w;
        while ((w = softAmoWaiters.poll()) != null) {
            w.completion.complete(st);
        }
    }

    /** See {@link Endpoint#flush()}: a flush request, queued behind what the send queue holds. */
    Request flush(final RequestCallback cb) {
        return flush(cb, (byte) 0);
    }

    /** A flush ({@code op} 0) or a {@link Rma#FLUSH_SENT}, queued behind what the send queue holds. */
    Request flush(final RequestCallback cb, final byte op) {
        worker.guard.enter();
        try {
            if (ep.failure() != null || ep.isClosed()) {
                return ep.failedSend(cb);
            }
            if (ep.connecting != null) {
                return ep.connecting.defer(cb, this::flush);
            }
            final Request r = worker.acquire(Request.RMA);
            r.ep = ep;
            r.callback = cb;
            r.rma.op = op;
            r.completion.reset(1);
            if (ep.queue.isEmpty() && flushLanes(r) == Status.OK) {
                r.completion.complete(Status.OK);
            } else {
                ep.queue.add(r);
            }
            return worker.finishImmediate(r);
        } finally {
            worker.guard.exit();
        }
    }
    // fence state (lazy, as UCX's endpoint-based fence): lanes with one-sided operations that no strong fence
    // has covered yet, and whether a fence waits for the next operation to see which lanes it uses
    long unflushedLanes;
    private boolean fencePending;
    /** Whether any one-sided operation was ever issued on this endpoint (a worker flush covers it). */
    boolean used;
    /**
     * Called with the lanes of each one-sided operation before it is issued. A pending fence becomes a
     * lane fence when the earlier operations and this one share a single lane (the lane keeps its order),
     * else a FENCE request in the send queue that holds this operation until every lane is flushed.
     */
    void orderRma(final long mask) {
        used = true;
        if (fencePending) {
            fencePending = false;
            final long all = unflushedLanes | mask;
            if (Long.bitCount(all) == 1 && all != Long.MIN_VALUE && ep.queue.isEmpty()) {
                ep.laneSet.at(Long.numberOfTrailingZeros(all)).uct.fence();
            } else {
                final Request r = worker.acquire(Request.RMA);
                r.ep = ep;
                r.rma.op = Rma.FENCE;
                r.completion.reset(1);
                ep.queue.add(r);
                unflushedLanes = 0; // every lane is flushed before this operation goes
            }
        }
        unflushedLanes |= mask;
    }

    /** See {@link Worker#fence()}. */
    void fence() {
        if (unflushedLanes != 0 && ep.failure() == null && !ep.isClosed()) {
            fencePending = true; // resolved by the next one-sided operation (orderRma)
        }
    }
}
