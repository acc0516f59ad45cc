package weft.tools.bench;

import weft.tools.perftest.PerfResult;

/**
 * What one side's run of a point gave: the result, or why there is none.
 *
 * @param result        the final perftest figures, null on failure
 * @param allocPerOp    bytes the measuring thread allocated per iteration (NaN when the side does not say)
 * @param error         why the run failed, null on success
 */
record Outcome(PerfResult result, double allocPerOp, String error) {
    static Outcome ok(final PerfResult r, final double allocPerOp) {
        return new Outcome(r, allocPerOp, null);
    }

    static Outcome failed(final String why) {
        return new Outcome(null, Double.NaN, why);
    }

    boolean succeeded() {
        return result != null;
    }
}
