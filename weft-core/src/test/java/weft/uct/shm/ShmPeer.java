package weft.uct.shm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Test-side handle on a {@link ShmPeerMain} child JVM. Always {@link #close()} it. */
final class ShmPeer implements AutoCloseable {
    final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Writer stdin;
    final byte[] deviceAddress;
    final byte[] ifaceAddress;
    final byte[] rkey;
    final long base;

    ShmPeer(final String... jvmOptions) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        if (!Boolean.getBoolean("weft.shm.peerFullJit")) {
            cmd.add("-XX:TieredStopAtLevel=1"); // quick start-up for functional tests; latency runs want C2
        }
        cmd.addAll(List.of(jvmOptions));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ShmPeerMain.class.getName());
        process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        final Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.US_ASCII))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.add(l);
                }
            } catch (final IOException e) {
                lines.add("ERROR " + e);
            }
        });
        t.setDaemon(true);
        t.start();
        final String ready = expect("READY");
        final String[] w = ready.split(" ");
        final HexFormat hex = HexFormat.of();
        deviceAddress = hex.parseHex(w[1]);
        ifaceAddress = hex.parseHex(w[2]);
        rkey = hex.parseHex(w[3]);
        base = Long.parseLong(w[4]);
    }

    /** Waits (20 s at most) for a line starting with {@code prefix}. */
    String expect(final String prefix) throws InterruptedException {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            final String l = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new AssertionError("peer did not print " + prefix + " in time (alive=" + process.isAlive() + ")");
            }
            if (l.startsWith(prefix)) {
                return l;
            }
            if (l.startsWith("ERROR")) {
                throw new AssertionError("peer: " + l);
            }
        }
    }

    void command(final String c) throws IOException {
        stdin.write(c + "\n");
        stdin.flush();
    }

    int pid() {
        return (int) process.pid();
    }

    @Override
    public void close() {
        try {
            command("EXIT");
        } catch (final IOException alreadyDead) {
            process.destroyForcibly(); // cannot ask it to exit: make sure it is gone
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (final InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
