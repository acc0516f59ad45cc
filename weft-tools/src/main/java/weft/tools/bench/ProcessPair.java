package weft.tools.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One server and one client process of a perftest-like tool (ucx_perftest, or Weft's perftest in fresh JVMs):
 * starts the server, waits until it listens, runs the client to its end and collects its output; the server's
 * output goes to a log. Both die with the thread that started them where util-linux's setpriv exists.
 */
final class ProcessPair {
    /** How long the server may take to listen. */
    private static final long LISTEN_NS = TimeUnit.SECONDS.toNanos(30);

    /**
     * The client's end.
     *
     * @param exitCode the client's exit code (-1 when it did not end)
     * @param output   its stdout and stderr
     * @param error    why there is no result, or null
     */
    record Run(int exitCode, String output, String error) {
    }

    private ProcessPair() {
    }

    static Run run(final List<String> server, final List<String> client, final Map<String, String> env,
                   final Path log, final int port, final long timeoutMs, final String name) {
        Process srv = null;
        Process cli = null;
        try {
            srv = start(server, env, ProcessBuilder.Redirect.appendTo(log.toFile()));
            final long deadline = System.nanoTime() + LISTEN_NS;
            while (!UcxSide.listening(port)) {
                if (!srv.isAlive()) {
                    return new Run(-1, "", name + " server exited with " + srv.exitValue() + " (see " + log + ")");
                }
                if (System.nanoTime() > deadline) {
                    return new Run(-1, "", name + " server did not listen on port " + port + " within "
                        + TimeUnit.NANOSECONDS.toSeconds(LISTEN_NS) + " s");
                }
                Thread.sleep(10);
            }
            cli = start(client, env, ProcessBuilder.Redirect.PIPE);
            final Process c = cli;
            // read in the background: a full pipe must not stall the client
            final CompletableFuture<String> text = CompletableFuture.supplyAsync(() -> readAll(c, name));
            if (!cli.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                return new Run(-1, "", name + " client did not finish within " + timeoutMs / 1000 + " s");
            }
            return new Run(cli.exitValue(), text.get(10, TimeUnit.SECONDS), null);
        } catch (final IOException | ExecutionException | TimeoutException e) {
            return new Run(-1, "", name + ": " + e.getMessage());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Run(-1, "", "interrupted");
        } finally {
            stop(cli);
            stop(srv);
        }
    }

    private static Process start(final List<String> cmd, final Map<String, String> env,
                                 final ProcessBuilder.Redirect out) throws IOException {
        final ProcessBuilder pb = new ProcessBuilder(UcxSide.withParentDeathSignal(cmd)).redirectErrorStream(true)
            .redirectOutput(out);
        pb.environment().putAll(env);
        return pb.start();
    }

    private static String readAll(final Process p, final String name) {
        try {
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (final IOException e) {
            return "cannot read " + name + "'s output: " + e.getMessage();
        }
    }

    private static void stop(final Process p) {
        if (p == null) {
            return;
        }
        try {
            if (!p.waitFor(p.isAlive() ? 2 : 0, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (final InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
