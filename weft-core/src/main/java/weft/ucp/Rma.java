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
    /** A flush that waits only until the lanes sent everything ({@link Endpoint#flushSent()}). */
    static final byte FLUSH_SENT = 7;

    private Rma() {
    }

    /**
     * The immediate path of an operation one lane call can finish: a get of one piece on the key's first
     * rail, a fetching atomic or compare-and-swap, a short put or an atomic post. Called only when nothing
     * orders it behind other work (empty send queue, no pending fence, no callback, contiguous data). The
     * pooled request is not touched when the lane finishes inside the call (the usual case on shm: a
     * copy or CPU atomic on the mapping): a get or fetching atomic hands the lane the completion of the
     * worker's spare request ({@link RequestPool#rmaSpare()}), which the lane leaves alone unless it answers
     * IN_PROGRESS, and only then becomes the operation's request. Short puts and posts take no completion.
     *
     * @return a shared done request (finished, or failed at once), the spare turned into the operation's
     *     request (the lane continues it), or null when the general path must run (a check failed or the
     *     lane is out of resources; nothing was done)
     */
    static Request immediate(final Endpoint ep, final byte op, final MemorySegment buf, final long off, final long len,
                             final long raddr, final Rkey k, final AtomicOp aop, final long value, final long compare) {
        if (k.ep != ep || k.isClosed() || buf != null && (off < 0 || len < 0 || len > buf.byteSize() - off)) {
            return null; // the general path reports it
        }
        final Status st;
        final Lane lane;
        switch (op) {
            case GET -> {
                final Lane[] rails = k.rails;
                // one rail: the first (no striping: below two chunks; the policy picks it, or only one rail)
                if (buf == null || !buf.isNative() || len > k.oneRailMax || len >= k.softGetMin) {
                    return null;
                }
                lane = rails[0];
                if (len <= k.getShortMax) { // a copy from the peer's mapping: no iov, no completion
                    st = lane.uct.getShort(buf, off, (int) len, raddr, k.railKeys[0]);
                    if (st == Status.NO_RESOURCE) {
                        return null;
                    }
                    lane.countRma(false, len);
                    break;
                }
                if (len > lane.local.attrs.getMaxZcopy()) {
                    return null;
                }
                final Request spare = ep.worker.requests.rmaSpare();
                final weft.uct.IoVector v = spare.rmaIov.clear().add(buf, off, len);
                st = lane.uct.getZcopy(v, raddr, k.railKeys[0], spare.completion);
                if (st == Status.NO_RESOURCE) {
                    return null;
                }
                lane.countRma(false, len);
                if (st == Status.IN_PROGRESS) {
                    handOff(ep, spare, op, buf, off, len, raddr, k, aop, value, compare);
                    spare.moved = len; // the one piece is issued
                    lane.outstanding += len; // Rails.retire takes it off when the request completes
                    return inProgress(ep, spare, lane);
                }
                v.clear(); // keeps no reference to the caller's memory
            }
            case AMO_FETCH, AMO_CSWAP -> {
                lane = k.amoLane;
                final boolean is64 = len == 8;
                if (lane == null || buf == null || !k.supportsAtomic(op == AMO_CSWAP ? AtomicOp.CSWAP : aop, is64)) {
                    return null;
                }
                final Request spare = ep.worker.requests.rmaSpare();
                if (op == AMO_CSWAP) {
                    st = is64 ? lane.uct.atomic64Cswap(compare, value, buf, off, raddr, k.amoKey, spare.completion)
                        : lane.uct.atomic32Cswap((int) compare, (int) value, buf, off, raddr, k.amoKey,
                            spare.completion);
                } else {
                    st = is64 ? lane.uct.atomic64Fetch(aop, value, buf, off, raddr, k.amoKey, spare.completion)
                        : lane.uct.atomic32Fetch(aop, (int) value, buf, off, raddr, k.amoKey, spare.completion);
                }
                if (st == Status.NO_RESOURCE) {
                    return null;
                }
                lane.counters.increment(weft.ucs.stats.Counter.ATOMICS);
                if (st == Status.IN_PROGRESS) {
                    handOff(ep, spare, op, buf, off, len, raddr, k, aop, value, compare);
                    return inProgress(ep, spare, lane);
                }
            }
            case PUT -> {
                final Status s = putShort(ep, buf, off, len, raddr, k);
                return s == null ? null : Request.done(s);
            }
            case AMO_POST -> {
                lane = k.amoLane;
                if (lane == null || !k.supportsAtomic(aop, len == 8)) {
                    return null;
                }
                st = len == 8 ? lane.uct.atomic64Post(aop, value, raddr, k.amoKey)
                    : lane.uct.atomic32Post(aop, (int) value, raddr, k.amoKey);
                if (st == Status.NO_RESOURCE) {
                    return null;
                }
                lane.counters.increment(weft.ucs.stats.Counter.ATOMICS);
            }
            default -> {
                return null;
            }
        }
        ep.rma.orderRma(lane.bit()); // no fence pending: notes the lane for the next fence
        // a lane never answers IN_PROGRESS without a completion (short put, post): as the general path
        return Request.done(st == Status.IN_PROGRESS ? Status.INVALID_PARAM : st);
    }

    /**
     * A short contiguous put straight to the key's first rail, when {@link Rkey#putShortMax} allows it (what
     * {@link Rails#choose} would pick) and the memory is off-heap; the caller checked the endpoint, the key
     * and the range, and that no fence is pending. Null when the general path must take it (too long, heap
     * memory, a full transport).
     */
    static Status putShort(final Endpoint ep, final MemorySegment buf, final long off, final long len,
                           final long raddr, final Rkey k) {
        if (len > k.putShortMax || buf == null || !buf.isNative()) {
            return null;
        }
        final Lane lane = k.rmaLane;
        final Status st = lane.uct.putShort(buf, off, (int) len, raddr, k.rmaKey);
        if (st == Status.NO_RESOURCE) {
            return null;
        }
        lane.countRma(true, len);
        ep.rma.orderRma(lane.bit()); // no fence pending: notes the lane for the next fence
        // a short put has no completion, so a lane never answers IN_PROGRESS to it: as the general path
        return st == Status.IN_PROGRESS ? Status.INVALID_PARAM : st;
    }

    /**
     * Put-with-signal in one lane call ({@link Capability#PUT_SIGNAL}): a put the lane copies out inside the call
     * (up to {@link Rkey#putSignalMax}) to {@code k}'s first rail and a 64-bit post atomic (a SWAP is a set)
     * through {@code sk}'s atomic lane, when that is the same lane and no other lane
     * holds earlier unfenced operations (the one lane's order then puts the signal after all of them, as the
     * general path's fence does). Called as {@link #putShort} (nothing orders it behind other work); null when
     * the general path must take it.
     */
    static Status putSignal(final Endpoint ep, final MemorySegment buf, final long off, final long len,
                            final long raddr, final Rkey k, final AtomicOp sigOp, final long signal,
                            final long saddr, final Rkey sk) {
        final Lane lane = k.rmaLane;
        if (len > k.putSignalMax || buf == null || !buf.isNative() || lane == null || sk.amoLane != lane
            || (ep.rma.unflushedLanes & ~lane.bit()) != 0 || !sk.supportsAtomic(sigOp, true)) {
            return null;
        }
        final Status st = lane.uct.putShortSignal(buf, off, (int) len, raddr, k.rmaKey, sigOp, signal, saddr,
            sk.amoKey);
        if (st == Status.NO_RESOURCE) {
            return null;
        }
        lane.countRma(true, len);
        lane.counters.increment(weft.ucs.stats.Counter.ATOMICS);
        lane.counters.increment(weft.ucs.stats.Counter.PUT_SIGNALS);
        ep.rma.orderRma(lane.bit());
        return st == Status.IN_PROGRESS ? Status.INVALID_PARAM : st; // no completion: never in progress
    }

    /** The lane continues the operation: the spare becomes its request (as {@link #prepare} fills one). */
    private static void handOff(final Endpoint ep, final Request r, final byte op, final MemorySegment buf,
                                final long off, final long len, final long raddr, final Rkey k, final AtomicOp aop,
                                final long value, final long compare) {
        ep.worker.requests.rmaSpareTaken();
        fill(r, ep, op, buf, off, len, raddr, k, aop, value, compare);
    }

    private static void fill(final Request r, final Endpoint ep, final byte op, final MemorySegment buf,
                             final long off, final long len, final long raddr, final Rkey k, final AtomicOp aop,
                             final long value, final long compare) {
        r.ep = ep;
        r.buffer = buf;
        r.offset = off;
        r.capacity = len;
        r.length = len;
        r.remoteAddress = raddr;
        final RmaState s = r.rma;
        s.op = op;
        s.rkey = k;
        s.atomicOp = aop;
        s.operand = value;
        s.compare = compare;
    }

    private static Request inProgress(final Endpoint ep, final Request r, final Lane lane) {
        ep.rma.orderRma(lane.bit());
        r.completion.complete(Status.OK); // drop our reference: the lane's completion finishes the request
        return r;
    }

    /**
     * Fills a request for an operation on {@code buf[off, +len)}, or on {@code iov} when not null; the caller
     * issues it with {@link #issue}.
     */
    static Request prepare(final Endpoint ep, final byte op, final MemorySegment buf, final long off, final long len,
                           final long remoteAddress, final Rkey rkey, final AtomicOp aop, final long value,
                           final long compare, final RequestCallback cb, final weft.uct.IoVector iov) {
        if (rkey.ep != ep) {
            throw new WeftException(Status.INVALID_RKEY, "remote key was unpacked for another endpoint (" + rkey.ep + ")");
        }
        rkey.checkOpen();
        if (buf != null) {
            Datatypes.checkRange(buf, off, len);
        }
        final Request r = ep.worker.acquire(Request.RMA);
        fill(r, ep, op, buf, off, len, remoteAddress, rkey, aop, value, compare);
        r.callback = cb;
        r.completion.reset(1); // our reference, dropped once every piece is issued
        if (buf != null && !buf.isNative() && (op == PUT || op == GET)) {
            RmaBounce.attach(r); // heap memory: no lane can hand it to the kernel or a peer
        }
        if (iov != null) {
            RmaPieces.attachIov(r, iov);
        }
        return r;
    }

    /**
     * Issues what remains of {@code r}. Returns OK once the request's fate is in its completion count
     * (everything issued, or failed: the error is recorded and the request completes when the pieces
     * already issued have finished), or NO_RESOURCE if a lane is full (call again later).
     */
    static Status issue(final Request r) {
        final Rkey k = r.rma.rkey;
        if (k.isClosed()) {
            return fail(r, Status.INVALID_RKEY);
        }
        switch (r.rma.op) {
            case PUT, GET -> {
                if (k.rails.length == 0 || k.softGet(r.rma.op, r.capacity)) {
                    return k.softRma || k.rails.length > 0 ? SoftRma.issue(r, k) : fail(r, Status.UNSUPPORTED);
                }
                if (r.stripes.count > 1) {
                    return Rails.issueStriped(r, k);
                }
                final Lane lane = k.rails[r.stripes.rail];
                final weft.uct.RemoteKey key = k.railKeys[r.stripes.rail];
                final InterfaceAttributes a = lane.local.attrs;
                final boolean put = r.rma.op == PUT;
                if (put && r.capacity <= a.putMaxShort() && a.has(Capability.PUT_SHORT) && r.dt == Datatypes.CONTIG) {
                    final Status st = lane.uct.putShort(r.buffer, r.offset, (int) r.capacity, r.remoteAddress, key);
                    if (st != Status.NO_RESOURCE) {
                        lane.countRma(true, r.capacity);
                    }
                    return done(r, st);
                }
                final long max = put ? a.putMaxZcopy() : a.getMaxZcopy();
                while (r.moved < r.capacity) {
                    final weft.uct.IoVector v = RmaPieces.next(r, max);
                    final long n = v.totalLength();
                    r.completion.expect(1);
                    final Status st = put ? lane.uct.putZcopy(v, r.remoteAddress + r.moved, key, r.completion)
                        : lane.uct.getZcopy(v, r.remoteAddress + r.moved, key, r.completion);
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
                if (lane == null || !k.supportsAtomic(r.rma.atomicOp, r.capacity == 8)) {
                    return fail(r, Status.UNSUPPORTED);
                }
                final Status st = r.capacity == 8
                    ? lane.uct.atomic64Post(r.rma.atomicOp, r.rma.operand, r.remoteAddress, k.amoKey)
                    : lane.uct.atomic32Post(r.rma.atomicOp, (int) r.rma.operand, r.remoteAddress, k.amoKey);
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
                if (lane == null || !k.supportsAtomic(r.rma.op == AMO_CSWAP ? AtomicOp.CSWAP : r.rma.atomicOp, is64)) {
                    return fail(r, Status.UNSUPPORTED);
                }
                r.completion.expect(1);
                final Status st;
                final RmaState a = r.rma;
                if (a.op == AMO_CSWAP) {
                    st = is64 ? lane.uct.atomic64Cswap(a.compare, a.operand, r.buffer, r.offset, r.remoteAddress, k.amoKey,
                        r.completion)
                        : lane.uct.atomic32Cswap((int) a.compare, (int) a.operand, r.buffer, r.offset, r.remoteAddress,
                            k.amoKey, r.completion);
                } else {
                    st = is64 ? lane.uct.atomic64Fetch(a.atomicOp, a.operand, r.buffer, r.offset, r.remoteAddress, k.amoKey,
                        r.completion)
                        : lane.uct.atomic32Fetch(a.atomicOp, (int) a.operand, r.buffer, r.offset, r.remoteAddress,
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
        r.moved += n;
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
