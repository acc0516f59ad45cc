package weft.tools.perftest;

import weft.ucs.WeftException;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * Runs one perftest in one of the three roles: loopback (both parts in this process, on one
 * interface), server (responder; gets the parameters from the client) or client (initiator;
 * prints the results). The control connection carries the parameters, the interface and
 * device addresses and the packed remote key, and the end-of-test handshake.
 */
final class PerfRun {
    /** Time between intermediate result lines. */
    static final long REPORT_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    /** Longest pause between warm-up and measurement waiting for the JIT to go quiet. */
    static final long JIT_SETTLE_MAX_NS = TimeUnit.SECONDS.toNanos(2);
    /** The warm-up meter's report interval (it reports nothing: the branch runs, see measure()). */
    static final long WARMUP_REPORT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(5);
    /** The most calls of run() a warm-up is split into (long warm-ups: whole chunks each, up to this many). */
    static final long WARMUP_SLICES = 1000;
    /**
     * Calls of run() even a short warm-up is split into (down to one iteration each): OSU's 100 warm-up
     * iterations in one or two chunks left run() and the test's chunk loop below their optimizing-compile
     * thresholds, so both compiled (in the foreground, stalling the clock) inside the measured phase.
     */
    static final long MIN_WARMUP_SLICES = 100;

    private final PrintStream out;
    private final PrintStream err;
    private final long timeoutNs;
    private java.nio.file.Path traceFile;

    /**
     * @param timeoutNs how long setup waits for the peer, and the longest one wait of the data
     *                  path may last before the run is declared stuck
     */
    PerfRun(final PrintStream out, final PrintStream err, final long timeoutNs) {
        this.out = out;
        this.err = err;
        this.timeoutNs = timeoutNs;
    }

    /** Writes each measured phase's course to {@code file} (perftest's --trace). */
    PerfRun trace(final java.nio.file.Path file) {
        this.traceFile = file;
        return this;
    }

    /** Both parts in this process; returns the final result. */
    PerfResult loopback(final PerfParams p, final boolean finalOnly, final boolean csv) {
        if (p.test().isUcp()) {
            return new UcpRun(this, out, timeoutNs).loopback(p, finalOnly, csv);
        }
        try (UctWorker worker = new UctWorker()) {
            final Interface iface = open(worker, p, null);
            try (PerfSide client = new PerfSide(iface, p); PerfSide server = new PerfSide(iface, p)) {
                client.connect(server.setupMessage());
                server.connect(client.setupMessage());
                final Watchdog watchdog = new Watchdog(null, timeoutNs);
                final Responder responder = new Responder(server, p.warmup() + p.iterations());
                final Initiator initiator = new Initiator(client, worker, responder, watchdog);
                final PerfOutput output = new PerfOutput(out, p, finalOnly, csv);
                out.print(csv ? PerfReport.openBox(p) : PerfReport.box(p, true));
                output.header(true);
                return measure(p, initiator, output);
            }
        }
    }

    /**
     * How many calls of run() a warm-up of {@code warmup} iterations is split into: one per whole chunk, at least
     * {@link #MIN_WARMUP_SLICES} (down to one iteration a call), at most {@link #WARMUP_SLICES}.
     */
    static long warmupSlices(final long warmup) {
        return Math.max(1, Math.min(WARMUP_SLICES, Math.max(warmup / PerfLoop.CHUNK, Math.min(warmup, MIN_WARMUP_SLICES))));
    }

