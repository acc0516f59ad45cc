package mpi;

/** The neighbours of a shift along one dimension ({@link CartComm#shift}). */
public final class ShiftParms {
    private final int source;
    private final int dest;

    ShiftParms(final int source, final int dest) {
        this.source = source;
        this.dest = dest;
    }

    /** The rank this rank receives from ({@link MPI#PROC_NULL} at an open edge). */
    public int getRankSource() {
        return source;
    }

    /** The rank this rank sends to ({@link MPI#PROC_NULL} at an open edge). */
    public int getRankDest() {
        return dest;
    }
}
