package mpi;

/** An MPI object released explicitly ({@code MPI_*_free}). */
public interface Freeable {
    /** Releases the object; it must not be used afterwards. */
    void free() throws MPIException;
}
