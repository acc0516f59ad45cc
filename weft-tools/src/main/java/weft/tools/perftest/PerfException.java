package weft.tools.perftest;

/** A perftest failure with a message for the user; the command prints it and exits non-zero. */
public final class PerfException extends RuntimeException {
    public PerfException(final String message) {
        super(message);
    }

    public PerfException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
