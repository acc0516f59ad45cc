package mpi;

/**
 * An MPI error: the error class (one of the {@code MPI.ERR_*} constants) and a message saying what went
 * wrong. Thrown by calls on a communicator whose error handler is {@link MPI#ERRORS_RETURN}; under the
 * default {@link MPI#ERRORS_ARE_FATAL} the error ends the job instead.
 */
public final class MPIException extends Exception {
    private final int errorCode;
    private final int errorClass;

    MPIException(final int errorClass, final String message) {
        super(message);
        this.errorCode = errorClass;
        this.errorClass = errorClass;
    }

    MPIException(final int errorClass, final String message, final Throwable cause) {
        super(message, cause);
        this.errorCode = errorClass;
        this.errorClass = errorClass;
    }

    /** An error of class {@link MPI#ERR_OTHER} with {@code message}. */
    public MPIException(final String message) {
        this(MPI.ERR_OTHER, message);
    }

    /** An error of class {@link MPI#ERR_OTHER} caused by {@code cause}. */
    public MPIException(final Throwable cause) {
        this(MPI.ERR_OTHER, String.valueOf(cause.getMessage()), cause);
    }

    /** The error code (here the same as the class). */
    public int getErrorCode() {
        return errorCode;
    }

    /** The error class: one of the {@code MPI.ERR_*} constants. */
    public int getErrorClass() {
        return errorClass;
    }
}
