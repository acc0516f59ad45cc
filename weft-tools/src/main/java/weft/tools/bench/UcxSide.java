package weft.tools.bench;

import weft.tools.perftest.PerfResult;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The native anchor: {@code ucx_perftest} (UCX, from Debian's ucx-utils) as server and client
 * processes pinned like Weft's, one pair per point, with the transport chosen by {@code UCX_TLS}
 * (shm → {@code sm}, tcp → {@code tcp}).
 */
final class UcxSide {
    private final String binary;
    private final Path log;
    private final int clientCpu;
    private final int serverCpu;

    private UcxSide(final String binary, final Path log, final int clientCpu, final int serverCpu) {
        this.binary = binary;
        this.log = log;
        this.clientCpu = clientCpu;
        this.serverCpu = serverCpu;
    }

    /** The anchor, or null when {@code ucx_perftest} is not on the PATH. */
    static UcxSide find(final Path log, final int clientCpu, final int serverCpu) {
        final String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (final String dir : path.split(File.pathSeparator)) {
            final Path p = Path.of(dir.isEmpty() ? "." : dir, "ucx_perftest");
            if (Files.isExecutable(p)) {
                return new UcxSide(p.toString(), log, clientCpu, serverCpu);
            }
        }
        return null;
    }

    /** UCX's own version line ("UCX 1.13.1 ..."), or "" if it does not say. */
    String version() {
        final Path info = Path.of(binary).resolveSibling("ucx_info");
        if (!Files.isExecutable(info)) {
            return "";
        }
        try {
            final Process p = new ProcessBuilder(info.toString(), "-v").redirectErrorStream(true).start();
            final String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            for (final String line : text.split("\n")) {
                final String l = line.replaceFirst("^#\\s*", "").strip();
                if (l.startsWith("Version ")) { // "# Version 1.13.1"
                    return "UCX " + l.substring("Version ".length()).strip();
                }
            }
            return "";
        } catch (final IOException e) {
            return "";
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** UCX_TLS for a Weft transport set. */
    static String ucxTls(final String transport) {
        return switch (transport) {
            case "shm" -> "sm";
            default -> transport;
        };
    }

    /** Runs {@code p}'s UCX test; never throws for a failed run. */
    Outcome run(final BenchPoint p) {
        final int port;
        try {
            port = WeftSide.freePort();
        } catch (final IOException e) {
            return Outcome.failed("no free port: " + e.getMessage());
        }
        final long timeoutMs = Math.max(30_000, (long) (BenchPlan.costUs(p.transport(), p.test(), p.size())
            * (p.iterations() + p.warmup()) / 1000 * 20));
        final List<String> server = new ArrayList<>(List.of(binary, "-p", Integer.toString(port)));
        final List<String> client = new ArrayList<>(List.of(binary, "127.0.0.1", "-p", Integer.toString(port),
            "-t", p.ucxTest(), "-s", Long.toString(p.size()), "-n", Long.toString(p.iterations()),
            "-w", Long.toString(p.warmup()), "-f"));
        if (serverCpu >= 0) {
            server.addAll(List.of("-c", Integer.toString(serverCpu)));
        }
        if (clientCpu >= 0) {
            client.addAll(List.of("-c", Integer.toString(clientCpu)));
        }
        final ProcessPair.Run run = ProcessPair.run(server, client, java.util.Map.of("UCX_TLS", ucxTls(p.transport())),
            log, port, timeoutMs, "ucx_perftest");
        if (run.error() != null) {
            return Outcome.failed(run.error());
        }
        final PerfResult r = finalLine(run.output());
        if (run.exitCode() != 0 || r == null) {
            return Outcome.failed("ucx_perftest exited with " + run.exitCode() + ": " + WeftSide.lastLine(run.output()));
        }
        return Outcome.ok(r, Double.NaN);
    }

    /**
     * {@code cmd} under {@code setpriv --pdeathsig KILL} where util-linux's setpriv is installed: the kernel
     * then kills the native ucx_perftest when the thread that started it (this run's, which lives as long
     * as the bench) ends, even by {@code kill -9}, which runs none of our clean-up.
     */
    static List<String> withParentDeathSignal(final List<String> cmd) {
        for (final String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            final java.nio.file.Path setpriv = java.nio.file.Path.of(dir.isEmpty() ? "." : dir, "setpriv");
            if (java.nio.file.Files.isExecutable(setpriv)) {
                final List<String> wrapped = new ArrayList<>(List.of(setpriv.toString(), "--pdeathsig", "KILL"));
                wrapped.addAll(cmd);
                return wrapped;
            }
        }
        return cmd;
    }

    /** The last line of eight numbers (ucx_perftest -f's final figures), or null. */
    static PerfResult finalLine(final String text) {
        final String[] lines = text.strip().split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            final String[] tok = lines[i].replace(',', ' ').strip().split("\\s+");
            if (tok.length < 8) {
                continue;
            }
            try {
                final double[] v = new double[8];
                for (int j = 0; j < 8; j++) {
                    v[j] = Double.parseDouble(tok[j]);
                }
                return new PerfResult((long) v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
            } catch (final NumberFormatException e) {
                continue; // a text line: keep looking upwards
            }
        }
        return null;
    }

    /** True if a socket listens on TCP {@code port} (read from /proc/net/tcp{,6}; connecting would be taken as the client). */
    static boolean listening(final int port) {
        final String hexPort = String.format(Locale.ROOT, ":%04X", port);
        for (final String f : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            final Path table = Path.of(f);
            if (!Files.isReadable(table)) {
                continue; // no IPv6 on this machine
            }
            final List<String> lines;
            try {
                lines = Files.readAllLines(table);
            } catch (final IOException e) {
                throw new java.io.UncheckedIOException("cannot read " + f, e);
            }
            for (final String line : lines) {
                final String[] tok = line.strip().split("\\s+");
                if (tok.length > 3 && tok[1].endsWith(hexPort) && tok[3].equals("0A")) {
                    return true;
                }
            }
        }
        return false;
    }
}
