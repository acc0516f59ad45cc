package mpi;

/**
 * The 64-bit ucp tag of an MPI message: {@code [context id : 16][source rank : 20][tag : 28]}. A receive from
 * {@link MPI#ANY_SOURCE} or with {@link MPI#ANY_TAG} masks the field out, so wildcards cost nothing in the
 * matcher. Each communicator has two context ids: an even one for point-to-point traffic and the next odd
 * one for its collectives, so a wildcard receive never takes a collective's message.
 */
final class Tags {
    static final int CID_BITS = 16;
    static final int SOURCE_BITS = 20;
    static final int TAG_BITS = 28;
    /** The largest tag a program may use. */
    static final int TAG_UB = (1 << TAG_BITS) - 1;
    /** The largest communicator size the source field can name. */
    static final int MAX_RANKS = 1 << SOURCE_BITS;
    /** Context ids are handed out in pairs below this bound. */
    static final int MAX_CID = 1 << CID_BITS;

    private static final long TAG_MASK = (1L << TAG_BITS) - 1;
    private static final long SOURCE_MASK = ((1L << SOURCE_BITS) - 1) << TAG_BITS;

    private Tags() {
    }

    static long make(final int cid, final int source, final int tag) {
        return (long) cid << (SOURCE_BITS + TAG_BITS) | (long) source << TAG_BITS | (tag & TAG_MASK);
    }

    /** The ucp mask of a receive: ANY_SOURCE and ANY_TAG clear their fields. */
    static long mask(final int source, final int tag) {
        long m = -1L;
        if (source == MPI.ANY_SOURCE) {
            m &= ~SOURCE_MASK;
        }
        if (tag == MPI.ANY_TAG) {
            m &= ~TAG_MASK;
        }
        return m;
    }

    static int source(final long tag) {
        return (int) ((tag & SOURCE_MASK) >>> TAG_BITS);
    }

    static int tag(final long tag) {
        return (int) (tag & TAG_MASK);
    }
}
