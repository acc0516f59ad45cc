package mpi;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MPI programs launched by Open MPI's own {@code mpirun -np N java -cp ... Main}, unchanged: the ranks join
 * through PMIx. Skipped when {@code mpirun} is not installed (Debian: {@code apt-get install openmpi-bin}).
 */
@Timeout(600)
class MpirunLaunchTest {
    /** The exit status of mpirun and the ranks' combined output. */
    private record Run(int exit, String output) {
    }

    private static Run mpirun(final int np, final String tls, final Class<?> main, final String... args)
        throws Exception {
        final Optional<Path> mpirun = weft.testkit.Executables.onPath("mpirun");
        Assumptions.assumeTrue(mpirun.isPresent(),
            "mpirun is not on PATH: launching under Open MPI needs it (apt-get install openmpi-bin); skipped");
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final List<String> cmd = new ArrayList<>(List.of(mpirun.get().toString(), "--allow-run-as-root",
            "--oversubscribe", "-np", Integer.toString(np), "-x", "WEFT_TLS=" + tls, java,
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
            System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            final boolean done = p.waitFor(MpiJob.JOB_TIMEOUT_S, TimeUnit.SECONDS);
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(done, "mpirun did not finish: " + out);
            return new Run(p.exitValue(), out);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    @Test
    void collectivesRunUnderMpirun() throws Exception {
        final Run r = mpirun(3, "shm", CollectiveRanks.class);
        assertEquals(0, r.exit(), r.output());
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.output().contains("OK coll rank " + rank), r.output());
        }
    }

    @Test
    void intercommunicatorCollectivesRunUnderMpirunOverTcp() throws Exception {
        final Run r = mpirun(3, "tcp", InterCollectiveRanks.class);
        assertEquals(0, r.exit(), r.output());
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.output().contains("OK inter rank " + rank), r.output());
        }
    }

    /** MPI_Abort(7) ends the job, and mpirun reports the code as its own exit status. */
    @Test
    void abortEndsTheMpirunJobWithItsCode() throws Exception {
        final Run r = mpirun(3, "shm", ErrorRanks.class, "abort");
        assertEquals(7, r.exit(), r.output());
        assertTrue(r.output().contains("MPI_Abort"), r.output());
    }
}
