package weft.tools.perftest;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;

/**
 * Times the measured iterations: one {@link #record} per iteration (a nanoTime delta into two
 * preallocated histograms, no allocation), an intermediate report about once a second, and the
 * final figures. Also counts the bytes the measuring thread allocates, minus what the reports
 * themselves allocate, to show the data path allocates nothing.
 */
final class PerfMeter {
    /** Longest per-iteration time tracked exactly; longer ones are clamped (60 s). */
    private static final long MAX_TRACKED_NS = 60_000_000_000L;

    private final Histogram total = new Histogram(MAX_TRACKED_NS, 3);
    private final Histogram interval = new Histogram(MAX_TRACKED_NS, 3);
    private final PerfOutput output;
    private final long messageSize;
    private final double factor;
    private final double percentile;
    private final long reportIntervalNs;
    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private long start;
    private long last;
    private long iterations;
    private long lastReportTime;
    private long lastReportIterations;
    private long allocStart;
    private long allocExcluded;
    private long allocTotal = -1;

    /**
     * @param output           where intermediate lines go, or null for none
     * @param reportIntervalNs time between intermediate lines
     */
    PerfMeter(final PerfOutput output, final PerfParams p, final long reportIntervalNs) {
        this.output = output != null && output.wantsIntermediate() ? output : null;
        this.messageSize = p.messageSize();
        this.factor = p.test().factor();
        this.percentile = p.percentile();
        this.reportIntervalNs = reportIntervalNs;
        threads.getCurrentThreadAllocatedBytes(); // its first call allocates: keep that out of the count
        threads.getCurrentThreadAllocatedBytes();
    }

    /** Starts the clock (and the allocation count) at {@code now}. */
    void start(final long now) {
        allocStart = threads.getCurrentThreadAllocatedBytes();
        start = now;
        last = now;
        lastReportTime = now;
    }

    /**
     * One iteration ended at {@code now}. Allocation free. The same work and branches whether or
     * not intermediate lines are wanted, so that the code the (unreported) warm-up compiles is the
     * code the measured loop runs: a branch first taken after the warm-up would deoptimize it.
     */
    void record(final long now) {
        final long d = Math.min(now - last, MAX_TRACKED_NS);
        last = now;
        total.recordValue(d);
        interval.recordValue(d);
        iterations++;
        if (now - lastReportTime >= reportIntervalNs) {
            report(now);
        }
    }

    /** Slow path, about once a second: prints the interval's figures if wanted, starts the next interval. */
    private void report(final long now) {
        if (output != null) {
            final long a0 = threads.getCurrentThreadAllocatedBytes();
            output.intermediate(result(now, interval));
            allocExcluded += threads.getCurrentThreadAllocatedBytes() - a0;
        }
        interval.reset();
        lastReportTime = now;
        lastReportIterations = iterations;
    }

    /**
     * Ends the run at {@code now} (after the last iteration and any final flush or ack) and
     * returns the final figures.
     */
    PerfResult finish(final long now) {
        allocTotal = threads.getCurrentThreadAllocatedBytes() - allocStart - allocExcluded;
        last = now;
        // the final line's "average" covers the last interval, its percentile the whole run
        return result(now, total);
    }

    private PerfResult result(final long now, final Histogram h) {
        final double typical = h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile);
        return PerfResult.of(iterations, now - start, iterations - lastReportIterations, now - lastReportTime,
            messageSize, factor, typical);
    }

    long iterations() {
        return iterations;
    }

    /** Bytes allocated by the measuring thread during the run, excluding reports (after finish). */
    long allocatedBytes() {
        return allocTotal;
    }
}
