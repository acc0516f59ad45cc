package weft.ucp.conformance;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.Request;
import weft.ucp.Worker;
import weft.uct.conformance.Resources;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a {@link Scenario} on two PEs over a transport set, in one JVM (two threads, one context and
 * worker each) or across two JVM processes (this one is rank 0, a child JVM running
 * {@link ScenarioPeerMain} is rank 1). Addresses are exchanged out of band (a future in one JVM, the
 * child's stdin/stdout across processes); both PEs connect, and wireup pairs the two endpoints.
 * Afterwards it checks that no fd, thread or shared-memory file was leaked.
 */
public final class ScenarioRunner {
    /** Where the two PEs live. */
    public enum Mode { IN_JVM, CROSS_PROCESS }

    /** The transport sets the machine offers for two PEs on one node. */
    public static final List<String> TRANSPORT_SETS = List.of("shm,cma,self", "shm,self", "tcp,self");

    private static final HexFormat HEX = HexFormat.of();

    static {
        // temp file names come from a SecureRandom that opens /dev/random once per JVM: open it now,
        // before any resource snapshot, so it is not mistaken for a leak
        try {
            Files.delete(Files.createTempFile("ucp-warm-", ".tmp"));
        } catch (final IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ScenarioRunner() {
    }

    /** Runs {@code scenario} and fails with both PEs' errors if either side fails or times out. */
    public static void run(final Class<? extends Scenario> scenario, final String tls, final Mode mode,
                           final int timeoutSeconds) throws Exception {
        final Resources.Snapshot before = Resources.take();
        // never shorter than two of a PE's step waits, so that a stuck step reports itself first
        final int limit = Math.max(timeoutSeconds, (int) (2 * Pe.WAIT_SECONDS));
        if (mode == Mode.IN_JVM) {
            runInJvm(scenario, tls, limit);
        } else {
            runCrossProcess(scenario, tls, limit);
        }
        Resources.assertBackTo(before, scenario.getSimpleName() + " over " + tls + " " + mode, 3000);
    }

    /** The features every scenario gets. */
    static Context newContext(final String tls) {
        return Context.builder().features(Feature.values()).transports(tls.split(",")).build();
    }

    private static void runInJvm(final Class<? extends Scenario> scenario, final String tls, final int timeout)
        throws Exception {
        final List<CompletableFuture<byte[]>> addrs = List.of(new CompletableFuture<>(), new CompletableFuture<>());
        final List<CompletableFuture<Void>> done = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            final int me = rank;
            final CompletableFuture<Void> f = new CompletableFuture<>();
            done.add(f);
            threads.add(Thread.ofPlatform().name("pe-" + rank).start(() -> {
                try {
                    runPe(scenario, tls, me, false, a -> addrs.get(me).complete(a),
                        () -> addrs.get(1 - me).get(timeout, TimeUnit.SECONDS));
                    f.complete(null);
                } catch (final Throwable t) {
                    f.completeExceptionally(t);
                }
            }));
        }
        final long deadline = System.nanoTime() + timeout * 1_000_000_000L;
        AssertionError failure = null;
        for (int rank = 0; rank < 2; rank++) {
            try {
                done.get(rank).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (final ExecutionException e) {
                failure = addFailure(failure, "PE " + rank + " failed", e.getCause());
            } catch (final TimeoutException e) {
                // where it was, to tell a livelock from a slow machine
                final StringBuilder where = new StringBuilder();
                for (final StackTraceElement f : threads.get(rank).getStackTrace()) {
                    where.append("\n    at ").append(f);
                }
                failure = addFailure(failure, "PE " + rank + " did not finish in " + timeout + " s; its thread:"
                    + where, null);
            }
        }
        for (final Thread t : threads) {
            if (t.isAlive()) {
                t.interrupt();
                t.join(5000);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static AssertionError addFailure(final AssertionError prev, final String what, final Throwable cause) {
        final AssertionError e = new AssertionError(what + (cause == null ? "" : ": " + cause), cause);
        if (prev != null) {
            prev.addSuppressed(e);
            return prev;
        }
        return e;
    }

    /** Address exchange callbacks. */
    interface Publish {
        void publish(byte[] address) throws Exception;
    }

    interface Fetch {
        byte[] fetch() throws Exception;
    }

    static void runPe(final Class<? extends Scenario> scenario, final String tls, final int rank,
                      final boolean crossProcess, final Publish publish, final Fetch fetch) throws Exception {
        final Scenario sc = scenario.getDeclaredConstructor().newInstance();
        try (Context ctx = newContext(tls); Worker w = ctx.newWorker(); Arena arena = Arena.ofShared()) {
            publish.publish(w.address());
            final Endpoint ep = w.connect(fetch.fetch());
            final Pe pe = new Pe(rank, w, ep, arena, tls, crossProcess);
            pe.barrier(); // both endpoints are wired before the scenario starts
            sc.run(pe);
            pe.barrier(); // neither side closes while the other still needs it
            // and the last barrier message has left this process before the worker closes (a close drops
            // what a transport still holds; the status is the scenario's business, a failed peer's included)
            final Request flushed = ep.flush();
            pe.await(flushed);
            flushed.release();
        }
    }

    private static void runCrossProcess(final Class<? extends Scenario> scenario, final String tls, final int timeout)
        throws Exception {
        final Path err = Files.createTempFile("ucp-peer-", ".err");
        final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx512m",
            "-Xshare:auto", "-cp", System.getProperty("java.class.path")));
        // weft.* configuration set by the test (e.g. weft.unexpected_budget) applies to both PEs
        for (final String k : System.getProperties().stringPropertyNames()) {
            if (k.startsWith("weft.")) {
                cmd.add("-D" + k + "=" + System.getProperty(k));
            }
        }
        cmd.addAll(List.of(ScenarioPeerMain.class.getName(), scenario.getName(), tls));
        final Process child = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        final CompletableFuture<byte[]> childAddr = new CompletableFuture<>();
        final CompletableFuture<String> childResult = new CompletableFuture<>();
        final Thread reader = Thread.ofPlatform().daemon().name("ucp-peer-reader").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
                String line;
                final StringBuilder rest = new StringBuilder();
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("ADDR ")) {
                        childAddr.complete(HEX.parseHex(line.substring(5).trim()));
                    } else if (line.startsWith("RESULT ")) {
                        childResult.complete(line.substring(7) + rest);
                    } else {
                        rest.append('\n').append(line);
                    }
                }
                childAddr.completeExceptionally(new IOException("peer exited before sending its address"));
                childResult.complete("no result line (exit)" + rest);
            } catch (final IOException e) {
                childResult.completeExceptionally(e);
            }
        });
        final OutputStream toChild = child.getOutputStream();
        Throwable mine = null;
        try {
            runPe(scenario, tls, 0, true, a -> {
                toChild.write(("ADDR " + HEX.formatHex(a) + "\n").getBytes(StandardCharsets.UTF_8));
                toChild.flush();
            }, () -> childAddr.get(timeout, TimeUnit.SECONDS));
        } catch (final Throwable t) {
            mine = t;
        }
        String theirs;
        try {
            theirs = childResult.get(mine == null ? timeout : 5, TimeUnit.SECONDS);
        } catch (final TimeoutException e) {
            theirs = "no result in time";
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
            toChild.close();
            reader.join(5000);
        }
        final String errText = Files.readString(err);
        Files.deleteIfExists(err);
        if (mine != null || !theirs.startsWith("OK")) {
            final AssertionError e = new AssertionError("scenario " + scenario.getSimpleName() + " over " + tls
                + " across processes failed; PE 0: " + (mine == null ? "ok" : mine) + "; PE 1: " + theirs
                + (errText.isBlank() ? "" : "\nPE 1 stderr:\n" + errText), mine);
            throw e;
        }
    }
}
