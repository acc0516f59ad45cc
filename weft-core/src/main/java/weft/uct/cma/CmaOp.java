package weft.uct.cma;

import weft.uct.Completion;

/**
 * One slot of an interface's operation ring: a put or get (or a flush marker) with its local
 * iov copied in, so the caller's {@link weft.uct.IoVector} object may be reused at once. Slots are
 * preallocated and reused: posting an operation allocates nothing.
 */
final class CmaOp {
    static final int NONE = 0;
    static final int PUT = 1;
    static final int GET = 2;
    /** Completes when it reaches the head of the ring, i.e. when everything before it is done. */
    static final int FLUSH = 3;

    int kind;
    CmaEndpoint ep;
    Completion completion;
    int iovCount;
    final long[] address;
    final long[] length;
    long remote;
    long total;
    long done;
    /** Resume point in the local iov after a partial transfer: entry index and offset in it. */
    int entry;
    long entryOffset;

    CmaOp(final int maxIov) {
        address = new long[maxIov];
        length = new long[maxIov];
    }

    /** Moves the resume point forward by {@code n} bytes that the kernel transferred. */
    void advance(final long n) {
        done += n;
        long left = n;
        while (left > 0) {
            final long rest = length[entry] - entryOffset;
            if (left >= rest) {
                left -= rest;
                entry++;
                entryOffset = 0;
            } else {
                entryOffset += left;
                left = 0;
            }
        }
    }

    void clear() {
        kind = NONE;
        ep = null;
        completion = null;
        iovCount = 0;
        total = 0;
        done = 0;
        entry = 0;
        entryOffset = 0;
    }
}
