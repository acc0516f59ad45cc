package weft.ucs;

/**
 * When keepalive rounds are due: the first comes {@link #START_NS} after the timer starts (or after the
 * last round, once {@link #restart} was called for a new peer) and each gap doubles until it reaches the
 * configured interval (1, 2, 4 ... 256 ms, then every 500 ms by default). Single threaded, allocation free.
 *
 * <p>Why: the JIT compiles a worker's progress loop from what it ran while warming up. A keepalive
 * that first runs a few hundred milliseconds into a job, after that compile, takes branches the
 * compiled code never saw (the keepalive itself, and at the peer the first message on an idle FIFO):
 * the loop deoptimizes and is recompiled, 10-50 ms of slow progress inside a running job (seen as
 * compiles inside perftest's measured phase). Early rounds put those paths in the profile, and check a
 * new peer sooner; they cost nine extra rounds per peer (in its first half second), once.
 *
 * <pre>{@code
 * KeepaliveRamp ramp = new KeepaliveRamp(intervalNs, System.nanoTime());
 * // in progress:
 * if (ramp.due(System.nanoTime())) checkPeers();
 * }</pre>
 */
public final class KeepaliveRamp {
    /** The first gap. */
    public static final long START_NS = 1_000_000L;

    private final long intervalNs;
    private long gapNs;
    private long lastNs;

    /** A timer for rounds every {@code intervalNs} once ramped up, started at {@code nowNs}. */
    public KeepaliveRamp(final long intervalNs, final long nowNs) {
        this.intervalNs = intervalNs;
        this.gapNs = Math.min(START_NS, intervalNs);
        this.lastNs = nowNs;
    }

    /** Time since the last round (or since the start). */
    public long sinceLastRound(final long nowNs) {
        return nowNs - lastNs;
    }

    /** True if a round is due at {@code nowNs}; it then counts as held, and the next gap begins. */
    public boolean due(final long nowNs) {
        if (nowNs - lastNs < gapNs) {
            return false;
        }
        lastNs = nowNs;
        // doubles, up to the interval exactly, without a branch (Math.min is a conditional move): written as a
        // test, the step that first reached the interval (~0.5 s into a job) took a branch the compiled progress
        // loop had never seen and deoptimized it, the very recompile this class exists to avoid
        gapNs += Math.min(gapNs, intervalNs - gapNs);
        return true;
    }

    /** A new peer: the next round comes {@link #START_NS} after the last one, and the ramp starts over. */
    public void restart() {
        gapNs = Math.min(START_NS, intervalNs);
    }
}