    PerfResult measure(final PerfParams p, final PerfLoop initiator, final PerfOutput output) {
        // The warm-up runs the measured phase's code, so that the JIT compiles what the measurement runs:
        // - it is timed too (not reported), by a meter whose report interval is short, so that the report
        //   branch the measured phase takes once a second is taken here too (a branch never taken in the
        //   warm-up is compiled as a trap);
        // - it is many calls of run(), so that the measured call enters a method compiled whole: a single
        //   call left only an on-stack-replacement compile of run()'s loop, whose exit trapped at the end of
        //   the warm-up and whose recompile (blocking, with perftest's foreground JIT) fell inside the
        //   measured phase.
        final PerfMeter warm = new PerfMeter(null, p, WARMUP_REPORT_INTERVAL_NS);
        final long slices = warmupSlices(p.warmup());
        long left = p.warmup();
        for (long s = slices; s > 0; s--) {
            final long n = left / s;
            initiator.run(n, warm, false);
            left -= n;
        }
        initiator.afterWarmup();
        // let the compiles the warm-up started finish before the clock starts (see JitSettle)
        if (p.warmup() > 0) {
            JitSettle.await(JIT_SETTLE_MAX_NS);
        }
        final PerfMeter meter = new PerfMeter(output, p, REPORT_INTERVAL_NS);
        final long jitBefore = compilationMillis();
        final long t0 = System.nanoTime();
        final PerfResult r = initiator.run(p.iterations(), meter, true);
        final long measuredMs = (System.nanoTime() - t0) / 1_000_000L;
        final long jitMs = compilationMillis() - jitBefore;
        output.finalResult(r);
        // compiler threads share the CPUs with the pinned sender and receiver: say how busy they were
        err.printf(java.util.Locale.ROOT, "# JIT compilation during the measured phase: %d ms in %d ms%n", jitMs,
            measuredMs);
        err.println(steadyLine(meter.steadyIteration(), p.iterations(), meter.steadyNanos() / p.test().factor()));
        if (traceFile != null) {
            try {
                meter.writeTrace(traceFile);
            } catch (final java.io.IOException e) {
                throw new PerfException("cannot write the trace to " + traceFile + ": " + e.getMessage(), e);
            }
            err.println("# trace: " + traceFile);
        }
        err.printf(java.util.Locale.ROOT, "# allocated bytes/op: %.3f (%d bytes in %d iterations)%n",
            meter.allocatedBytes() / (double) p.iterations(), meter.allocatedBytes(), p.iterations());
        for (final String line : initiator.describe().split("\n")) {
            err.println("# " + line);
        }
        err.flush();
        return r;
    }

    /** The "# steady state" line: where the measured phase settled (see {@link SteadyState}). */
    static String steadyLine(final long iteration, final long iterations, final double steadyNs) {
        final String median = String.format(java.util.Locale.ROOT, "%.3f", steadyNs / 1e3);
        if (iteration < 0) {
            return "# steady state: unknown (too few iterations)";
        }
        if (iteration >= iterations) {
            return "# steady state: not reached in " + iterations + " iterations (last half's median " + median
                + " usec per iteration)";
        }
        return "# steady state: from iteration " + iteration + " of " + iterations + " (within "
            + SteadyState.TOLERANCE_PERCENT + "% of the last half's median, " + median + " usec per iteration)";
    }

