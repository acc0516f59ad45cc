package weft.tools.run;

import weft.tools.ParentWatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import weft.ucs.config.Config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Atomics under contention from every PE of a job: 4 PE processes started by the launcher, each
 * hammering the same words on every other PE with every atomic op while the owner runs its own CPU
 * atomics on them ({@link AtomicContentionPe}); every PE checks the exact final values of its words.
 * Over shm (memory allocated by Weft: CPU atomics on the mapping), over shm with memory the PEs
 * registered themselves (no lane has atomics on it: emulated at the target), and over tcp (served by
 * the target's progress).
 */
@Timeout(300)
class AtomicContentionJobTest {
    private static final int N = 4;

    @TempDir
    Path tmp;
    Path pidDir;

    @BeforeEach
    void pidDir() throws IOException {
        pidDir = Files.createDirectory(tmp.resolve("pids"));
    }

    @AfterEach
    void noProcessOutlivesItsJob() throws IOException {
        try (Stream<Path> s = Files.list(pidDir)) {
            for (final Path p : s.toList()) {
                final long pid = Long.parseLong(p.getFileName().toString());
                ProcessHandle.of(pid).filter(ParentWatch::isLive).ifPresent(h -> {
                    h.destroyForcibly();
                    throw new AssertionError("process " + pid + " of the job is still alive: " + h.info());
                });
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} memory")
    @CsvSource({"shm, alloc, 200, shm/", "shm, registered, 50, emulated(", "tcp, alloc, 60, tcp/"})
    void everyPeHammersEveryOtherPesWords(final String tls, final String memory, final int iters,
                                          final String lane) {
        final List<String> a = new ArrayList<>(LaunchTest.FAST_JVM);
        a.addAll(List.of("-n", Integer.toString(N), "--tag-output", "--timeout", "240", "-x", "WEFT_TLS=" + tls,
            AtomicContentionPe.class.getName(), pidDir.toString(), memory, Integer.toString(iters)));
        final LaunchTest.Job job = LaunchTest.run(Config.global().with("RUN_KILL_GRACE", "500ms")
            .with("BOOTSTRAP_TIMEOUT", "60s"), a);
        assertEquals(0, job.rc(), job.toString());
        for (int r = 0; r < N; r++) {
            final int rank = r;
            assertTrue(job.out().lines().anyMatch(l -> l.startsWith("[" + rank + "] ok " + rank + " ")
                && l.contains("amo=" + lane)), "PE " + rank + " checked its words over amo=" + lane + "...: " + job);
        }
    }
}
