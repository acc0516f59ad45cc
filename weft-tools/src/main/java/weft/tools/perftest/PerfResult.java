package weft.tools.perftest;

/**
 * The eight numbers of one report line, in ucx_perftest's units: latency in microseconds (one
 * way for ping-pong tests), bandwidth in MB/s with MB = 2^20 bytes, message rate in messages per
 * second. "average" covers the interval since the previous report, "overall" the whole run.
 *
 * @param iterations iterations measured so far
 * @param typicalUs  the -R percentile of the per-iteration time
 * @param avgUs      mean time per iteration over the last interval
 * @param overallUs  mean time per iteration over the whole run
 * @param avgMBs     bandwidth over the last interval
 * @param overallMBs bandwidth over the whole run
 * @param avgRate    message rate over the last interval
 * @param overallRate message rate over the whole run
 */
public record PerfResult(long iterations, double typicalUs, double avgUs, double overallUs,
                         double avgMBs, double overallMBs, double avgRate, double overallRate) {
    /** Bytes in a MB, as ucx_perftest counts them. */
    public static final double MB = 1 << 20;

    /**
     * Computes the figures from raw counts.
     *
     * @param iterations     total iterations
     * @param elapsedNs      time of all iterations
     * @param intervalIters  iterations of the last interval
     * @param intervalNs     time of the last interval
     * @param messageSize    bytes per iteration
     * @param factor         2 for ping-pong tests (one-way = half), else 1
     * @param typicalNs      the percentile of the per-iteration time, in ns (before the factor)
     */
    public static PerfResult of(final long iterations, final long elapsedNs, final long intervalIters,
                                final long intervalNs, final long messageSize, final double factor,
                                final double typicalNs) {
        final double oneWayNs = elapsedNs / factor;
        final double oneWayIntervalNs = intervalNs / factor;
        return new PerfResult(iterations,
            typicalNs / factor / 1e3,
            ratio(oneWayIntervalNs / 1e3, intervalIters),
            ratio(oneWayNs / 1e3, iterations),
            ratio(messageSize * (double) intervalIters / MB, oneWayIntervalNs / 1e9),
            ratio(messageSize * (double) iterations / MB, oneWayNs / 1e9),
            ratio(intervalIters, oneWayIntervalNs / 1e9),
            ratio(iterations, oneWayNs / 1e9));
    }

    private static double ratio(final double a, final double b) {
        return b == 0 ? 0 : a / b;
    }
}
