package mpi;

import weft.runtime.KvServer;
import weft.runtime.LaunchEnv;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a rank program as a job of separate JVMs, the way {@code weft run} does: a key-value service, one
 * process per rank with the launcher's environment, and, when a rank exits with a non-zero status, an abort
 * to all the others (which then exit). Every wait is bounded by {@link #JOB_TIMEOUT_S}; a job still running
 * then is killed and reported.
 */
final class MpiJob {
    /** Seconds a whole test job may take (a hang, not a slow machine, when exceeded). */
    static final long JOB_TIMEOUT_S = Long.getLong("weft.test.mpiJobTimeoutSeconds", 180);
    private static final String SECRET = "mpi-test-secret";

    /** Exit statuses and the combined output of each rank. */
    record Result(int[] exits, String[] output) {
        String describe() {
            final StringBuilder b = new StringBuilder();
            for (int r = 0; r < exits.length; r++) {
                b.append("--- rank ").append(r).append(" exit ").append(exits[r]).append('\n').append(output[r]);
            }
            return b.toString();
        }

        boolean allZero() {
            for (final int e : exits) {
                if (e != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    private MpiJob() {
    }

    static Result run(final int np, final Map<String, String> env, final Class<?> main, final String... args)
        throws IOException, InterruptedException {
        return run(np, env, true, main, args);
    }

    /**
     * @param abortOnFailure false: a rank's non-zero exit does not end the others (to see what the ranks left
     *                       make of a dead peer themselves)
     */
    static Result run(final int np, final Map<String, String> env, final boolean abortOnFailure, final Class<?> main,
                      final String... args) throws IOException, InterruptedException {
        try (KvServer kv = KvServer.start(np, SECRET, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            TimeUnit.SECONDS.toNanos(JOB_TIMEOUT_S), line -> { })) {
            final String jobId = "mpitest-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            final List<Process> procs = new ArrayList<>();
            final List<Thread> pumps = new ArrayList<>();
            final ByteArrayOutputStream[] outs = new ByteArrayOutputStream[np];
            try {
                for (int r = 0; r < np; r++) {
                    final List<String> cmd = new ArrayList<>(List.of(
                        ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
                        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss2m", "-cp",
                        System.getProperty("java.class.path"), main.getName()));
                    cmd.addAll(List.of(args));
                    final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
                    final Map<String, String> e = pb.environment();
                    e.keySet().removeIf(k -> k.startsWith("WEFT_") || k.startsWith("PMI") || k.startsWith("OMPI_")
                        || k.startsWith("SLURM_"));
                    e.put(LaunchEnv.RANK, Integer.toString(r));
                    e.put(LaunchEnv.SIZE, Integer.toString(np));
                    e.put(LaunchEnv.LOCAL_RANK, Integer.toString(r));
                    e.put(LaunchEnv.LOCAL_SIZE, Integer.toString(np));
                    e.put(LaunchEnv.NODE_ID, "0");
                    e.put(LaunchEnv.JOB_ID, jobId);
                    e.put(LaunchEnv.KV_ADDRESS, "127.0.0.1:" + kv.port());
                    e.put(LaunchEnv.JOB_SECRET, SECRET);
                    e.put("WEFT_BOOTSTRAP", "launcher");
                    e.put("WEFT_BOOTSTRAP_TIMEOUT", JOB_TIMEOUT_S + "s");
                    e.putAll(env);
                    final Process p = pb.start();
                    procs.add(p);
                    final ByteArrayOutputStream o = new ByteArrayOutputStream();
                    outs[r] = o;
                    pumps.add(Thread.ofPlatform().daemon().start(() -> pump(p.getInputStream(), o)));
                }
                final int[] exits = waitAll(procs, abortOnFailure ? kv : null);
                for (final Thread t : pumps) {
                    t.join(TimeUnit.SECONDS.toMillis(10));
                }
                final String[] text = new String[np];
                for (int r = 0; r < np; r++) {
                    synchronized (outs[r]) {
                        text[r] = outs[r].toString(StandardCharsets.UTF_8);
                    }
                }
                return new Result(exits, text);
            } finally {
                for (final Process p : procs) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** Waits for every rank; the first non-zero exit aborts the others through {@code kv} unless it is null. */
    private static int[] waitAll(final List<Process> procs, final KvServer kv) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOB_TIMEOUT_S);
        final int[] exits = new int[procs.size()];
        boolean aborted = false;
        while (true) {
            boolean running = false;
            for (int r = 0; r < procs.size(); r++) {
                final Process p = procs.get(r);
                if (p.isAlive()) {
                    running = true;
                } else if (p.exitValue() != 0 && !aborted && kv != null) {
                    aborted = true;
                    kv.abort("rank " + r + " exited with status " + p.exitValue());
                }
            }
            if (!running) {
                break;
            }
            if (System.nanoTime() > deadline) {
                for (final Process p : procs) {
                    p.destroyForcibly();
                }
                throw new AssertionError("the job did not finish within " + JOB_TIMEOUT_S + " s (killed)");
            }
            Thread.sleep(20);
        }
        for (int r = 0; r < procs.size(); r++) {
            exits[r] = procs.get(r).exitValue();
        }
        return exits;
    }

    private static void pump(final InputStream in, final ByteArrayOutputStream out) {
        final byte[] buf = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buf)) > 0; ) {
                synchronized (out) {
                    out.write(buf, 0, n);
                }
            }
        } catch (final IOException e) {
            // the process was killed: what it printed is kept, and the reason is added for the report
            synchronized (out) {
                out.writeBytes(("[output ended: " + e.getMessage() + "]").getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
