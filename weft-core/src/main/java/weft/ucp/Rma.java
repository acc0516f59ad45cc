package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.InterfaceAttributes;

import java.lang.foreign.MemorySegment;

/**
 * One-sided operations of an endpoint: put, get and atomics on an {@link Rkey}'s lanes (put/get on the
 * rail(s) {@link Rails} chose, atomics on the key's one atomic lane). Every
 * operation is issued in pieces the lane accepts (any length, including above 2 GiB); an operation
 * that the lane finished inside the call completes at once (no request); otherwise a pooled request
 * tracks it. When a lane is out of resources the operation waits, in order, in the endpoint's send
 * queue.
 */
final class Rma {
    static final byte PUT = 1;
    static final byte GET = 2;
    static final byte AMO_POST = 3;
    static final byte AMO_FETCH = 4;
    static final byte AMO_CSWAP = 5;
    static final byte FENCE = 6;

    private Rma() {
    }

    /** Fills a request for an operation; the caller issues it with {@link #issue}. */
    static Request prepare(final Endpoint ep, final byte op, final MemorySegment buf, final long off, final long len,
                           final long remoteAddress, final Rkey rkey, final RequestCallback cb) {
        if (rkey.ep != ep) {
            throw new WeftException(Status.INVALID_RKEY, "remote key was unpacked for another endpoint (" + rkey.ep + ")");
        }
        rkey.checkOpen();
        if (buf != null) {
            Worker.checkRange(buf, off, len);
        }
        final Request r = ep.worker.acquire(Request.RMA);
        r.ep = ep;
        r.rmaOp = op;
        r.buffer = buf;
        r.offset = off;
        r.capacity = len;
        r.length = len;
        r.remoteAddress = remoteAddress;
        r.rkeyRef = rkey;
        r.callback = cb;
        r.completion.reset(1); // our reference, dropped once every piece is issued
        if (buf != null && !buf.isNative() && (op == PUT || op == GET)) {
            RmaBounce.attach(r); // heap memory: no lane can hand it to the kernel or a peer
        }
        return r;
    }

    /**
     * Issues what remains of {@code r}. Returns OK once the request's fate is in its completion count
     * (everything issued, or failed: the error is recorded and the request completes when the pieces
     * already issued have finished), or NO_RESOURCE if a lane is full (call again later).
     */
    static Status issue(final Request r) {
        final Rkey k = r.rkeyRef;
        if (k.isClosed()) {
            return fail(r, Status.INVALID_RKEY);
        }
        switch (r.rmaOp) {
            case PUT, GET -> {
                if (k.rails.length == 0) {
                    return fail(r, Status.UNSUPPORTED);
                }
                if (r.railCount > 1) {
                    return Rails.issueStriped(r, k);
                }
                final Lane lane = k.rails[r.rail];
                final weft.uct.RemoteKey key = k.railKeys[r.rail];
                final InterfaceAttributes a = lane.local.attrs;
                final boolean put = r.rmaOp == PUT;
                if (put && r.capacity <= a.putMaxShort() && a.has(Capability.PUT_SHORT) && r.dt == Datatypes.CONTIG) {
                    final Status st = lane.uct.putShort(r.buffer, r.offset, (int) r.capacity, r.remoteAddress, key);
                    if (st != Status.NO_RESOURCE) {
                        lane.countRma(true, r.capacity);
                    }
                    return done(r, st);
                }
                final long max = put ? a.putMaxZcopy() : a.getMaxZcopy();
                while (r.received < r.capacity) {
                    final weft.uct.IoVector v = RmaPieces.next(r, max);
                    final long n = v.totalLength();
                    r.completion.expect(1);
                    final Status st = put ? lane.uct.putZcopy(v, r.remoteAddress + r.received, key, r.completion)
                        : lane.uct.getZcopy(v, r.remoteAddress + r.received, key, r.completion);
                    if (st != Status.NO_RESOURCE) {
                        lane.countRma(put, n);
                    }
                    if (!piece(r, st, n)) {
                        return st == Status.NO_RESOURCE ? st : Status.OK;
                    }
                }
                return finishIssue(r);
            }
            case AMO_POST -> {
                final Lane lane = k.amoLane;
                if (lane == null && k.softAmo) {
                    return SoftAtomics.issue(r, k);
                }
                if (lane == null || !k.supportsAtomic(r.atomicOp, r.capacity == 8)) {
                    return fail(r, Status.UNSUPPORTED);
                }
                final Status st = r.capacity == 8
                    ? lane.uct.atomic64Post(r.atomicOp, r.value, r.remoteAddress, k.amoKey)
                    : lane.uct.atomic32Post(r.atomicOp, (int) r.value, r.remoteAddress, k.amoKey);
                if (st != Status.NO_RESOURCE) {
                    lane.counters.increment(weft.ucs.stats.Counter.ATOMICS);
                }
                return done(r, st);
            }
            case AMO_FETCH, AMO_CSWAP -> {
                final Lane lane = k.amoLane;
                final boolean is64 = r.capacity == 8;
                if (lane == null && k.softAmo) {
                    return SoftAtomics.issue(r, k);
                }
                if (lane == null || !k.supportsAtomic(r.rmaOp == AMO_CSWAP ? AtomicOp.CSWAP : r.atomicOp, is64)) {
                    return fail(r, Status.UNSUPPORTED);
                }
                r.completion.expect(1);
                final Status st;
                if (r.rmaOp == AMO_CSWAP) {
                    st = is64 ? lane.uct.atomic64Cswap(r.compare, r.value, r.buffer, r.offset, r.remoteAddress, k.amoKey,
                        r.completion)
                        : lane.uct.atomic32Cswap((int) r.compare, (int) r.value, r.buffer, r.offset, r.remoteAddress,
                            k.amoKey, r.completion);
                } else {
                    st = is64 ? lane.uct.atomic64Fetch(r.atomicOp, r.value, r.buffer, r.offset, r.remoteAddress, k.amoKey,
                        r.completion)
                        : lane.uct.atomic32Fetch(r.atomicOp, (int) r.value, r.buffer, r.offset, r.remoteAddress,
                            k.amoKey, r.completion);
                }
                if (st != Status.NO_RESOURCE) {
                    lane.counters.increment(weft.ucs.stats.Counter.ATOMICS);
                }
                if (!piece(r, st, 0)) {
                    return st == Status.NO_RESOURCE ? st : Status.OK;
                }
                return finishIssue(r);
            }
            default -> {
                return fail(r, Status.INVALID_PARAM);
            }
        }
    }

    private static Status fail(final Request r, final Status st) {
        r.completion.complete(st); // drops our reference: completes with st once issued pieces finish
        return Status.OK;
    }

    /** Accounts one issued piece; false to stop (out of resources, or failed: then our reference is dropped). */
    private static boolean piece(final Request r, final Status st, final long n) {
        if (st == Status.NO_RESOURCE) {
            r.completion.expect(-1);
            return false;
        }
        if (st != Status.IN_PROGRESS) {
            r.completion.complete(st); // the piece finished inside the call, or failed
        }
        if (st.isError()) {
            r.completion.complete(st);
            return false;
        }
        r.received += n;
        return true;
    }

    /** A single-shot operation (put short, atomic post): finished or failed inside the call. */
    private static Status done(final Request r, final Status st) {
        if (st == Status.NO_RESOURCE) {
            return st;
        }
        r.completion.complete(st == Status.IN_PROGRESS ? Status.INVALID_PARAM : st); // never in progress
        return Status.OK;
    }

    private static Status finishIssue(final Request r) {
        r.completion.complete(Status.OK); // drop our reference
        return Status.OK;
    }
}
