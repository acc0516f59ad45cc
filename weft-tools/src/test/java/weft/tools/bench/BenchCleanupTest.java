package weft.tools.bench;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import weft.tools.ParentWatch;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nothing {@code weft bench} starts outlives it, however it ends: after a {@code kill -9} of the bench
 * JVM (no shutdown hook runs) its perftest server JVM exits by itself ({@code --exit-with}, a
 * {@link ParentWatch}), and a native ucx_perftest it starts is killed by the kernel (setpriv's
 * parent-death signal).
 */
class BenchCleanupTest {
    /** The watch polls every 200 ms; a JVM exits in well under a second; plus a busy machine's allowance. */
    private static final long GONE_WITHIN_S = 2 + Long.getLong("weft.test.timeAllowanceMs", 5_000) / 1000;

    @Test
    @Timeout(120)
    void theServerJvmEndsWhenTheBenchIsKilled(@TempDir final Path dir) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), "weft.tools.Main", "bench", "--no-ucx", "-x", "shm",
            "-t", "tag_lat", "--budget-ms", "60000", "-o", dir.resolve("out").toString()));
        final Process bench = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(dir.resolve("bench.log").toFile()).start();
        try {
            // the server has served the bench's first client: it runs, as a user's kill would find it
            final Path serverLog = dir.resolve("out").resolve("weft-server.log");
            ProcessHandle server = null;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (server == null && System.nanoTime() < deadline && bench.isAlive()) {
                if (Files.exists(serverLog) && Files.readString(serverLog).contains("Accepted connection")) {
                    server = bench.descendants().filter(h -> h.info().arguments()
                        .map(a -> List.of(a).contains("--serve")).orElse(false)).findFirst().orElse(null);
                }
                Thread.sleep(50);
            }
            assertTrue(server != null && ParentWatch.isLive(server), "no perftest server serving the bench: "
                + Files.readString(dir.resolve("bench.log")));
            bench.destroyForcibly(); // SIGKILL: no shutdown hook, no clean-up of its own
            assertGone(server, "the perftest server of a killed bench");
        } finally {
            bench.descendants().forEach(ProcessHandle::destroyForcibly);
            bench.destroyForcibly();
        }
    }

    @Test
    @Timeout(60)
    void aNativeUcxPerftestEndsWhenTheBenchIsKilled() throws Exception {
        final List<String> probe = UcxSide.withParentDeathSignal(List.of("true"));
        Assumptions.assumeTrue(probe.size() > 1, "no setpriv (util-linux) on PATH: ucx_perftest is started bare");
        final Process spawner = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
            "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            DeathSignalSpawnerMain.class.getName()).redirectErrorStream(true).start();
        try {
            final String line = new BufferedReader(new InputStreamReader(spawner.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
            assertTrue(line != null && line.startsWith("child "), "spawner said: " + line);
            final Optional<ProcessHandle> child = ProcessHandle.of(Long.parseLong(line.substring(6).strip()));
            assertTrue(child.isPresent() && ParentWatch.isLive(child.get()), "the child runs");
            spawner.destroyForcibly();
            assertGone(child.get(), "a process started as ucx_perftest is, after its starter was killed");
        } finally {
            spawner.descendants().forEach(ProcessHandle::destroyForcibly);
            spawner.destroyForcibly();
        }
    }

    private static void assertGone(final ProcessHandle p, final String what) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GONE_WITHIN_S);
        while (ParentWatch.isLive(p) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        final boolean live = ParentWatch.isLive(p);
        if (live) {
            p.destroyForcibly();
        }
        assertFalse(live, what + " (pid " + p.pid() + ") still runs " + GONE_WITHIN_S + " s later");
    }
}
