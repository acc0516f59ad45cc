package weft.shmem;

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
 * A job of N PE processes for the tests: a key-value service in this JVM and N child JVMs started with the
 * launcher's environment (as {@code weft run} starts them), each running {@code main} with {@code args}.
 * The first PE to exit non-zero aborts the others through the service; every PE still alive at the
 * deadline is killed, and the result says so.
 */
final class ShmemJob {
    /** Exit codes and merged stdout+stderr per rank; {@code timedOut} if the deadline killed the job. */
    record Result(int[] codes, String[] output, boolean timedOut) {
        boolean ok() {
            if (timedOut) {
                return false;
            }
            for (final int c : codes) {
                if (c != 0) {
                    return false;
                }
            }
            return true;
        }

        String out(final int rank) {
            return output[rank];
        }

        @Override
        public String toString() {
            final StringBuilder sb = new StringBuilder(timedOut ? "TIMED OUT\n" : "");
            for (int r = 0; r < codes.length; r++) {
                sb.append("--- rank ").append(r).append(" exit ").append(codes[r]).append('\n').append(output[r]);
            }
            return sb.toString();
        }
    }

    private ShmemJob() {
    }

    /** The PEs' JVM options in the tests: C1 only, small heaps (many JVMs share two cores). */
    static final List<String> FAST_JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
        "-Xshare:auto", "-Xmx64m", "-Xss2m");

    static Result run(final int n, final Map<String, String> env, final long timeoutSeconds, final Class<?> main,
                      final String... args) {
        return run(n, env, FAST_JVM, timeoutSeconds, main, args);
    }

    static Result run(final int n, final Map<String, String> env, final List<String> jvmOptions,
                      final long timeoutSeconds, final Class<?> main, final String... args) {
        final String secret = UUID.randomUUID().toString();
        final String jobId = "shmem-test-" + UUID.randomUUID();
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
                e.keySet().removeIf(k -> k.startsWith("WEFT_") || k.startsWith("SHMEM_") || k.startsWith("PMI"));
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
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            boolean timedOut = false;
            boolean aborted = false;
            for (boolean alive = true; alive; ) {
                alive = false;
                for (final Process p : procs) {
                    if (p.isAlive()) {
                        alive = true;
                    } else if (p.exitValue() != 0 && !aborted) {
                        aborted = true;
                        server.abort("a PE exited with " + p.exitValue());
                    }
                }
                if (alive && System.nanoTime() > deadline) {
                    timedOut = true;
                    break;
                }
                if (alive) {
                    Thread.sleep(20);
                }
            }
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

    private static void pump(final InputStream in, final ByteArrayOutputStream out) {
        final byte[] buf = new byte[8192];
        try (in) {
            int k;
            while ((k = in.read(buf)) > 0) {
                synchronized (out) {
                    out.write(buf, 0, k);
                }
            }
        } catch (final IOException e) {
            synchronized (out) {
                out.writeBytes(("[output lost: " + e + "]\n").getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
