package weft.runtime;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which bootstrap the environment of each launcher leads to, and the errors for launchers Weft cannot use. */
class BootstrapChoiceTest {
    /** What srun sets for task 1 of a 2-task step, whatever its --mpi. */
    private static final Map<String, String> SRUN_TASK = Map.of("SLURM_JOB_ID", "12", "SLURM_STEP_ID", "0",
        "SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_STEP_NUM_TASKS", "2", "SLURM_LOCALID", "1");
    private static final Map<String, String> WEFT_RUN = Map.of(LaunchEnv.RANK, "0", LaunchEnv.KV_ADDRESS,
        "127.0.0.1:5000");

    private static String auto(final Map<String, String> env) {
        return BootstrapChoice.choose("auto", env::get);
    }

    @SafeVarargs
    private static Map<String, String> merge(final Map<String, String>... maps) {
        final Map<String, String> m = new HashMap<>();
        for (final Map<String, String> x : maps) {
            m.putAll(x);
        }
        return m;
    }

    @Test
    void shouldPickTheBootstrapEachLauncherServes() {
        assertEquals("singleton", auto(Map.of()));
        assertEquals("launcher", auto(WEFT_RUN));
        assertEquals("pmix", auto(merge(SRUN_TASK, Map.of("PMIX_RANK", "1", "PMIX_NAMESPACE", "slurm.pmix.12.0"))));
        assertEquals("pmi2", auto(merge(SRUN_TASK, Map.of("PMI_FD", "11", "PMI_RANK", "1", "PMI_SIZE", "2"))));
        assertEquals("pmix", auto(Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "4", "PMIX_RANK", "1")));
    }

    @Test
    void shouldLetWeftRunWinInsideASlurmAllocation() {
        // weft run inside salloc (or even inside an srun step): the PEs inherit SLURM_*, PMI_* and PMIX_*
        assertEquals("launcher", auto(merge(SRUN_TASK, Map.of("PMI_FD", "11", "PMIX_RANK", "0"), WEFT_RUN)));
    }

    @Test
    void shouldRunAsASingletonInABatchScriptOrAOneTaskStep() {
        // the batch script's own environment: SLURM_PROCID and SLURM_NTASKS but no step
        assertEquals("singleton", auto(Map.of("SLURM_JOB_ID", "7", "SLURM_PROCID", "0", "SLURM_NTASKS", "4")));
        assertEquals("singleton", auto(Map.of("SLURM_JOB_ID", "7", "SLURM_STEP_ID", "0", "SLURM_PROCID", "0",
            "SLURM_NTASKS", "1", "SLURM_STEP_NUM_TASKS", "1")));
    }

    @Test
    void shouldRefuseATaskOfSrunWithoutPmi() {
        final WeftException e = assertThrows(WeftException.class, () -> auto(SRUN_TASK));
        assertEquals(Status.INVALID_PARAM, e.status());
        assertTrue(e.getMessage().startsWith("this process is task 1 of 2 of Slurm job step 12.0, but srun gave it "
            + "no process-management interface Weft can use"), e.getMessage());
        assertTrue(e.getMessage().contains("start it with 'srun --mpi=pmix' or 'srun --mpi=pmi2'"), e.getMessage());
        // the step's task count wins over the allocation's
        assertThrows(WeftException.class, () -> auto(merge(SRUN_TASK, Map.of("SLURM_NTASKS", "1"))));
    }

    @Test
    void shouldRefuseAPmiRankWithoutPmiFd() {
        final WeftException e = assertThrows(WeftException.class, () -> auto(Map.of("PMI_RANK", "3", "PMI_SIZE", "4",
            "PMI_PORT", "node1:4000")));
        assertTrue(e.getMessage().contains("rank 3 of 4 of a PMI launcher (PMI_RANK, PMI_SIZE), but PMI_FD is not set "
            + "(only PMI_PORT=node1:4000)"), e.getMessage());
        assertTrue(e.getMessage().contains("'srun --mpi=pmi2' or 'srun --mpi=pmix'"), e.getMessage());
    }

    @Test
    void shouldRefuseAnOpenMpiRankWithoutPmix() {
        final WeftException e = assertThrows(WeftException.class, () -> auto(Map.of("OMPI_COMM_WORLD_RANK", "0",
            "OMPI_COMM_WORLD_SIZE", "2")));
        assertTrue(e.getMessage().contains("rank 0 of 2 of Open MPI's mpirun"), e.getMessage());
    }

    @Test
    void shouldObeyAnExplicitChoice() {
        assertEquals("singleton", BootstrapChoice.choose("singleton", SRUN_TASK::get));
        assertEquals("launcher", BootstrapChoice.choose("weft", Map.<String, String>of()::get));
        assertEquals("launcher", BootstrapChoice.choose("launcher", Map.<String, String>of()::get));
        assertEquals("pmi2", BootstrapChoice.choose("pmi2", Map.<String, String>of()::get));
        assertTrue(assertThrows(WeftException.class, () -> BootstrapChoice.choose("slurm", Map.<String, String>of()::get))
            .getMessage().contains("unknown bootstrap 'slurm' in WEFT_BOOTSTRAP"));
    }
}
