package mpi;

/** Rank program: {@code MPI.Init} under a bad {@code WEFT_MPI_TRANSPORT} throws ERR_ARG naming it. */
public final class BadTransportRanks {
    private BadTransportRanks() {
    }

    public static void main(final String[] args) {
        try {
            MPI.Init(args);
        } catch (final MPIException e) {
            final String m = e.getMessage();
            if (e.getErrorClass() == MPI.ERR_ARG && m.contains("WEFT_MPI_TRANSPORT") && m.contains("rdma")
                && m.contains("tag") && m.contains("am")) {
                System.out.println("OK refused: " + m);
                return;
            }
            throw new AssertionError("wrong error: class " + e.getErrorClass() + ": " + m, e);
        }
        throw new AssertionError("MPI.Init accepted WEFT_MPI_TRANSPORT=rdma");
    }
}
