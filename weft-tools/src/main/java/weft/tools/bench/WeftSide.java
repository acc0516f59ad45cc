package weft.tools.bench;

import picocli.CommandLine;
import weft.tools.perftest.PerfResult;
import weft.tools.perftest.PerftestCommand;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Weft's side of the bench: one {@code weft perftest} server JVM, pinned to the server CPU, serving
 * every point in turn ({@code --serve 0}), and the client run inside this JVM on the calling thread
 * (pinned to the client CPU by perftest's {@code -c}), so that the client's JIT warms up once for the
 * whole suite as a real application's would.
 */
final class WeftSide implements AutoCloseable {
    private static final Pattern ALLOC = Pattern.compile("# allocated bytes/op: ([0-9.]+)");
    private static final Pattern STEADY = Pattern.compile("# steady state: (?:from iteration (\\d+)|not reached in (\\d+))");
    private static final Pattern JIT = Pattern.compile("# JIT compilation during the measured phase: (\\d+) ms");
    /** The server's longest wait on its peer within a test (between tests it waits for the next client as long as it takes). */
    private static final int SERVER_TIMEOUT_S = 300;
    /** The server's JVM options (perftest's, as the {@code weft} script gives them). */
    static final List<String> SERVER_JVM = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xss2m",
        "-XX:-BackgroundCompilation");

    private final Path log;
    private final int clientCpu;
    private final int serverCpu;
    private Process server;
    private int port;

    /**
     * @param log       where the server's output goes
     * @param clientCpu CPU of the measuring client thread, or -1 to leave it unpinned
     * @param serverCpu CPU of the server, or -1
     */
    WeftSide(final Path log, final int clientCpu, final int serverCpu) {
        this.log = log;
        this.clientCpu = clientCpu;
        this.serverCpu = serverCpu;
    }

    /** Starts (or restarts, if it died) the server JVM. */
    private void ensureServer() throws IOException {
        if (server != null && server.isAlive()) {
            return;
        }
        port = freePort();
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(SERVER_JVM);
        // the server runs as the client (this JVM) does: WEFT_JVM_OPTS's -XX options reach both sides
        cmd.addAll(hotspotOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "weft.tools.Main", "perftest",
            "-p", Integer.toString(port), "--serve", "0", "--timeout", Integer.toString(SERVER_TIMEOUT_S),
            "--exit-with", Long.toString(ProcessHandle.current().pid())));
        if (serverCpu >= 0) {
            cmd.add("-c");
            cmd.add(Integer.toString(serverCpu));
        }
        server = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** Runs one point; never throws for a failed test (the outcome says why). */
    Outcome run(final BenchPoint p) {
        if (p.cold()) {
            return runCold(p);
        }
        try {
            ensureServer();
        } catch (final IOException e) {
            return Outcome.failed("cannot start the weft perftest server: " + e.getMessage());
        }
        final List<String> args = new ArrayList<>(List.of("127.0.0.1", "-p", Integer.toString(port),
            "-x", p.transport(), "-t", p.test(), "-s", Long.toString(p.size()),
            "-n", Long.toString(p.iterations()), "-w", Long.toString(p.warmup()), "-f", "--timeout", "60"));
        if (clientCpu >= 0) {
            args.add("-c");
            args.add(Integer.toString(clientCpu));
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PerftestCommand cmd = new PerftestCommand().output(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final CommandLine cl = new CommandLine(cmd);
        cl.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        final int rc = cl.execute(args.toArray(String[]::new));
        final PerfResult r = cmd.result();
        final String diagnostics = err.toString(StandardCharsets.UTF_8);
        if (rc != 0 || r == null) {
            return Outcome.failed(lastLine(diagnostics.isBlank() ? out.toString(StandardCharsets.UTF_8) : diagnostics));
        }
        return outcome(r, diagnostics);
    }

    /** The result with what perftest's "# ..." lines add: allocation, steady-state iteration, JIT time. */
    static Outcome outcome(final PerfResult r, final String diagnostics) {
        final Matcher m = ALLOC.matcher(diagnostics);
        final Matcher st = STEADY.matcher(diagnostics);
        final Matcher jit = JIT.matcher(diagnostics);
        final long steadyAt = st.find() ? Long.parseLong(st.group(1) != null ? st.group(1) : st.group(2)) : -1;
        return Outcome.ok(r, m.find() ? Double.parseDouble(m.group(1)) : Double.NaN, steadyAt,
            jit.find() ? Long.parseLong(jit.group(1)) : -1);
    }

    /**
     * A --cold point: a server and a client JVM started for it alone (as a first job's), with the options
     * {@code ./weft perftest} gives (foreground compilation, the AOT cache and its compile thresholds, passed
     * on from this JVM): the figures a user gets from {@code ./weft perftest -w 100 -n 10000}.
     */
    private Outcome runCold(final BenchPoint p) {
        final int coldPort;
        try {
            coldPort = freePort();
        } catch (final IOException e) {
            return Outcome.failed("no free port: " + e.getMessage());
        }
        final List<String> jvm = new ArrayList<>();
        jvm.add(ProcessHandle.current().info().command().orElse("java"));
        jvm.addAll(SERVER_JVM);
        jvm.addAll(hotspotOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        jvm.addAll(List.of("-cp", System.getProperty("java.class.path"), "weft.tools.Main", "perftest",
            "-p", Integer.toString(coldPort), "--timeout", "60", "--exit-with", Long.toString(ProcessHandle.current().pid())));
        final List<String> server = new ArrayList<>(jvm);
        final List<String> client = new ArrayList<>(jvm);
        client.addAll(List.of("127.0.0.1", "-x", p.transport(), "-t", p.test(), "-s", Long.toString(p.size()),
            "-n", Long.toString(p.iterations()), "-w", Long.toString(p.warmup()), "-f"));
        if (serverCpu >= 0) {
            server.addAll(List.of("-c", Integer.toString(serverCpu)));
        }
        if (clientCpu >= 0) {
            client.addAll(List.of("-c", Integer.toString(clientCpu)));
        }
        final ProcessPair.Run run = ProcessPair.run(server, client, java.util.Map.of(), log, coldPort, 120_000,
            "weft perftest");
        if (run.error() != null) {
            return Outcome.failed(run.error());
        }
        final PerfResult r = UcxSide.finalLine(run.output());
        if (run.exitCode() != 0 || r == null) {
            return Outcome.failed("weft perftest exited with " + run.exitCode() + ": " + lastLine(run.output()));
        }
        return outcome(r, run.output());
    }

    /** The {@code -XX:} options among a JVM's arguments, less those {@link #SERVER_JVM} sets anyway. */
    static List<String> hotspotOptions(final List<String> jvmArgs) {
        final List<String> out = new ArrayList<>();
        for (final String a : jvmArgs) {
            if (a.startsWith("-XX:") && !SERVER_JVM.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    /** The last line that is not blank and not a "# ..." diagnostic: a tool's error message. */
    static String lastLine(final String text) {
        final String[] lines = text.strip().split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            if (!lines[i].isBlank() && !lines[i].startsWith("#")) {
                return lines[i].strip();
            }
        }
        return "failed without a message";
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Stops the server (it serves until killed). */
    @Override
    public void close() {
        if (server == null) {
            return;
        }
        server.destroy();
        try {
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (final InterruptedException e) {
            server.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "weft perftest server on port %d", port);
    }
}
