package weft.shmem;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Weft's OpenSHMEM under Open MPI's own launchers, {@code oshrun -np N java -cp ... Main} and {@code mpirun}
 * (the PEs join through PMIx), with the program unchanged. Skipped when the launcher is not installed (Debian:
 * {@code apt-get install openmpi-bin}).
 */
@Timeout(600)
class OshrunLaunchTest {
    private static final long TIMEOUT_S = 300;

    /** The exit status of the launcher and the PEs' combined output. */
    private record Run(int exit, String output) {
    }

    private static Run launch(final String launcher, final int np, final String tls, final Class<?> main,
                              final String... args) throws Exception {
        final Optional<Path> exe = weft.testkit.Executables.onPath(launcher);
        Assumptions.assumeTrue(exe.isPresent(), launcher + " is not on PATH: launching under Open MPI needs it "
            + "(apt-get install openmpi-bin); skipped");
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final List<String> cmd = new ArrayList<>(List.of(exe.get().toString(), "--allow-run-as-root",
            "--oversubscribe", "-np", Integer.toString(np), "-x", "WEFT_TLS=" + tls, "-x", "SHMEM_SYMMETRIC_SIZE=16m",
            java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
            System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            final boolean done = p.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(done, launcher + " did not finish in " + TIMEOUT_S + " s: " + out);
            return new Run(p.exitValue(), out);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static long count(final String text, final String line) {
        return text.lines().filter(line::equals).count();
    }

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"oshrun, shm", "oshrun, tcp", "mpirun, shm"})
    void theRoutinesRunUnderOpenMpisLaunchers(final String launcher, final String tls) throws Exception {
        final Run r = launch(launcher, 2, tls, ShmemConformancePe.class, "rma", "amo", "sync", "coll");
        assertEquals(0, r.exit(), r.output());
        for (final String family : List.of("rma", "amo", "sync", "coll")) {
            assertEquals(2, count(r.output(), "ok " + family), "both PEs finish " + family + ": " + r.output());
        }
    }

    /** shmem_global_exit(5) on one PE ends the job, and the launcher reports the status as its own. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"oshrun"})
    void globalExitEndsTheJobWithItsStatus(final String launcher) throws Exception {
        final Run r = launch(launcher, 2, "shm", ShmemFailurePe.class, "globalExit", "5");
        assertEquals(5, r.exit(), r.output());
    }
}
