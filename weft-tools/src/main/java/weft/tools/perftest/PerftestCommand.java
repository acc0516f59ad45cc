package weft.tools.perftest;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import weft.tools.ParentWatch;
import weft.ucs.config.Config;
import weft.uct.Transports;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code weft perftest}: transport- and protocol-level benchmarks with ucx_perftest's test names,
 * options, roles and output. No host argument = server (listens on -p for one client, runs the test
 * the client asks for, exits; with -S for several clients in a row); a host = client (sends the
 * parameters, prints the results); {@code -l} = both in this process.
 */
@Command(name = "perftest", sortOptions = false,
    description = {"Transport- and protocol-level benchmarks, ucx_perftest-compatible.",
        "Server: weft perftest [-p PORT] [-c CPU] [-S [COUNT]]    client: weft perftest HOST -t TEST [options]",
        "Loopback in one process: weft perftest -l -t TEST [options]"})
public final class PerftestCommand implements Callable<Integer> {
    @Parameters(arity = "0..1", paramLabel = "HOST", description = "server to connect to (none = be the server)")
    String host;

    @Option(names = "-t", paramLabel = "TEST", description = "test: am_lat, am_bw, put_lat, put_bw, get, add_lat, "
        + "fadd, swap, cswap, add_mr (transport layer); tag_lat, tag_bw, tag_sync_lat, tag_sync_bw, ucp_put_lat, "
        + "ucp_put_bw, ucp_get, ucp_add, ucp_fadd, ucp_swap, ucp_cswap, stream_lat, stream_bw, ucp_am_lat, ucp_am_bw "
        + "(protocol layer, transports from WEFT_TLS or -x) (default: ${DEFAULT-VALUE})", defaultValue = "am_lat")
    String test;

    @Option(names = "-s", paramLabel = "SIZE[,SIZE...]", defaultValue = "8",
        description = "message size, or scatter/gather lengths of one message (default: ${DEFAULT-VALUE})")
    String sizes;

    @Option(names = "-n", paramLabel = "ITERS", defaultValue = "1000000",
        description = "iterations to measure (default: ${DEFAULT-VALUE})")
    long iterations;

    @Option(names = "-w", paramLabel = "ITERS", defaultValue = "10000",
        description = "warm-up iterations, not measured (default: ${DEFAULT-VALUE})")
    long warmup;

    @Option(names = "-c", paramLabel = "CPU[,CPU...]", description = "pin the measuring thread to these CPUs")
    String cpus;

    @Option(names = "-O", paramLabel = "COUNT", defaultValue = "0",
        description = "max uncompleted outstanding operations in bandwidth tests (0 = the test's default: 32 for "
            + "tag_bw, tag_sync_bw, ucp_put_bw and ucp_am_bw, as ucx_perftest; " + PerfParams.DEFAULT_OUTSTANDING
            + " otherwise)")
    int outstanding;

    @Option(names = "-W", paramLabel = "COUNT", defaultValue = "127",
        description = "flow-control window of active messages: unacknowledged messages the sender may have "
            + "(default: ${DEFAULT-VALUE})")
    int window;

    @Option(names = "-l", description = "loopback: this process communicates with itself (no HOST)")
    boolean loopback;

    @Option(names = "-R", paramLabel = "RANK", defaultValue = "50.0",
        description = "percentile reported as typical latency (default: ${DEFAULT-VALUE})")
    double percentile;

    @Option(names = "-p", paramLabel = "PORT", defaultValue = "13337",
        description = "TCP port of the control connection (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "-f", description = "print only the final numbers")
    boolean finalOnly;

    @Option(names = "-v", description = "print CSV-formatted output")
    boolean csv;

    @Option(names = "-x", paramLabel = "TL", description = "transport (default: the first of WEFT_TLS, else shm); "
        + "protocol-layer tests: the transport set, as WEFT_TLS (shm = shm+cma+self; default: WEFT_TLS)")
    String transport;

    @Option(names = "-d", paramLabel = "DEVICE", description = "device (default: the transport's first)")
    String device;

    @Option(names = "-D", paramLabel = "LAYOUT", defaultValue = "short",
        description = "data layout of the sender: short, bcopy or zcopy (default: ${DEFAULT-VALUE})")
    String layout;

    @Option(names = {"-S", "--serve"}, paramLabel = "COUNT", arity = "0..1", fallbackValue = "0", defaultValue = "-1",
        description = "server: serve COUNT clients in a row, each with its own test, on one listening port "
            + "(without COUNT, or 0: until killed); a failed test is reported and the next client served")
    int serve;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
        description = "how long to wait for the peer to connect or answer (default: ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Option(names = "--exit-with", paramLabel = "PID", defaultValue = "-1",
        description = "exit when process PID ends (weft bench starts its server so: the server never outlives it)")
    long exitWith;

