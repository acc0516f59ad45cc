package weft.runtime;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PMIx bootstrap under a real resource manager: {@code mpirun -np 2 java ... RuntimeTestPe}
 * with no change to the program. Skipped when Open MPI's {@code mpirun} is not installed
 * (Debian: {@code apt-get install openmpi-bin}).
 */
@Timeout(120)
class PmixProcessTest {
    @Test
    void shouldExchangeUnderMpirun() throws Exception {
        final Optional<Path> mpirun = weft.testkit.Executables.onPath("mpirun");
        Assumptions.assumeTrue(mpirun.isPresent(),
            "mpirun is not on PATH: the PMIx bootstrap test needs Open MPI (apt-get install openmpi-bin); skipped");
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final Process p = new ProcessBuilder(List.of(mpirun.get().toString(), "--allow-run-as-root",
            "--oversubscribe", "-np", "2", java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"), RuntimeTestPe.class.getName(), "exchange"))
            .redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            final boolean done = p.waitFor(90, TimeUnit.SECONDS);
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(done, "mpirun did not finish: " + out);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("OK rank 0/2 via pmix") && out.contains("OK rank 1/2 via pmix"), out);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
