package weft.tools.perftest;

/**
 * The timed part of a test, at either layer: what {@code PerfRun} measures and reports. The
 * implementations give the loop of one chunk of iterations and the drain; {@link #run} is common.
 */
interface PerfLoop {
    /** Iterations per call of {@link #runChunk}. */
    long CHUNK = 64;

    /**
     * Runs {@code n} iterations; with a meter, times each. With {@code drain} (the measured phase)
     * it ends with {@link #drain()}, timed too. Returns the meter's final figures (null without
     * meter).
     */
    default PerfResult run(final long n, final PerfMeter meter, final boolean drain) {
        if (meter != null) {
            meter.start(System.nanoTime());
        }
        // In chunks: a loop method entered thousands of times gets a regular optimizing compile
        // during the warm-up, which the measured phase then enters directly. One long loop would
        // get only on-stack-replacement compiles, triggered (and finished) inside the measured
        // loop itself.
        for (long left = n; left > 0; left -= CHUNK) {
            runChunk(Math.min(left, CHUNK), meter);
        }
        if (meter == null) {
            return null;
        }
        if (drain) {
            drain();
        }
        final PerfResult r = meter.finish(System.nanoTime());
        checkFailure();
        return r;
    }

    /** Runs {@code n} (at most {@link #CHUNK}) iterations, recording each in {@code meter} if not null. */
    void runChunk(long n, PerfMeter meter);

    /** Waits until everything the test issued is complete where the test needs it (nothing by default). */
    default void drain() {
    }

    /**
     * Called once after the warm-up: completes what the warm-up left in flight, so that the measured
     * phase neither inherits it nor runs its own drain's code for the first time (nothing by default).
     */
    default void afterWarmup() {
    }

    /** Throws if the run failed in a way the loops did not see (an endpoint error reported late). */
    void checkFailure();

    /** What the run used and counted, one line per entry (printed as comments after the result). */
    String describe();

    /** Releases what a failed run left outstanding (nothing by default). */
    default void abandon() {
    }
}
