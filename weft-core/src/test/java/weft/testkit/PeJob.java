package weft.testkit;

import weft.runtime.KvServer;
import weft.runtime.LaunchEnv;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A job of N PE processes for the tests of the layers on top (OpenSHMEM, MPI): a key-value service in this
 * JVM and N child JVMs started with the launcher's environment, as {@code weft run} starts them, each running
 * {@code main} with {@code args}. The first PE to exit non-zero aborts the others through the service (unless
 * told not to); PEs still alive at the deadline are killed and the result says so.
 */
public final class PeJob {
    /** Exit statuses and merged stdout+stderr per rank; {@code timedOut} if the deadline killed the job. */
    public record Result(int[] exits, String[] output, boolean timedOut) {
        /** Every rank exited 0 in time. */
        public boolean ok() {
            if (timedOut) {
                return false;
            }
            for (final int e : exits) {
                if (e != 0) {
                    return false;
                }
            }
            return true;
        }

        /** Every rank's exit status and output, for a failure message. */
        public String describe() {
            final StringBuilder b = new StringBuilder(timedOut ? "TIMED OUT (killed)\n" : "");
            for (int r = 0; r < exits.length; r++) {
                b.append("--- rank ").append(r).append(" exit ").append(exits[r]).append('\n').append(output[r]);
            }
            return b.toString();
        }
    }

    private PeJob() {
    }

    /**
     * Runs the job and waits for it, at most {@code timeoutSeconds}.
     *
     * @param env            variables added to each PE's environment (the caller's WEFT_, SHMEM_, PMI*, OMPI_ and
     *                       SLURM_ variables are removed first, so that a PE sees only the job's)
     * @param jvmOptions     each PE's JVM options (besides native access and the class path)
     * @param abortOnFailure false: a rank's non-zero exit does not end the others (to see what they make of it)
     */
    public static Result run(final int n, final Map<String, String> env, final List<String> jvmOptions,
                             final long timeoutSeconds, final boolean abortOnFailure, final Class<?> main,
                             final String... args) {
        final String secret = UUID.randomUUID().toString();
        final String jobId = "pe-test-" + UUID.randomUUID();
        final List<Process> procs = new ArrayList<>();
        final List<ByteArrayOutputStream> outs = new ArrayList<>();
        final List<Thread> pumps = new ArrayList<>();
        try (KvServer server = KvServer.start(n, secret, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            TimeUnit.SECONDS.toNanos(timeoutSeconds), msg -> { })) {
            for (int r = 0; r < n; r++) {
                final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "--enable-native-access=ALL-UNNAMED"));
                cmd.addAll(jvmOptions);
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
                cmd.addAll(List.of(args));
                final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
                final Map<String, String> e = pb.environment();
                e.keySet().removeIf(k -> k.startsWith("WEFT_") || k.startsWith("SHMEM_") || k.startsWith("PMI")
                    || k.startsWith("OMPI_") || k.startsWith("SLURM_"));
                e.put(LaunchEnv.RANK, Integer.toString(r));
                e.put(LaunchEnv.SIZE, Integer.toString(n));
                e.put(LaunchEnv.LOCAL_RANK, Integer.toString(r));
                e.put(LaunchEnv.LOCAL_SIZE, Integer.toString(n));
                e.put(LaunchEnv.NODE_ID, "0");
                e.put(LaunchEnv.JOB_ID, jobId);
                e.put(LaunchEnv.KV_ADDRESS, "127.0.0.1:" + server.port());
                e.put(LaunchEnv.JOB_SECRET, secret);
                e.put("WEFT_BOOTSTRAP", "launcher");
                e.put("WEFT_BOOTSTRAP_TIMEOUT", timeoutSeconds + "s");
                e.putAll(env);
                final Process p = pb.start();
                procs.add(p);
                final ByteArrayOutputStream out = new ByteArrayOutputStream();
                outs.add(out);
                pumps.add(Thread.ofPlatform().daemon().start(() -> pump(p.getInputStream(), out)));
            }
            final boolean timedOut = awaitAll(procs, abortOnFailure ? server : null, timeoutSeconds);
            final int[] codes = new int[n];
            final String[] output = new String[n];
            for (int r = 0; r < n; r++) {
                final Process p = procs.get(r);
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
                codes[r] = p.waitFor();
                pumps.get(r).join(10_000);
                synchronized (outs.get(r)) {
                    output[r] = outs.get(r).toString(StandardCharsets.UTF_8);
                }
            }
            return new Result(codes, output, timedOut);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            for (final Process p : procs) {
                p.destroyForcibly();
            }
        }
    }

    /** Waits for every PE; true if the deadline came first. The first non-zero exit aborts the rest via {@code kv}. */
    private static boolean awaitAll(final List<Process> procs, final KvServer kv, final long timeoutSeconds)
        throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        boolean aborted = false;
        while (true) {
            boolean alive = false;
            for (int r = 0; r < procs.size(); r++) {
                final Process p = procs.get(r);
                if (p.isAlive()) {
                    alive = true;
                } else if (p.exitValue() != 0 && !aborted && kv != null) {
                    aborted = true;
                    kv.abort("rank " + r + " exited with status " + p.exitValue());
                }
            }
            if (!alive) {
                return false;
            }
            if (System.nanoTime() > deadline) {
                return true;
            }
            Thread.sleep(20);
        }
    }

    private static void pump(final InputStream in, final ByteArrayOutputStream out) {
        final byte[] buf = new byte[8192];
        try (in) {
            for (int k; (k = in.read(buf)) > 0; ) {
                synchronized (out) {
                    out.write(buf, 0, k);
                }
            }
        } catch (final IOException e) {
            // the process was killed: what it printed is kept, and the reason is added for the report
            synchronized (out) {
                out.writeBytes(("[output ended: " + e.getMessage() + "]\n").getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
