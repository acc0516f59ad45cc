package weft.runtime;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class RuntimeTest {
    private static final Config NO_ENV = Config.fromMap(Map.of());

    @Test
    void initLinksTheSetupCallsOnAThreadThatDoesNotOutliveIt() {
        // the process's own environment: a singleton unless this JVM runs as a task of some job
        assumeTrue(System.getenv(LaunchEnv.RANK) == null && System.getenv("PMIX_RANK") == null
            && System.getenv("PMI_FD") == null && System.getenv("SLURM_STEP_ID") == null, "inside a job");
        try (Runtime rt = Runtime.init(NO_ENV)) {
            assertEquals("singleton", rt.bootstrapName());
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("weft-link") && t.isAlive()), "the link thread outlived init");
        }
    }

    @Test
    void shouldBeASingletonWithoutLauncherEnvironment() {
        try (Runtime rt = Runtime.init(Map.of(), NO_ENV)) {
            assertEquals("singleton", rt.bootstrapName());
            assertEquals(0, rt.rank());
            assertEquals(1, rt.size());
            assertEquals(0, rt.localRank());
            assertEquals(1, rt.localSize());
            assertEquals(0, rt.nodeId());
            rt.put("k", new byte[] {1, 2, 3});
            rt.commit();
            rt.fence();
            assertArrayEquals(new byte[] {1, 2, 3}, rt.get(0, "k"));
            final byte[][] all = rt.allgather(new byte[] {9});
            assertEquals(1, all.length);
            assertArrayEquals(new byte[] {9}, all[0]);
            rt.barrier();
            assertEquals(Status.NO_ELEMENT, assertThrows(WeftException.class, () -> rt.get(0, "absent")).status());
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class, () -> rt.get(1, "k")).status());
        }
    }

    /** Joining a job records its processes on this node: the wait loops' auto policies follow (weft.ucs.Cpus). */
    @Test
    void joiningAJobRecordsWhetherItsLocalProcessesOutnumberTheCpus() {
        final int cpus = weft.ucs.Cpus.online();
        final Bootstrap one = new SingletonBootstrap();
        final Bootstrap crowded = new Bootstrap() { // a singleton's service, reporting a crowded node's layout
            @Override
            public String name() {
                return "crowded";
            }

            @Override
            public JobLayout layout() {
                return new JobLayout(0, cpus + 1, 0, cpus + 1, 0, "crowded");
            }

            @Override
            public void put(final String key, final byte[] value) {
                one.put(key, value);
            }

            @Override
            public void commit() {
                one.commit();
            }

            @Override
            public void fence() {
                one.fence();
            }

            @Override
            public byte[] get(final int rank, final String key) {
                return one.get(rank, key);
            }

            @Override
            public void close() {
                one.close();
            }
        };
        try {
            try (Runtime rt = Runtime.of(crowded)) {
                assertTrue(weft.ucs.Cpus.crowded(), cpus + 1 + " processes on " + cpus + " CPUs");
            }
            try (Runtime rt = Runtime.init(Map.of(), NO_ENV)) {
                assertFalse(weft.ucs.Cpus.crowded(), "a singleton on " + cpus + " CPUs");
            }
        } finally {
            weft.ucs.Cpus.localProcesses(1);
        }
    }

    @Test
    void shouldRefuseUseAfterClose() {
        final Runtime rt = Runtime.init(Map.of(), NO_ENV);
        rt.close();
        assertEquals(Status.CLOSED, assertThrows(WeftException.class, rt::barrier).status());
    }

    @Test
    void shouldNameTheMissingVariableOfAnIncompleteLauncherEnvironment() {
        final WeftException e = assertThrows(WeftException.class, () -> Runtime.init(
            Map.of(LaunchEnv.RANK, "0", LaunchEnv.KV_ADDRESS, "127.0.0.1:1"), NO_ENV));
        assertTrue(e.getMessage().contains("WEFT_SIZE is not set"), e.getMessage());
    }

    @Test
    void shouldRejectARankOutsideTheJob() {
        final WeftException e = assertThrows(WeftException.class, () -> Runtime.init(Map.of(LaunchEnv.RANK, "4",
            LaunchEnv.SIZE, "4", LaunchEnv.KV_ADDRESS, "127.0.0.1:1"), NO_ENV));
        assertTrue(e.getMessage().contains("invalid WEFT_RANK='4'"), e.getMessage());
    }

    @Test
    void shouldExplainAMissingPmixLibrary() {
        final Config cfg = NO_ENV.with("PMIX_LIBRARY", "/nonexistent/libpmix.so.2");
        final WeftException e = assertThrows(WeftException.class, () -> Runtime.init(
            Map.of("PMIX_RANK", "0", "PMIX_NAMESPACE", "job"), cfg));
        assertTrue(e.getMessage().contains("cannot load libpmix from WEFT_PMIX_LIBRARY=/nonexistent/libpmix.so.2"),
            e.getMessage());
    }

    @Test
    void shouldRejectAnUnknownBootstrapName() {
        final WeftException e = assertThrows(WeftException.class, () -> Runtime.init(Map.of(),
            NO_ENV.with("BOOTSTRAP", "slurm")));
        assertTrue(e.getMessage().contains("WEFT_BOOTSTRAP"), e.getMessage());
    }

    @Test
    void shouldRefuseATaskOfSrunWithoutPmiInsteadOfRunningAlone() {
        final WeftException e = assertThrows(WeftException.class, () -> Runtime.init(Map.of("SLURM_JOB_ID", "3",
            "SLURM_STEP_ID", "0", "SLURM_PROCID", "0", "SLURM_STEP_NUM_TASKS", "2"), NO_ENV));
        assertTrue(e.getMessage().contains("'srun --mpi=pmix' or 'srun --mpi=pmi2'"), e.getMessage());
    }

    @Test
    void shouldExplainAPmi2ChoiceWithoutPmiFd() {
        final WeftException e = assertThrows(WeftException.class, () -> Runtime.init(Map.of(),
            NO_ENV.with("BOOTSTRAP", "pmi2")));
        assertTrue(e.getMessage().contains("the PMI-2 bootstrap needs PMI_FD"), e.getMessage());
    }

    @Test
    void shouldRunAJobThroughPmi2() throws Exception {
        try (FakePmi2Server server = new FakePmi2Server(1, "(vector,(0,1,1))")) {
            final int fd = server.clientFd(0);
            try (Runtime rt = Runtime.init(Map.of("PMI_FD", Integer.toString(fd), "PMI_RANK", "0", "PMI_SIZE", "1",
                "PMI_JOBID", "9.0"), NO_ENV)) {
                assertEquals("pmi2", rt.bootstrapName());
                assertEquals("Runtime[pmi2 rank 0/1, node 0, local 0/1]", rt.toString());
                assertEquals("fake.0", rt.jobId());
                assertArrayEquals(new byte[] {4, 2}, rt.allgather(new byte[] {4, 2})[0]);
                rt.barrier();
            }
            assertTrue(server.finalized, "a runtime over an explicit environment leaves its job at close");
        }
    }

    @Test
    void shouldRejectAnInconsistentLayout() {
        assertEquals(new JobLayout(1, 4, 1, 2, 0, "j").localSize(), 2);
        final WeftException e = assertThrows(WeftException.class, () -> new JobLayout(0, 2, 2, 2, 0, "j"));
        assertTrue(e.getMessage().contains("inconsistent job layout: rank 0/2, local 2/2"), e.getMessage());
    }
}
