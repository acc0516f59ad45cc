package weft.ucs;

/**
 * When a repeated warning is worth a line: the 1st, 2nd, 4th, 8th ... occurrence. Input from other
 * processes (malformed messages, refused connections) is counted always and logged this way, so that a
 * hostile or broken peer cannot flood the log, while a human still sees the first one at once and the
 * count growing.
 */
public final class LogLimit {
    private LogLimit() {
    }

    /** True if the {@code nth} occurrence (1-based) should be logged. */
    public static boolean due(final long nth) {
        return nth > 0 && (nth & (nth - 1)) == 0;
    }
}
