package weft.ucs;

/**
 * An error raised at setup time or on misuse, carrying a {@link Status}.
 * The data path reports errors as status values instead.
 */
public class WeftException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Status status;

    public WeftException(final Status status, final String message) {
        super(message + " (" + status + ")");
        this.status = status;
    }

    public WeftException(final Status status, final String message, final Throwable cause) {
        super(message + " (" + status + ")", cause);
        this.status = status;
    }

    public Status status() {
        return status;
    }

    /** Throws if {@code status} is an error, with {@code what} naming the operation. */
    public static void check(final Status status, final String what) {
        if (status.isError()) {
            throw new WeftException(status, what + " failed: " + status.description());
        }
    }
}
