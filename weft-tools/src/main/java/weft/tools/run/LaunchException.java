package weft.tools.run;

/** A job that cannot be started as asked (bad option, unknown host, missing agent, port in use). */
final class LaunchException extends RuntimeException {
    LaunchException(final String message) {
        super(message);
    }

    LaunchException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
