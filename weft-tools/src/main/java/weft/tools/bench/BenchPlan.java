package weft.tools.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The suite {@code weft bench} runs: which tests at which sizes for each tier, and how many
 * iterations each gets. Iterations come from a rough cost model of each transport so that every
 * run lasts about the tier's time budget whatever its size: a fixed count would make the 8 B points
 * too short to mean anything or the 1 MiB tcp points take minutes.
 */
final class BenchPlan {
    /** How thorough the run is. */
    enum Tier {
        /** A few sizes and tests, for CI and a first look (~30 s). */
        QUICK(80, 1),
        /** The standard suite (under two minutes on a 2-core machine). */
        DEFAULT(150, 1),
        /** Every test at sizes 1 B .. 4 MiB in powers of 4, three alternating repeats. */
        FULL(600, 3),
        /**
         * Short runs at OSU's counts ({@link #COLD_WARMUP} + {@link #COLD_ITERATIONS}; from
         * {@link #COLD_LARGE} bytes 10 + 1,000), each in JVMs started for it: what a first job sees.
         */
        COLD(0, 3);

        final long budgetMs;
        final int repeats;

        Tier(final long budgetMs, final int repeats) {
            this.budgetMs = budgetMs;
            this.repeats = repeats;
        }
    }

    /**
     * Invocations after which HotSpot's optimizing compiler takes a method (its Tier4CompileThreshold is
     * 15000): tcp tag_lat 64 KiB after 4000 warm-up round trips spent 200 ms of a 460 ms measured phase
     * compiling (one-way 107-113 us), after 15000 none (20-23 us); tcp tag_lat 1 MiB after 2000 spent
     * 200 ms of 1.1 s (its 99.9th percentile a 17 ms compile), after 8000 none.
     */
    static final long C2_THRESHOLD = 15_000;
    /** The most warm-up time (estimated) that reaching {@link #C2_THRESHOLD} may take in one point. */
    static final double WARMUP_CAP_US = 3_000_000;

    /** OSU micro-benchmarks' default counts: warm-up and measured iterations of small messages ... */
    static final long COLD_WARMUP = 100;
    static final long COLD_ITERATIONS = 10_000;
    /** ... and from this size on (OSU's LARGE_MESSAGE_SIZE) a tenth of them. */
    static final long COLD_LARGE = 8192;
    /** The --cold suite: the short-run targets of issue 20. */
    private static final List<String[]> COLD_SUITE = List.of(new String[] {"tag_lat", "8"},
        new String[] {"ucp_put_lat", "8"}, new String[] {"ucp_get", "8"}, new String[] {"ucp_fadd", "8"},
        new String[] {"tag_bw", "1048576"});

    private static final long K = 1024;
    private static final long M = K * K;

    /** One test of the suite and its sizes per tier. */
    private record Entry(String test, boolean pingPong, boolean streaming, long[] quick, long[] standard, long[] full) {
    }

    private static final long[] NONE = {};
    private static final long[] SWEEP = {1, 4, 16, 64, 256, K, 4 * K, 16 * K, 64 * K, 256 * K, M, 4 * M};
    private static final long[] EIGHT = {8};

    private static final List<Entry> SUITE = List.of(
        new Entry("tag_lat", true, false, new long[] {8, 4 * K, M}, new long[] {8, 256, 4 * K, 64 * K, M}, SWEEP),
        new Entry("tag_bw", false, true, new long[] {8, 4 * K, M}, new long[] {8, 256, 4 * K, 64 * K, M}, SWEEP),
        new Entry("ucp_am_lat", true, false, EIGHT, new long[] {8, 64 * K}, SWEEP),
        new Entry("ucp_am_bw", false, true, NONE, new long[] {8, M}, SWEEP),
        new Entry("stream_lat", true, false, NONE, EIGHT, SWEEP),
        new Entry("stream_bw", false, true, new long[] {M}, new long[] {8, M}, SWEEP),
        new Entry("ucp_put_lat", true, false, EIGHT, new long[] {8, 64 * K}, SWEEP),
        new Entry("ucp_put_bw", false, true, NONE, new long[] {8, M}, SWEEP),
        new Entry("ucp_get", false, false, EIGHT, new long[] {8, M}, SWEEP),
        new Entry("ucp_add", false, true, NONE, EIGHT, EIGHT),
        new Entry("ucp_fadd", false, false, EIGHT, EIGHT, EIGHT),
        new Entry("ucp_swap", false, false, NONE, EIGHT, EIGHT),
        new Entry("ucp_cswap", false, false, NONE, EIGHT, EIGHT));

    private BenchPlan() {
    }

    /** Every test name the suite knows, in its order. */
    static List<String> tests() {
        return SUITE.stream().map(Entry::test).toList();
    }