    /** Total JIT compilation time of this JVM so far (ms), or 0 if unknown. */
    private static long compilationMillis() {
        final java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** Accepts one client on {@code port}, runs the test it asks for as responder, and returns. */
    void server(final int port) {
        try (ControlChannel control = ControlChannel.accept(port, timeoutNs, out)) {
            serveOne(control);
        }
    }

    /**
     * Serves {@code count} clients in a row on one listening socket (0 = until killed), each with the
     * test it asks for: what a benchmark suite runs against one server process. A failed test is
     * reported on the error stream and the next client is served.
     *
     * @return how many of the tests failed
     */
    int serve(final int port, final int count) {
        int failed = 0;
        try (ControlChannel.Listener listener = new ControlChannel.Listener(port)) {
            for (int i = 1; count == 0 || i <= count; i++) {
                // until killed: wait for the next client however long it takes
                try (ControlChannel control = listener.accept(count == 0 ? 0 : timeoutNs, out)) {
                    serveOne(control);
                } catch (final RuntimeException e) {
                    failed++;
                    err.println("weft perftest: test " + i + " failed: "
                        + (e instanceof PerfException ? e.getMessage() : e.toString()));
                    err.flush();
                }
            }
        }
        return failed;
    }

    /** Runs, as responder, the test the client on {@code control} asks for. */
    private void serveOne(final ControlChannel control) {
        final PerfParams p;
        try {
            p = PerfParams.decode(control.receive(ControlChannel.PARAMS, timeoutNs, "the test parameters"));
        } catch (final IllegalArgumentException e) {
            control.sendErrorQuietly("server: " + e.getMessage());
            throw new PerfException("bad test parameters from the client: " + e.getMessage(), e);
        }
        out.print(PerfReport.box(p, false));
        out.flush();
        if (p.test().isUcp()) {
            new UcpRun(this, out, timeoutNs).serve(control, p);
            return;
        }
        try (UctWorker worker = new UctWorker()) {
            final Watchdog watchdog = new Watchdog(control, timeoutNs);
            try (PerfSide side = setup(control, worker, p, watchdog, "server")) {
                final Responder responder = new Responder(side, p.warmup() + p.iterations());
                // serve until the client says it is done (it has then received everything it needs)
                watchdog.begin();
                serveUntilDone(worker, responder, watchdog);
                control.receive(ControlChannel.DONE, timeoutNs, "the end of the test");
                if (!responder.finished()) {
                    throw new PerfException("the client ended the test early (server handled "
                        + responder.received() + " of " + (p.warmup() + p.iterations()) + " iterations)");
                }
                control.send(ControlChannel.FIN);
            }
        }
    }

    /** The server's loop, out of {@link #serveOne} so that its early compile is this loop's alone (as UcpRun's). */
    private static void serveUntilDone(final UctWorker worker, final Responder responder, final Watchdog watchdog) {
        while (true) {
            worker.progress();
            responder.poll();
            watchdog.checkPeer("serving the test");
            if (watchdog.lastFrame() == ControlChannel.DONE) {
                return;
            }
        }
    }

    /** Connects to the server, runs the test as initiator, prints and returns the result. */
    PerfResult client(final String host, final int port, final PerfParams p, final boolean finalOnly,
                      final boolean csv) {
        try (ControlChannel control = ControlChannel.connect(host, port, timeoutNs)) {
            control.send(ControlChannel.PARAMS, p.encode());
            final PerfOutput output = new PerfOutput(out, p, finalOnly, csv);
            output.header(false);
            if (p.test().isUcp()) {
                return new UcpRun(this, out, timeoutNs).client(control, p, output);
            }
            try (UctWorker worker = new UctWorker()) {
                final Watchdog watchdog = new Watchdog(control, timeoutNs);
                try (PerfSide side = setup(control, worker, p, watchdog, "client")) {
                    final Initiator initiator = new Initiator(side, worker, null, watchdog);
                    final PerfResult r;
                    try {
                        r = measure(p, initiator, output);
                    } catch (final PerfException e) {
                        control.sendErrorQuietly("client: " + e.getMessage());
                        throw e;
                    }
                    control.send(ControlChannel.DONE);
                    control.receive(ControlChannel.FIN, timeoutNs, "the server's acknowledgement of the end");
                    return r;
                }
            }
        }
    }

    /** Opens the interface and does the setup handshake ({@link ControlChannel#setUp}). */
    private PerfSide setup(final ControlChannel control, final UctWorker worker, final PerfParams p,
                           final Watchdog watchdog, final String role) {
        return control.setUp(() -> new PerfSide(open(worker, p, watchdog), p), PerfSide::connect, role, timeoutNs);
    }

    private static Interface open(final UctWorker worker, final PerfParams p, final Watchdog watchdog) {
        final Transport t;
        try {
            t = Transports.byName(p.transport());
        } catch (final WeftException e) {
            throw new PerfException("unknown transport '" + p.transport() + "': " + e.getMessage(), e);
        }
        if (t.devices().isEmpty()) {
            throw new PerfException("transport '" + t.name() + "' has no usable device"
                + (t.unavailableReason() != null ? ": " + t.unavailableReason() : ""));
        }
        Device device = null;
        for (final Device d : t.devices()) {
            if (p.device().isEmpty() || d.name().equals(p.device())) {
                device = d;
                break;
            }
        }
        if (device == null) {
            throw new PerfException("transport '" + t.name() + "' has no device '" + p.device() + "' (have: "
                + t.devices().stream().map(Device::name).toList() + ")");
        }
        try {
            InterfaceParams ip = InterfaceParams.defaults();
            if (watchdog != null) {
                ip = ip.withErrorHandler(watchdog);
            }
            return t.openInterface(worker, device, ip);
        } catch (final WeftException e) {
            throw new PerfException("cannot open " + device + ": " + e.getMessage(), e);
        }
    }
}
