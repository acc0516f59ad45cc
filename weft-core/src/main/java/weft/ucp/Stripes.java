package weft.ucp;

import weft.ucs.Status;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;

/**
 * Bandwidth-weighted striping, written once for every protocol that spreads one request over several
 * lanes: one-sided put/get on a key's rails ({@link Rails}), rendezvous gets ({@link RndvRecv}) and puts
 * ({@link RndvPut}), and rendezvous data streamed over zero-copy active messages ({@link RndvSend}).
 *
 * <p>{@link #plan} cuts {@code [0, total)} into contiguous shares, lane i's proportional to its bandwidth
 * (the last one ends at {@code total}), kept in the pooled request ({@link StripeState#pos},
 * {@link StripeState#end}). {@link #issue} then issues pieces turn by turn, one per lane, so that every
 * lane is busy at once and a full lane is skipped rather than waited for; what a piece is (put, get, an
 * active message) is the {@link Piece}'s. Every piece is counted in the request's completion.
 *
 * <pre>{@code
 * Stripes.plan(r, lanes, lanes.length, want);          // once per request
 * Status st = Stripes.issue(r, lanes, keys, chunk, Stripes.GET);
 * // OK: all issued; NO_RESOURCE: call again later; an error: stopped (pieces issued still complete)
 * }</pre>
 */
final class Stripes {
    private Stripes() {
    }

    /** One piece on one lane: the largest the lane takes, and the call that issues it. */
    abstract static class Piece {
        abstract long max(Lane lane);

        /** Issues {@code r.buffer[r.offset + pos, +len)} to remote position {@code pos}, counted in {@code r}. */
        abstract Status issue(Request r, Lane lane, RemoteKey key, long pos, long len);

        /** Accounts a piece the lane took (lane counters). */
        void count(final Lane lane, final long len) {
        }
    }

    /** A zero-copy put of one piece, counted in the lane's one-sided counters. */
    static final Piece PUT = new RmaPiece(true, true);

    /** A zero-copy get of one piece, counted in the lane's one-sided counters. */
    static final Piece GET = new RmaPiece(false, true);

    /** A rendezvous get (not one-sided traffic of the user's: not in the lane's one-sided counters). */
    static final Piece RNDV_GET = new RmaPiece(false, false);

    private static final class RmaPiece extends Piece {
        private final boolean put;
        private final boolean counted;

        RmaPiece(final boolean put, final boolean counted) {
            this.put = put;
            this.counted = counted;
        }

        @Override
        long max(final Lane lane) {
            return put ? lane.local.attrs.putMaxZcopy() : lane.local.attrs.getMaxZcopy();
        }

        @Override
        Status issue(final Request r, final Lane lane, final RemoteKey key, final long pos, final long len) {
            // the request's one iov serves every piece: a transport that needs the entries later copies them
            final weft.uct.IoVector iov = r.rmaIov.clear().add(r.buffer, r.offset + pos, len);
            return put ? lane.uct.putZcopy(iov, r.remoteAddress + pos, key, r.completion)
                : lane.uct.getZcopy(iov, r.remoteAddress + pos, key, r.completion);
        }

        @Override
        void count(final Lane lane, final long len) {
            if (counted) {
                lane.countRma(put, len);
            }
        }
    }

    /** Splits {@code [0, total)} into contiguous bandwidth-weighted shares of the first {@code use} lanes. */
    static long plan(final Request r, final Lane[] lanes, final int use, final long total) {
        if (r.stripes.pos == null || r.stripes.pos.length < use) {
            r.stripes.pos = new long[Math.max(use, 4)]; // once per pooled request
            r.stripes.end = new long[r.stripes.pos.length];
        }
        double sum = 0;
        for (int i = 0; i < use; i++) {
            sum += lanes[i].bandwidth();
        }
        long mask = 0;
        long start = 0;
        double w = 0;
        for (int i = 0; i < use; i++) {
            w += lanes[i].bandwidth();
            final long end = i == use - 1 ? total : (long) (total * (w / sum));
            r.stripes.pos[i] = start;
            r.stripes.end[i] = end;
            if (end > start) {
                mask |= lanes[i].bit();
            }
            start = end;
        }
        r.stripes.count = use;
        r.wide = true;
        return mask;
    }

    /** Bit i set for each lane i (an index into the planned lanes) whose share is not empty. */
    static long lanesWithShare(final Request r) {
        long m = 0;
        for (int i = 0; i < r.stripes.count; i++) {
            if (r.stripes.end[i] > r.stripes.pos[i]) {
                m |= 1L << i;
            }
        }
        return m;
    }

    /** Issues nothing more of {@code r}'s plan (it failed): {@link #issue} then answers OK at once. */
    static void abandon(final Request r) {
        for (int i = 0; i < r.stripes.count; i++) {
            r.stripes.pos[i] = r.stripes.end[i];
        }
    }

    /**
     * Issues what remains of {@code r}'s plan: one piece per lane in turn (at most {@code chunk} bytes and
     * what the lane takes), skipping a lane that is out of resources. Returns OK once every share is
     * issued, NO_RESOURCE while a lane is full (call again), or the error that stopped it (pieces already
     * issued complete by themselves; the caller drops its own reference with the error).
     */
    static Status issue(final Request r, final Lane[] lanes, final RemoteKey[] keys, final long chunk,
                        final Piece piece) {
        final int n = r.stripes.count;
        long full = 0;
        boolean issued = true;
        while (issued) {
            issued = false;
            for (int i = 0; i < n; i++) {
                final long pos = r.stripes.pos[i];
                if (pos >= r.stripes.end[i] || (full & (1L << i)) != 0) {
                    continue;
                }
                final Lane lane = lanes[i];
                final long len = Math.min(r.stripes.end[i] - pos, Math.min(piece.max(lane), chunk));
                r.completion.expect(1);
                final Status st = SendProtocol.counted(r, piece.issue(r, lane, keys == null ? null : keys[i], pos, len));
                if (st == Status.NO_RESOURCE) {
                    full |= 1L << i;
                    continue;
                }
                if (st.isError()) {
                    return st;
                }
                piece.count(lane, len);
                r.stripes.pos[i] = pos + len;
                r.moved += len;
                issued = true;
            }
        }
        for (int i = 0; i < n; i++) {
            if (r.stripes.pos[i] < r.stripes.end[i]) {
                return Status.NO_RESOURCE;
            }
        }
        return Status.OK;
    }

    /** Rendezvous data over zero-copy active messages: RNDV_DATA pieces placed by their offset. */
    static final class AmData extends Piece {
        private final MemorySegment hdr;

        /** @param hdr a {@link weft.ucp.wire.FragmentHeader} buffer (the transport copies it) */
        AmData(final MemorySegment hdr) {
            this.hdr = hdr;
        }

        @Override
        long max(final Lane lane) {
            return lane.local.attrs.amMaxZcopy();
        }

        @Override
        Status issue(final Request r, final Lane lane, final RemoteKey key, final long pos, final long len) {
            weft.ucp.wire.FragmentHeader.write(hdr, 0, r.rndv.peerReq, pos);
            // the transport copies the vector's entries: rmaIov is reused for the next piece
            return lane.uct.amZcopy(AmId.RNDV_DATA, hdr, 0, weft.ucp.wire.FragmentHeader.LENGTH,
                r.rmaIov.clear().add(r.buffer, r.offset + pos, len), r.completion);
        }

        @Override
        void count(final Lane lane, final long len) {
            lane.counters.add(weft.ucs.stats.Counter.TX_BYTES, len);
        }
    }
}
