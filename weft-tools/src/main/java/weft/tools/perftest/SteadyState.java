package weft.tools.perftest;

import java.util.Arrays;

/**
 * Where a run's latency reached its steady state: the first iteration from which every later block of
 * iterations has a median within {@value #TOLERANCE_PERCENT} % of the median of the run's last half. Block
 * medians, not single iterations, so that one preempted iteration on a busy machine does not move the
 * answer, while a phase of slower code (interpreted, then less optimized, a compile stalling the thread)
 * does. Pure functions over a trace of per-iteration times ({@link LatencyTrace}).
 */
final class SteadyState {
    /** How far from the last half's median a block may be and count as steady. */
    static final int TOLERANCE_PERCENT = 10;
    /** Fewest samples a verdict needs. */
    static final int MIN_SAMPLES = 32;
    /** At most this many blocks: the answer's resolution is 1/{@value #MAX_BLOCKS} of the run. */
    static final int MAX_BLOCKS = 200;
    /** At least this many samples per block. */
    static final int MIN_BLOCK = 8;

    /**
     * The verdict.
     *
     * @param sample       index of the first steady sample, {@code samples} when the run never settled, -1 when it
     *                     had too few samples to tell
     * @param samples      samples looked at
     * @param steadyMedian the median of the last half (the trace's unit)
     */
    record Result(int sample, int samples, long steadyMedian) {
        boolean known() {
            return sample >= 0;
        }

        boolean reached() {
            return sample >= 0 && sample < samples;
        }
    }

    private SteadyState() {
    }

    /** Finds the steady state of {@code values[0..n)}; {@code scratch} holds at least n values (no allocation). */
    static Result find(final long[] values, final int n, final long[] scratch) {
        if (n < MIN_SAMPLES) {
            return new Result(-1, n, 0);
        }
        final long median = median(values, n / 2, n, scratch);
        final int block = Math.max(MIN_BLOCK, (n + MAX_BLOCKS - 1) / MAX_BLOCKS);
        int steady = n;
        // walk back from the end: the steady part is the longest suffix of blocks all within the tolerance
        for (int end = n; end > 0; ) {
            final int start = Math.max(0, end - block);
            final long m = median(values, start, end, scratch);
            if (Math.abs(m - median) * 100 > (long) TOLERANCE_PERCENT * median) {
                break;
            }
            steady = start;
            end = start;
        }
        return new Result(steady, n, median);
    }

    /** The median (the lower one of an even count) of {@code values[from..to)}, sorted in {@code scratch}. */
    static long median(final long[] values, final int from, final int to, final long[] scratch) {
        final int len = to - from;
        System.arraycopy(values, from, scratch, 0, len);
        Arrays.sort(scratch, 0, len);
        return scratch[(len - 1) / 2];
    }
}