    /**
     * The points of a tier.
     *
     * @param transports the transport sets, in order
     * @param only       test names to keep (empty = all)
     * @param budgetMs   measured time per run, or 0 for the tier's
     */
    static List<BenchPoint> points(final Tier tier, final List<String> transports, final List<String> only,
                                   final long budgetMs) {
        if (tier == Tier.COLD) {
            return coldPoints(transports, only);
        }
        final long budgetUs = (budgetMs > 0 ? budgetMs : tier.budgetMs) * 1000;
        final List<BenchPoint> out = new ArrayList<>();
        for (final String tl : transports) {
            for (final Entry e : SUITE) {
                if (!only.isEmpty() && !only.contains(e.test)) {
                    continue;
                }
                final long[] sizes = switch (tier) {
                    case QUICK -> e.quick;
                    case DEFAULT -> e.standard;
                    case FULL, COLD -> e.full; // COLD returned above
                };
                for (final long size : sizes) {
                    final Metric metric = e.streaming ? (size <= 8 ? Metric.RATE : Metric.BANDWIDTH)
                        : Metric.LATENCY;
                    final double est = costUs(tl, e, size);
                    final long iters = Math.max(20, Math.min(2_000_000, (long) (budgetUs / est)));
                    // Weft's client JIT-compiles each test's path during its warm-up: give it twice the
                    // measured time, and enough iterations for the optimizing compiler to take the
                    // per-message code where that costs at most 3 s (UCX needs none, and gets the same
                    // counts)
                    final long warmup = Math.max(Math.max(iters / 2, Math.min(1_000_000, (long) (2 * budgetUs / est))),
                        Math.min(C2_THRESHOLD, (long) (WARMUP_CAP_US / est)));
                    // ucx_perftest's own tcp get and put_bw figures are artefacts of the tool (BENCHMARKS.md):
                    // the anchors are one tcp tag round trip and tcp tag bandwidth instead
                    String ucxTest = e.test;
                    double factor = 1.0;
                    if (tl.equals("tcp") && e.test.equals("ucp_get")) {
                        ucxTest = "tag_lat";
                        factor = 2.0;
                    } else if (tl.equals("tcp") && e.test.equals("ucp_put_bw")) {
                        ucxTest = "tag_bw";
                    }
                    out.add(new BenchPoint(tl, e.test, size, metric, iters, warmup, ucxTest, factor));
                }
            }
        }
        return out;
    }

    private static List<BenchPoint> coldPoints(final List<String> transports, final List<String> only) {
        final List<BenchPoint> out = new ArrayList<>();
        for (final String tl : transports) {
            for (final String[] t : COLD_SUITE) {
                if (!only.isEmpty() && !only.contains(t[0])) {
                    continue;
                }
                final long size = Long.parseLong(t[1]);
                final boolean large = size >= COLD_LARGE;
                final Metric metric = t[0].endsWith("_bw") ? Metric.BANDWIDTH : Metric.LATENCY;
                // the same anchors as the steady-state suite (tcp get against one tcp tag round trip)
                final boolean tcpGet = tl.equals("tcp") && t[0].equals("ucp_get");
                out.add(new BenchPoint(tl, t[0], size, metric, large ? COLD_ITERATIONS / 10 : COLD_ITERATIONS,
                    large ? COLD_WARMUP / 10 : COLD_WARMUP, tcpGet ? "tag_lat" : t[0], tcpGet ? 2.0 : 1.0, true));
            }
        }
        return out;
    }

    /** A rough time per iteration (microseconds) of the slower of Weft and UCX, from figures seen on this kind of machine. */
    static double costUs(final String transport, final String test, final long size) {
        for (final Entry e : SUITE) {
            if (e.test.equals(test)) {
                return costUs(transport, e, size);
            }
        }
        throw new IllegalArgumentException("unknown bench test '" + test + "'");
    }

    private static double costUs(final String transport, final Entry e, final long size) {
        final boolean tcp = transport.toLowerCase(Locale.ROOT).contains("tcp");
        final double perOp;
        final double bytesPerUs;
        // loopback tcp moves 1-3 GB/s once the kernel has grown its socket buffers: a large point needs a
        // few hundred iterations to get there, so its cost is not overestimated
        if (e.pingPong) {
            perOp = tcp ? 30 : 1.5;           // a round trip
            bytesPerUs = tcp ? 3000 : 2000;    // both directions copy (tcp 1 MiB: 150-280 us one way)
        } else if (e.streaming) {
            perOp = tcp ? 8 : 0.3;
            bytesPerUs = tcp ? 2000 : 4000;
        } else {
            perOp = tcp ? 30 : 0.5;            // one blocking operation: a round trip on tcp
            bytesPerUs = tcp ? 1500 : 3000;
        }
        return perOp + size / bytesPerUs;
    }
}
