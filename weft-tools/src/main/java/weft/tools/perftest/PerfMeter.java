package weft.tools.perftest;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;

/**
 * Times the measured iterations: one {@link #tick} per iteration. A clock read costs about 30 ns on
 * this class of VM ({@code System.nanoTime}, where ucx_perftest reads the TSC for a few ns), as much
 * as a whole shm get, so with enough iterations (at least {@value #SAMPLE_FROM}) only one iteration in
 * {@value #SAMPLE} is timed on its own: the clock is read just before and just after it, and that
 * delta goes into a preallocated histogram of the whole run and a ring of the latest deltas (no
 * allocation). The overall and average columns are total time over all iterations, so they carry
 * 2/{@value #SAMPLE} clock reads per iteration instead of one; the typical column is the percentile of
 * the sampled iterations (each includes one clock read, as before). An
 * intermediate report about once a second, and the final figures. As in ucx_perftest, the
 * typical latency of an intermediate line is the percentile of the latest {@value #RECENT}
 * iterations (a plain store per iteration instead of a second histogram); the final line's is
 * that of the whole run. Also counts the bytes the measuring thread allocates, minus what the reports
 * themselves allocate, to show the data path allocates nothing.
 */
final class PerfMeter {
    /** Longest per-iteration time tracked exactly; longer ones are clamped (60 s). */
    private static final long MAX_TRACKED_NS = 60_000_000_000L;

    /** One iteration in this many is timed on its own (a power of two) ... */
    static final int SAMPLE = 16;
    /**
     * ... when the run has at least this many iterations (256 timed ones or more: enough for the typical
     * column's percentile; OSU's 10,000 small-message iterations included, where a clock read per iteration
     * was a third of a shm get's time); shorter runs time every one.
     */
    static final long SAMPLE_FROM = 4096;

    /** Deltas kept for the intermediate lines' percentile (a power of two). */
    static final int RECENT = 2048;

    private final Histogram total = new Histogram(MAX_TRACKED_NS, 3);
    /** The latest deltas, indexed by iteration modulo {@link #RECENT}. */
    private final long[] recent = new long[RECENT];
    /** Sorted copy of {@link #recent} at report time. */
    private final long[] sorted = new long[RECENT];
    private final PerfOutput output;
    private final long messageSize;
    private final double factor;
    private final double percentile;
    private final long reportIntervalNs;
    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** The run's course, for the steady-state iteration (kept by the warm-up meter too: the same branches). */
    private final LatencyTrace trace = new LatencyTrace();
    private final long sampleMask;
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
        this.sampleMask = p.iterations() >= SAMPLE_FROM ? SAMPLE - 1 : 0;
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
     * One iteration ended. Reads the clock only around the sampled iterations; allocation free, the
     * same branches in warm-up and measured phases.
     */
    void tick() {
        if (sampleMask == 0) {
            record(System.nanoTime());
            return;
        }
        final long k = iterations + 1;
        final long ph = k & sampleMask;
        if (ph == 1) {
            record(System.nanoTime()); // closes sampled iteration k, opened after iteration k - 1
        } else {
            iterations = k;
            if (ph == 0) {
                last = System.nanoTime(); // opens iteration k + 1, the next sampled one
            }
        }
    }

    /**
     * A timed iteration ended at {@code now} (it began at the previous clock read). Allocation free. The
     * same work and branches whether or not intermediate lines are wanted, so that the code the (unreported)
     * warm-up compiles is the code the measured loop runs: a branch first taken after the warm-up would
     * deoptimize it.
     */
    void record(final long now) {
        final long d = Math.min(now - last, MAX_TRACKED_NS);
        last = now;
        total.recordValue(d);
        recent[(int) iterations & (RECENT - 1)] = d;
        trace.add(d);
        iterations++;
        if (now - lastReportTime >= reportIntervalNs) {
            report(now);
        }
    }

    /** Slow path, about once a second: prints the interval's figures if wanted. */
    private void report(final long now) {
        if (output != null) {
            final long a0 = threads.getCurrentThreadAllocatedBytes();
            output.intermediate(result(now, recentPercentile()));
            allocExcluded += threads.getCurrentThreadAllocatedBytes() - a0;
        }
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
        return result(now, total.getTotalCount() == 0 ? 0 : total.getValueAtPercentile(percentile));
    }

    /** The percentile of the latest min(iterations, RECENT) deltas. */
    private double recentPercentile() {
        final int n = (int) Math.min(iterations, RECENT);
        if (n == 0) {
            return 0;
        }
        System.arraycopy(recent, 0, sorted, 0, n);
        java.util.Arrays.sort(sorted, 0, n);
        final int rank = (int) Math.ceil(percentile / 100.0 * n) - 1;
        return sorted[Math.max(0, Math.min(n - 1, rank))];
    }

    private PerfResult result(final long now, final double typical) {
        return PerfResult.of(iterations, now - start, iterations - lastReportIterations, now - lastReportTime,
            messageSize, factor, typical);
    }

    long iterations() {
        return iterations;
    }

    /**
     * The iteration (0-based, of this meter's run) from which the per-iteration time stayed within
     * {@value SteadyState#TOLERANCE_PERCENT} % of its last half's median; {@link #iterations()} when it never
     * settled, -1 when the run was too short to tell.
     */
    long steadyIteration() {
        final SteadyState.Result r = trace.steadyState();
        if (!r.known()) {
            return -1;
        }
        return r.reached() ? r.sample() * trace.stride() * (sampleMask + 1) : iterations;
    }

    /** Writes the run's course (see {@link LatencyTrace#write}) to {@code file}. */
    void writeTrace(final java.nio.file.Path file) throws java.io.IOException {
        try (java.io.Writer w = java.nio.file.Files.newBufferedWriter(file)) {
            w.write("# iteration ns (each timed iteration's time; kept: every " + trace.stride() * (sampleMask + 1)
                + ")\n");
            trace.write(w, sampleMask + 1);
        }
    }

    /** The median per-iteration time of the last half of the run, in ns (0 when too short to tell). */
    long steadyNanos() {
        return trace.steadyState().steadyMedian();
    }

    /** Iterations timed on their own (every one, or one in {@link #SAMPLE}). */
    long timedIterations() {
        return total.getTotalCount();
    }

    /** Bytes allocated by the measuring thread during the run, excluding reports (after finish). */
    long allocatedBytes() {
        return allocTotal;
    }
}
