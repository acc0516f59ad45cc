package weft.runtime;

/**
 * The sleeps of a bootstrap wait between its rounds of worker progress ({@code weft.ucs.BlockedProgress}):
 * {@value #FIRST_NS} ns after work was done, doubling while nothing happens, up to {@value #MAX_NS} ns; on a
 * node whose PEs outnumber its CPUs up to {@value #CROWDED_MAX_NS} ns. There, the PEs that reached a fence
 * first wait for the ones still starting, and each early wakeup took CPU from those (64 PEs of an all-pairs
 * wireup on 2 cores: 35 -> 29 s). The answer itself ends a sleep at once; only the worker progress a peer may
 * need from this PE meanwhile is later, by at most the cap.
 */
final class ProgressBackoff {
    static final long FIRST_NS = 20_000;
    static final long MAX_NS = 2_000_000;
    static final long CROWDED_MAX_NS = 20_000_000;

    private final long maxNs;
    private long sliceNs = FIRST_NS;

    /** {@code crowded}: this node's PEs outnumber its CPUs ({@code weft.ucs.Cpus.oversubscribed}). */
    ProgressBackoff(final boolean crowded) {
        this.maxNs = crowded ? CROWDED_MAX_NS : MAX_NS;
    }

    /** Work was done: the next sleep is short again. */
    void reset() {
        sliceNs = FIRST_NS;
    }

    /** The next sleep, at most {@code leftNs}; the one after it is twice as long, up to the cap. */
    long next(final long leftNs) {
        final long s = Math.min(leftNs, sliceNs);
        sliceNs = Math.min(maxNs, sliceNs * 2);
        return s;
    }
}
