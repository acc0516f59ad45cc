package weft.ucp;

import weft.uct.IoVector;

/**
 * Cuts the local side of a put or get into the pieces a lane takes: at most {@code max} bytes and
 * {@link #MAX_IOV} entries each, from a contiguous buffer or from the user's {@link IoVector}
 * (walked with the request's datatype cursor, so sequential pieces never rescan it).
 *
 * <p>Every piece reuses the request's own iov: a transport copies the entries it needs after the call
 * (the uct {@link weft.uct.Endpoint} contract), so no piece allocates.
 */
final class RmaPieces {
    /** Most iov entries of one piece (the tcp and cma limit). */
    static final int MAX_IOV = 16;

    private RmaPieces() {
    }

    /** Attaches a user iov as the local data of a prepared put/get (length = its total). */
    static void attachIov(final Request r, final IoVector iov) {
        r.dt = Datatypes.IOV;
        r.data.iov = iov;
        r.buffer = null;
        r.offset = 0;
        r.data.entry = 0;
        r.data.entryBase = 0;
        for (int i = 0; i < iov.count(); i++) {
            if (!iov.segment(i).isNative()) {
                RmaBounce.attach(r);
                return;
            }
        }
    }

    /** The iov of the next piece: local bytes {@code [r.moved, +≤max)}; its length is what it covers. */
    static IoVector next(final Request r, final long max) {
        final IoVector v = r.rmaIov.clear();
        final long want = Math.min(max, r.capacity - r.moved);
        if (r.dt != Datatypes.IOV) {
            return v.add(r.buffer, r.offset + r.moved, want);
        }
        final IoVector u = r.data.iov;
        final int count = u.count();
        long pos = r.moved;
        int i = r.data.entry;
        long base = r.data.entryBase;
        while (i < count && base + u.length(i) <= pos) {
            base += u.length(i);
            i++;
        }
        r.data.entry = i;
        r.data.entryBase = base;
        long left = want;
        while (left > 0 && i < count && v.count() < MAX_IOV) {
            final long in = pos - base;
            final long n = Math.min(u.length(i) - in, left);
            if (n > 0) {
                v.add(u.segment(i), u.offset(i) + in, n);
            }
            pos += n;
            left -= n;
            base += u.length(i);
            i++;
        }
        return v;
    }
}