    @Option(names = "--trace", paramLabel = "FILE",
        description = "client or loopback: write the measured iterations' times to FILE ('iteration ns' lines: every "
            + "timed one, which is one in 16 from 4096 iterations, then every 2nd, 4th... of those in very long runs), "
            + "to see how a short run reaches its steady state")
    java.nio.file.Path trace;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    PrintStream out = System.out;
    PrintStream err = System.err;
    private PerfResult result;

    /** Sends the report and the diagnostics ("# ..." lines) to these streams instead of stdout/stderr. */
    public PerftestCommand output(final PrintStream out, final PrintStream err) {
        this.out = out;
        this.err = err;
        return this;
    }

    /** The final result of the last client or loopback run of this command object, or null. */
    public PerfResult result() {
        return result;
    }

    @Override
    public Integer call() {
        try {
            if (exitWith > 0) {
                ParentWatch.exitWhenGone(exitWith, "weft perftest");
            }
            final PerfRun run = new PerfRun(out, err, TimeUnit.SECONDS.toNanos(timeoutSeconds)).trace(trace);
            if (loopback && host != null) {
                throw new PerfException("-l (loopback) takes no server host name");
            }
            if (host == null && !loopback) {
                pin();
                if (serve < 0) {
                    run.server(port);
                    return 0;
                }
                return run.serve(port, serve) == 0 ? 0 : 1;
            }
            if (serve >= 0) {
                throw new PerfException("-S (serve several clients) is a server option: it takes no host and no -l");
            }
            final PerfParams p = params();
            pin();
            result = loopback ? run.loopback(p, finalOnly, csv) : run.client(host, port, p, finalOnly, csv);
            return 0;
        } catch (final PerfException | IllegalArgumentException e) {
            err.println("weft perftest: " + e.getMessage());
            err.flush();
            return 1;
        } catch (final RuntimeException e) {
            err.println("weft perftest: " + e);
            err.flush();
            return 1;
        }
    }

    /** The test parameters from the options. */
    PerfParams params() {
        final PerfTestKind kind = PerfTestKind.byName(test);
        // protocol-layer tests without -x: each side takes its own WEFT_TLS, as ucx_perftest's take UCX_TLS
        final String tl = transport != null ? transport : kind.isUcp() ? "" : defaultTransport();
        return new PerfParams(kind, PerfParams.parseSizes(sizes), iterations, warmup, PerfParams.Layout.parse(layout),
            outstanding, window, percentile, tl, device != null ? device : "");
    }

    /** The first transport named in WEFT_TLS, or shm. */
    static String defaultTransport() {
        final List<String> tls = Config.global().get(Transports.TLS);
        for (final String t : tls) {
            if (!t.isEmpty() && !t.equals("all") && !t.startsWith("^")) {
                return t;
            }
        }
        return "shm";
    }

    private void pin() {
        if (cpus == null) {
            return;
        }
        final int[] list;
        try {
            list = java.util.Arrays.stream(cpus.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
        } catch (final NumberFormatException e) {
            throw new PerfException("bad CPU list '" + cpus + "' for -c", e);
        }
        final int rc = Affinity.pinCurrentThread(list);
        if (rc != 0) {
            throw new PerfException("cannot pin to CPU(s) " + cpus + ": sched_setaffinity failed with errno " + -rc
                + " (" + Runtime.getRuntime().availableProcessors() + " CPUs available)");
        }
    }
}
