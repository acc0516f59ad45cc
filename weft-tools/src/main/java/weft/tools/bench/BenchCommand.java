package weft.tools.bench;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import weft.tools.perftest.PerfTestKind;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code weft bench}: the standard perftest suite on every transport set, side by side with native
 * UCX when {@code ucx_perftest} is installed, with a table at the end and CSV plus PNG plots in a
 * results folder.
 *
 * <pre>
 * ./weft bench              # the standard suite, under two minutes
 * ./weft bench --quick      # a first look (~30 s)
 * ./weft bench --full -x shm -t tag_lat,tag_bw
 * ./weft bench -t tag_lat -s 8,64k     # some tests at some of the tier's sizes
 * </pre>
 */
@Command(name = "bench", sortOptions = false,
    description = {"Runs the perftest suite (tag, AM, stream, put/get, atomics) over shm and tcp between two",
        "local processes pinned to different cores, beside native UCX's ucx_perftest when installed,",
        "and writes a table, CSV and PNG plots into a results folder."})
public final class BenchCommand implements Callable<Integer> {
    static final class TierOption {
        @Option(names = "--quick", description = "a few tests and sizes (~30 s)")
        boolean quick;

        @Option(names = "--full", description = "every test at 1 B .. 4 MiB, three alternating repeats (many minutes)")
        boolean full;

        @Option(names = "--cold", description = "short runs at OSU's counts (100 warm-up + 10,000 iterations; "
            + "10 + 1,000 at 1 MiB), each in new JVMs, three alternating repeats: what a first job sees (~1 min)")
        boolean cold;
    }

    @ArgGroup(exclusive = true)
    TierOption tierOption;

    @Option(names = {"-x", "--transports"}, paramLabel = "TL[,TL...]", split = ",", defaultValue = "shm,tcp",
        description = "transport sets to measure: shm (shm+cma+self), tcp (default: ${DEFAULT-VALUE})")
    List<String> transports;

    @Option(names = {"-t", "--tests"}, paramLabel = "TEST[,TEST...]", split = ",", completionCandidates = SuiteTests.class,
        description = "only these tests (default: the whole suite: ${COMPLETION-CANDIDATES})")
    List<String> tests = new ArrayList<>();

    @Option(names = {"-s", "--sizes"}, paramLabel = "SIZE[,SIZE...]", split = ",",
        description = "only these message sizes of the tier's (bytes, or 4k, 1m)")
    List<String> sizes = new ArrayList<>();

    @Option(names = {"-o", "--out"}, paramLabel = "DIR",
        description = "results folder (default: bench-results/<date-time>)")
    Path out;

    @Option(names = "--no-ucx", description = "do not run ucx_perftest even if it is installed")
    boolean noUcx;

    @Option(names = "--repeat", paramLabel = "N", description = "alternating Weft/UCX repeats per point, median "
        + "reported (default: 1, --full: 3)")
    int repeat;

    @Option(names = "--budget-ms", paramLabel = "MS", description = "measured time per run; sets iteration "
        + "counts (default: 150, --quick: 80, --full: 600)")
    long budgetMs;

    @Option(names = "--cpus", paramLabel = "CLIENT,SERVER", split = ",", defaultValue = "0,1",
        description = "CPUs of the client and the server, -1 = unpinned (default: ${DEFAULT-VALUE}; unpinned on one CPU)")
    List<Integer> cpus;

