package weft.ucp.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link LifecyclePeerMain} child JVM: its announced lines, its pid, and a SIGKILL. Always close it. */
final class PeerProcess implements AutoCloseable {
    private final Process process;
    private final Path err;
    private final OutputStream toChild;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;
    final long pid;

    PeerProcess(final String... args) throws IOException, InterruptedException {
        err = Files.createTempFile("ucp-lifecycle-peer-", ".err");
        final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
            "-cp", System.getProperty("java.class.path"), LifecyclePeerMain.class.getName()));
        cmd.addAll(List.of(args));
        process = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        toChild = process.getOutputStream();
        reader = Thread.ofPlatform().daemon().name("lifecycle-peer-reader").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (final IOException e) {
                lines.add("ERROR " + e);
            }
            lines.add("EXIT");
        });
        pid = Long.parseLong(expect("PID "));
    }

    /** Waits for the next line starting with {@code prefix} (other lines are skipped); returns the rest. */
    String expect(final String prefix) throws InterruptedException, IOException {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            final String l = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null || l.equals("EXIT")) {
                throw new AssertionError("peer did not print '" + prefix + "' (" + (l == null ? "timeout" : "exited")
                    + "); stderr:\n" + Files.readString(err));
            }
            if (l.startsWith(prefix)) {
                return l.substring(prefix.length()).trim();
            }
        }
    }

    void send(final String line) throws IOException {
        toChild.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        toChild.flush();
    }

    /** SIGKILL (no chance to clean up or say goodbye) and wait for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly(); // SIGKILL on Linux
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("peer " + pid + " did not die");
        }
    }

    @Override
    public void close() throws Exception {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        toChild.close();
        reader.join(5000);
        Files.deleteIfExists(err);
    }
}
