package weft.ucs;

/**
 * The gaps between keepalive rounds: the first comes {@link #START_NS} after an endpoint appears and
 * each gap doubles until it reaches the configured interval (1, 2, 4, ... ms, then every interval).
 *
 * <p>Why: the JIT compiles a worker's progress loop from what it ran while warming up. A keepalive
 * that first runs a few hundred milliseconds into a job, after that compile, takes branches the
 * compiled code never saw (the keepalive itself, and at the peer the first message on an idle FIFO):
 * the loop deoptimizes and is recompiled, 10-50 ms of slow progress inside a running job (seen as
 * compiles inside perftest's measured phase). Early rounds put those paths in the profile, and check a
 * new peer sooner; they cost nine extra rounds per endpoint (in its first half second), once.
 */
public final class KeepaliveRamp {
    /** The first gap. */
    public static final long START_NS = 1_000_000L;

    private KeepaliveRamp() {
    }

    /** The gap before the first round with a configured {@code intervalNs}. */
    public static long first(final long intervalNs) {
        return Math.min(START_NS, intervalNs);
    }

    /** The gap after one of {@code gapNs}. */
    public static long next(final long gapNs, final long intervalNs) {
        return gapNs >= intervalNs / 2 ? intervalNs : gapNs * 2;
    }
}
