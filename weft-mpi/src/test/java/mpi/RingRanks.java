package mpi;

/**
 * Rank program: a ring (each rank talks to its two neighbours only), then the count of endpoints this rank
 * made, which must be one or two (its neighbours): connections are made on first use. Prints
 * {@code OK ring ...}.
 */
public final class RingRanks {
    private RingRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("ring", rank);
        final int[] token = new int[1];
        for (int lap = 0; lap < 10; lap++) {
            w.sendRecv(new int[] {rank + lap}, 1, MPI.INT, (rank + 1) % size, lap, token, 1, MPI.INT,
                (rank - 1 + size) % size, lap);
            c.equal((rank - 1 + size) % size + lap, token[0], "ring lap " + lap);
        }
        // the right neighbour it sends to, and the left one if a receive waited long enough to watch its liveness
        final int eps = MPI.session().job.endpointCount();
        c.that(eps >= 1 && eps <= Math.min(2, size), "endpoints made by a rank of a " + size + "-rank ring: " + eps);
        c.done();
        MPI.Finalize();
    }
}
