package weft.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Commands for tests that build network namespaces and veth links (they need root). */
public final class Netns {
    private Netns() {
    }

    /** True if this process runs as root. */
    public static boolean isRoot() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream()
            .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
    }

    /** Runs a command (10 s at most); null on success, else the command, its exit code and output. */
    public static String sh(final String... cmd) throws InterruptedException {
        final Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
        } catch (final IOException e) {
            return e.getMessage();
        }
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return String.join(" ", cmd) + " hung";
        }
        try {
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.exitValue() == 0 ? null : String.join(" ", cmd) + " -> " + p.exitValue() + ": " + out;
        } catch (final IOException e) {
            return e.getMessage();
        }
    }

    /** Fails with the command's error unless it succeeded ({@link #sh}'s null). */
    public static void must(final String error) {
        if (error != null) {
            throw new AssertionError(error);
        }
    }

    /**
     * Waits (at most 10 s) until {@code dev} in namespace {@code ns} reports operstate "up": the
     * kernel marks a new link's carrier up (and its routes usable) from its link-watch work, up to
     * a second later.
     */
    public static void awaitOperUp(final String ns, final String dev) throws Exception {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            final Process p = new ProcessBuilder("ip", "netns", "exec", ns, "cat", "/sys/class/net/" + dev + "/operstate")
                .redirectErrorStream(true).start();
            p.getOutputStream().close();
            final String state = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            if (state.equals("up")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(dev + " in " + ns + " is still " + state);
            }
            Thread.sleep(50);
        }
    }
}
