package mpi;

/**
 * What a communicator does with an error: end the job ({@link MPI#ERRORS_ARE_FATAL}, the default, and
 * {@link MPI#ERRORS_ABORT}) or throw it to the caller as an {@link MPIException} ({@link MPI#ERRORS_RETURN}).
 */
public final class Errhandler {
    final boolean fatal;
    private final String name;

    Errhandler(final boolean fatal, final String name) {
        this.fatal = fatal;
        this.name = name;
    }

    /** Frees nothing: the predefined handlers live as long as the program. */
    public void free() {
        // predefined handlers are never freed
    }

    @Override
    public String toString() {
        return name;
    }
}
