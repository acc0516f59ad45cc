package mpi;

/**
 * A topology's neighbours of this rank, in MPI's order: {@code in[i]} sends block i of a neighbour collective,
 * {@code out[j]} receives block j ({@link MPI#PROC_NULL} entries exchange nothing). {@code inSub}/{@code outSub}
 * pair the messages when a neighbour appears more than once: the message sent as {@code outSub[j]} is the
 * one the receiver expects as {@code inSub[i]}.
 */
record Neighbours(int[] in, int[] inSub, int[] out, int[] outSub) {
    /** Sub-tags by occurrence: the k-th edge between two ranks pairs with the k-th in the other direction. */
    static int[] occurrences(final int[] ranks) throws MPIException {
        final int[] sub = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            for (int k = 0; k < i; k++) {
                if (ranks[k] == ranks[i]) {
                    sub[i]++;
                }
            }
            if (sub[i] >= Coll.SUBS) {
                throw new MPIException(MPI.ERR_TOPOLOGY, "more than " + Coll.SUBS + " edges to rank " + ranks[i]);
            }
        }
        return sub;
    }
}
