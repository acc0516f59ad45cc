package mpi;

/**
 * Rank program: the shortest real job (an allreduce of the ranks, as {@code examples/MpiHello.java}), then
 * {@code MPI.Finalize}, which must return on every rank: it prints {@code OK finalize rank N} after it.
 */
public final class FinalizeRanks {
    private FinalizeRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final int[] sum = {rank};
        w.allReduce(sum, 1, MPI.INT, MPI.SUM);
        if (sum[0] != size * (size - 1) / 2) {
            throw new AssertionError("allreduce of the ranks gave " + sum[0]);
        }
        MPI.Finalize();
        System.out.println("OK finalize rank " + rank);
    }
}