    @Option(names = "--no-plots", description = "write no PNG plots")
    boolean noPlots;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** The suite's test names, for the help text. */
    static final class SuiteTests implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return BenchPlan.tests().iterator();
        }
    }

    @Override
    public Integer call() throws Exception {
        final BenchPlan.Tier tier = tierOption == null ? BenchPlan.Tier.DEFAULT
            : tierOption.quick ? BenchPlan.Tier.QUICK : tierOption.full ? BenchPlan.Tier.FULL
            : tierOption.cold ? BenchPlan.Tier.COLD : BenchPlan.Tier.DEFAULT;
        for (final String t : tests) {
            if (!BenchPlan.tests().contains(t)) {
                stderr.println("weft bench: unknown test '" + t + "'; the suite has: " + String.join(", ", BenchPlan.tests()));
                return 2;
            }
        }
        for (final String tl : transports) {
            if (!tl.equals("shm") && !tl.equals("tcp")) {
                stderr.println("weft bench: unknown transport set '" + tl + "' (shm or tcp)");
                return 2;
            }
        }
        final java.util.Set<Long> onlySizes = new java.util.HashSet<>();
        for (final String sz : sizes) {
            try {
                onlySizes.add(weft.ucs.config.ConfigType.SIZE.parse(sz));
            } catch (final IllegalArgumentException e) {
                stderr.println("weft bench: bad size '" + sz + "' (" + e.getMessage() + "): give bytes, or 4k, 1m");
                return 2;
            }
        }
        if (cpus.size() != 2) {
            stderr.println("weft bench: --cpus takes two CPUs, the client's and the server's");
            return 2;
        }
        final boolean oneCpu = Runtime.getRuntime().availableProcessors() < 2;
        final int clientCpu = oneCpu ? -1 : cpus.get(0);
        final int serverCpu = oneCpu ? -1 : cpus.get(1);
        final Path dir = out != null ? out : Path.of("bench-results",
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmmss", Locale.ROOT)));
        Files.createDirectories(dir);

        final List<BenchPoint> all = BenchPlan.points(tier, transports, tests, budgetMs);
        final List<BenchPoint> points = new ArrayList<>();
        final List<String> missing = new ArrayList<>();
        for (final BenchPoint p : all) {
            if (!onlySizes.isEmpty() && !onlySizes.contains(p.size())) {
                continue;
            }
            if (available(p.test())) {
                points.add(p);
            } else if (!missing.contains(p.test())) {
                missing.add(p.test());
            }
        }
        if (points.isEmpty() && missing.isEmpty()) {
            stderr.println("weft bench: the " + tier.name().toLowerCase(Locale.ROOT) + " tier measures none of the sizes "
                + String.join(",", sizes) + " for " + (tests.isEmpty() ? "its tests" : String.join(",", tests)));
            return 2;
        }
        final UcxSide ucx = noUcx ? null : UcxSide.find(dir.resolve("ucx.log"), clientCpu, serverCpu);
        final int repeats = repeat > 0 ? repeat : tier.repeats;
        stdout.printf(Locale.ROOT, "weft bench (%s): %d points over %s, %s%s; results in %s%n",
            tier.name().toLowerCase(Locale.ROOT), points.size(), String.join(", ", transports),
            ucx != null ? "beside " + (ucx.version().isEmpty() ? "ucx_perftest" : ucx.version()) : "Weft only",
            repeats > 1 ? ", " + repeats + " repeats (median)" : "", dir);
        if (ucx == null && !noUcx) {
            stdout.println("  (ucx_perftest is not installed: apt-get install ucx-utils to see UCX side by side)");
        }
        if (!missing.isEmpty()) {
            stdout.println("  (not in this build yet, skipped: " + String.join(", ", missing) + ")");
        }
        stdout.printf(Locale.ROOT, "  client on CPU %s, server on CPU %s; %s%n", clientCpu < 0 ? "any" : clientCpu,
            serverCpu < 0 ? "any" : serverCpu, header());
        stdout.flush();

        final List<BenchRow> rows = new ArrayList<>();
        final long t0 = System.nanoTime();
        try (WeftSide weft = new WeftSide(dir.resolve("weft-server.log"), clientCpu, serverCpu)) {
            // the client runs on a thread of its own: perftest's -c pins it, and must not pin the caller
            final Thread runner = new Thread(() -> {
                int i = 0;
                for (final BenchPoint p : points) {
                    final BenchRow row = new BenchRow(p);
                    for (int k = 0; k < repeats; k++) {
                        // alternate, UCX first as the comparison scripts do
                        if (ucx != null) {
                            row.ucx.add(ucx.run(p));
                        }
                        row.weft.add(weft.run(p));
                    }
                    rows.add(row);
                    stdout.println(BenchReport.progressLine(++i, points.size(), row, ucx != null));
                    stdout.flush();
                }
            }, "weft-bench");
            runner.start();
            runner.join();
        }
        final double seconds = (System.nanoTime() - t0) / 1e9;

        BenchReport.table(stdout, rows, ucx != null);
        BenchReport.csv(dir.resolve("results.csv"), rows);
        final String prefix = tier == BenchPlan.Tier.COLD ? "cold-" : "";
        final List<String> written = new ArrayList<>(List.of("results.csv"));
        if (!noPlots) {
            for (final String tl : transports) {
                for (final Metric m : new Metric[] {Metric.LATENCY, Metric.BANDWIDTH}) {
                    final String name = prefix + (m == Metric.LATENCY ? "latency-" : "bandwidth-") + tl + ".png";
                    if (BenchPlot.write(dir.resolve(name), rows, tl, m)) {
                        written.add(name);
                    }
                }
            }
        }
        final java.io.ByteArrayOutputStream summary = new java.io.ByteArrayOutputStream();
        final PrintStream s = new PrintStream(summary, true, java.nio.charset.StandardCharsets.UTF_8);
        s.println("# weft bench " + tier.name().toLowerCase(Locale.ROOT) + ", " + header());
        s.println("# " + (ucx != null ? ucx.version() : "no UCX"));
        BenchReport.table(s, rows, ucx != null);
        Files.writeString(dir.resolve("summary.txt"), summary.toString(java.nio.charset.StandardCharsets.UTF_8));
        written.add("summary.txt");
        final long failed = rows.stream().filter(r -> BenchRow.firstError(r.weft) != null).count();
        stdout.printf(Locale.ROOT, "%d points in %.0f s; wrote %s in %s%n", rows.size(), seconds,
            String.join(", ", written), dir);
        if (failed > 0) {
            stdout.println(failed + " Weft point(s) failed: see the table and " + dir.resolve("weft-server.log"));
        }
        stdout.flush();
        return failed == 0 ? 0 : 1;
    }

    /** True if this build's perftest runs {@code test}. */
    static boolean available(final String test) {
        try {
            PerfTestKind.byName(test);
            return true;
        } catch (final IllegalArgumentException e) {
            return false;
        }
    }

    private static String header() {
        return String.format(Locale.ROOT, "%s %d CPUs, load %s, Java %s", System.getProperty("os.arch"),
            Runtime.getRuntime().availableProcessors(), loadAverage(), System.getProperty("java.version"));
    }

    private static String loadAverage() {
        try {
            return String.join(" ", Arrays.copyOf(Files.readString(Path.of("/proc/loadavg")).split(" "), 3));
        } catch (final IOException e) {
            return "unknown";
        }
    }
}
