package weft.tools.run;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every Slurm test class shares: a local cluster of {@link #nodes()} nodes ({@link LocalSlurm}) brought up
 * once for the class and torn down after it, each test skipped with the reason where there can be none, a
 * directory for the PEs' pid files per test, and the check that no process of a test's jobs outlives it.
 * One instance per class holds the cluster (its node count is the subclass's).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SlurmClusterFixture {
    static final Path EXAMPLE = Path.of("..", "examples", "HelloWeft.java").toAbsolutePath().normalize();

    LocalSlurm slurm;
    /** Why there is no cluster here (each test is skipped with it), or null. */
    private String unavailable;
    private boolean hasPmix;
    /** Where the PEs of the current test write their pid files. */
    Path pidDir;
    /** The names of the current test's jobs (Slurm job names, also the task markers). */
    final List<String> names = new ArrayList<>();

    /** How many nodes the cluster has (network namespaces beyond the first). */
    abstract int nodes();

    @BeforeAll
    final void startCluster() throws Exception {
        unavailable = LocalSlurm.unavailable(nodes());
        if (unavailable != null) {
            return;
        }
        slurm = LocalSlurm.start(nodes());
        hasPmix = slurm.run(LocalSlurm.newName(), List.of("srun", "--mpi=list"), Map.of(), 30).out().contains("pmix");
    }

    @AfterAll
    final void stopCluster() throws Exception {
        if (slurm != null) {
            slurm.close();
        }
    }

    @BeforeEach
    final void newPidDir() throws IOException {
        Assumptions.assumeTrue(unavailable == null, "no local " + nodes() + "-node Slurm cluster: " + unavailable
            + "; skipped");
        pidDir = Files.createTempDirectory(slurm.dir, "pids-");
    }

    /** Nothing any job of the test started outlives it: neither tasks (marker) nor PEs (pid files). */
    @AfterEach
    final void nothingLeftBehind() throws Exception {
        if (pidDir == null) {
            return; // skipped
        }
        try {
            final List<String> left = LocalSlurm.leftovers(names, pidDir);
            assertTrue(left.isEmpty(), "processes of the job are still alive: " + left);
        } finally {
            names.clear();
            pidDir = null;
        }
    }

    /** Skips a pmix case where this Slurm has no mpi/pmix plugin. */
    final void assumeMpi(final String mpi) {
        Assumptions.assumeTrue(!mpi.equals("pmix") || hasPmix, "this Slurm has no mpi/pmix plugin; skipped");
    }
}
