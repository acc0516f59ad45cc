package weft.ucp;

import weft.ucs.Status;

/**
 * Multi-rail one-sided operations: which of an {@link Rkey}'s rails (the lanes that reach its memory
 * with put and get, best first) carry a put or get.
 *
 * <ul>
 *   <li>An operation of at least two {@code WEFT_MIN_RMA_CHUNK_SIZE} shares is striped: rail i takes a
 *   contiguous share proportional to its bandwidth, and the pieces are issued turn by turn over the rails,
 *   so that every rail's connection is busy at once and a full rail does not hold the others back.</li>
 *   <li>A smaller operation goes to one rail picked by the policy ({@code WEFT_LANE_POLICY}), as the
 *   Tofu-D port picked one of its six network interfaces: {@link #FIXED} the best rail; {@link #RR} the
 *   next rail of this peer's round robin (cheapest spreading); {@link #LU} the rail with the fewest
 *   outstanding bytes (balances uneven loads, costs a scan of the rails per operation).</li>
 *   <li>Atomics are not scheduled: all atomics on one key use its one atomic lane (one atomicity domain).</li>
 * </ul>
 *
 * <p>Outstanding bytes: an operation's bytes are added to its rails' {@link Lane#outstanding} when it is
 * started (queued or issued) and removed when its request completes ({@link #retire}). Choosing allocates
 * nothing; the striping cursors live in the pooled request.
 */
final class Rails {
    static final int FIXED = 0;
    static final int RR = 1;
    static final int LU = 2;

    private Rails() {
    }

    static int policy(final String name) {
        return switch (name) {
            case "rr" -> RR;
            case "lu" -> LU;
            default -> FIXED;
        };
    }

    /**
     * Chooses the rails of a prepared put/get (or notes the atomic lane) and accounts its bytes as
     * outstanding there. Returns the mask of the lanes the operation will use (for fence ordering).
     */
    static long choose(final Endpoint ep, final Request r) {
        r.wide = true;
        final Rkey k = r.rma.rkey;
        if (r.rma.op != Rma.PUT && r.rma.op != Rma.GET) {
            // emulated atomics: the top bit, which no lane fence covers (a fence then flushes, and waits for their replies)
            return k.amoLane != null ? k.amoLane.bit() : k.softAmo ? Long.MIN_VALUE : 0;
        }
        final Lane[] rails = k.rails;
        final int n = rails.length;
        if (n == 0 || k.softGet(r.rma.op, r.capacity)) {
            // emulated put/get (SoftRma): the top bit, as emulated atomics; else the issue fails with UNSUPPORTED
            return k.softRma || n > 0 ? Long.MIN_VALUE : 0;
        }
        final long chunk = ep.worker.context.minRmaChunk;
        final int use = (int) Math.min(n, r.capacity / chunk);
        if (use >= 2 && r.dt == Datatypes.CONTIG) { // an iov goes whole on one rail (RmaPieces walks it in order)
            return stripe(r, rails, use);
        }
        final int i = n == 1 ? 0 : pick(ep, rails);
        r.stripes.rail = i;
        rails[i].outstanding += r.capacity;
        return rails[i].bit();
    }

    private static int pick(final Endpoint ep, final Lane[] rails) {
        switch (ep.worker.context.lanePolicy) {
            case RR -> {
                final int i = ep.rma.rrNext % rails.length;
                ep.rma.rrNext = i + 1;
                return i;
            }
            case LU -> {
                int best = 0;
                for (int i = 1; i < rails.length; i++) {
                    if (rails[i].outstanding < rails[best].outstanding) {
                        best = i; // ties keep the better (earlier) rail
                    }
                }
                return best;
            }
            default -> {
                return 0;
            }
        }
    }

    /** Splits {@code [0, capacity)} into contiguous bandwidth-weighted shares of the first {@code use} rails. */
    private static long stripe(final Request r, final Lane[] rails, final int use) {
        final long mask = Stripes.plan(r, rails, use, r.capacity);
        long start = 0;
        for (int i = 0; i < use; i++) {
            rails[i].outstanding += r.stripes.end[i] - start;
            start = r.stripes.end[i];
        }
        return mask;
    }

    /** The request of a put/get completed: its bytes are no longer outstanding on its rails. */
    static void retire(final Request r) {
        final Rkey k = r.rma.rkey;
        if (k == null || (r.rma.op != Rma.PUT && r.rma.op != Rma.GET) || k.rails.length == 0
            || k.softGet(r.rma.op, r.capacity)) {
            return; // no rail carried it (atomic, or emulated)
        }
        if (r.stripes.count > 1) {
            long start = 0;
            for (int i = 0; i < r.stripes.count; i++) {
                k.rails[i].outstanding -= r.stripes.end[i] - start;
                start = r.stripes.end[i];
            }
            r.stripes.count = 0;
        } else {
            k.rails[r.stripes.rail].outstanding -= r.capacity;
        }
        r.rma.rkey = null; // retired once
    }

    /**
     * Rendezvous over AM (the receiver asked for the data with RTR): streams the pieces zero-copy over the
     * endpoint's rendezvous lanes that send zero-copy active messages, in bandwidth-weighted contiguous
     * shares, one piece per lane in turn (the receiver places each piece by its offset, whatever lane it
     * came on). Returns OK once every piece is issued or the send failed (its fate is then in its
     * completion count), NO_RESOURCE to be called again. Callers check {@link #stripesRendezvous} first.
     */
    static Status sendRndvStriped(final Endpoint ep, final Request r, final Lane[] lanes, final Stripes.Piece data) {
        if (r.stripes.count == 0) {
            Stripes.plan(r, lanes, use(ep, lanes, r.capacity), r.capacity);
        }
        return finish(r, Stripes.issue(r, lanes, null, ep.worker.context.rndvChunk, data));
    }

    /** True if a rendezvous-over-AM message of {@code length} bytes is striped over {@code lanes}. */
    static boolean stripesRendezvous(final Endpoint ep, final Lane[] lanes, final long length) {
        return lanes.length > 1 && use(ep, lanes, length) >= 2;
    }

    private static int use(final Endpoint ep, final Lane[] lanes, final long length) {
        return (int) Math.min(Math.min(lanes.length, 63), length / ep.worker.context.minRmaChunk);
    }

    /**
     * Issues what remains of a striped put or get: one piece per rail in turn, skipping a rail that is
     * out of resources, until every share is issued (OK: the request's fate is in its completion count)
     * or every unfinished rail is full (NO_RESOURCE: called again from the send queue).
     */
    static Status issueStriped(final Request r, final Rkey k) {
        return finish(r, Stripes.issue(r, k.rails, k.railKeys, Long.MAX_VALUE, r.rma.op == Rma.PUT ? Stripes.PUT
            : Stripes.GET));
    }

    /** After {@link Stripes#issue}: drops our reference once everything is issued or the issue failed. */
    private static Status finish(final Request r, final Status st) {
        if (st == Status.NO_RESOURCE) {
            return st;
        }
        r.completion.complete(st); // drop our reference: the request completes with its last piece
        return Status.OK;
    }
}
