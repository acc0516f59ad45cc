package weft.tools.bench;

import weft.tools.perftest.PerfResult;

/**
 * What one side's run of a point gave: the result, or why there is none.
 *
 * @param result        the final perftest figures, null on failure
 * @param allocPerOp    bytes the measuring thread allocated per iteration (NaN when the side does not say)
 * @param error         why the run failed, null on success
 * @param steadyAt      the measured iteration from which latency was steady (perftest's "# steady state"
 *                      line; the iteration count when it never settled), -1 when the side does not say
 * @param jitMs         JIT compilation time inside the measured phase (ms), -1 when the side does not say
 */
record Outcome(PerfResult result, double allocPerOp, String error, long steadyAt, long jitMs) {
    static Outcome ok(final PerfResult r, final double allocPerOp) {
        return new Outcome(r, allocPerOp, null, -1, -1);
    }

    static Outcome ok(final PerfResult r, final double allocPerOp, final long steadyAt, final long jitMs) {
        return new Outcome(r, allocPerOp, null, steadyAt, jitMs);
    }

    static Outcome failed(final String why) {
        return new Outcome(null, Double.NaN, why, -1, -1);
    }

    boolean succeeded() {
        return result != null;
    }
}
