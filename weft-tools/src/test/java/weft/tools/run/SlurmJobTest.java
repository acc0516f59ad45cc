package weft.tools.run;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Weft programs under a real Slurm: a one-node cluster of this machine ({@link LocalSlurm},
 * {@code .ci/slurm-local.sh}) brought up once for the class and torn down after it. Jobs through
 * {@code srun --mpi=pmix} and {@code --mpi=pmi2} at 2 and 4 tasks (the README's example, a ring over
 * tags, one-sided operations and atomics), {@code srun --mpi=none} refused, a PE that fails or a task
 * that is killed ending the step with an error, the example batch script, and {@code weft run} inside
 * an {@code salloc} allocation. After every job no process of it may be alive.
 *
 * <p>Skipped, with the reason, where Slurm is not installed or the tests do not run as root (slurmd
 * must start tasks); the {@code pmix} cases are skipped where Slurm has no mpi/pmix plugin.
 */
@Timeout(120)
class SlurmJobTest extends SlurmClusterFixture {
    @Override
    int nodes() {
        return 1;
    }

    /** {@code srun --mpi=MPI -n N java ... CLASS ARGS}, bounded by Slurm (--time) and by the wait. */
    private LocalSlurm.Result srun(final String mpi, final int n, final Map<String, String> env, final List<String> srunOpts,
                                   final String mainClassOrSource, final String... args) throws Exception {
        final List<String> opts = new ArrayList<>(List.of("-n", Integer.toString(n)));
        opts.addAll(srunOpts);
        return slurm.srunJava(names, mpi, opts, env, mainClassOrSource, args);
    }

    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix"})
    void shouldRunTheExample(final String mpi) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = srun(mpi, 2, Map.of(), List.of(), EXAMPLE.toString());
        assertEquals(0, r.rc(), r.toString());
        assertTrue(r.out().contains("rank 1 got \"hello from rank 0\" and 42 in its heap"), r.toString());
    }

    /** Issue 19: ranks 2 and 3 of the 2-PE example die of an exception; ranks 0 and 1 must not wait for them. */
    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix"})
    void shouldEndTheStepWhenAPeDiesOfAnException(final String mpi) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = srun(mpi, 4, Map.of(), List.of(), EXAMPLE.toString());
        assertNotEquals(0, r.rc(), r.toString());
        assertTrue(r.out().contains("java.lang.ArrayIndexOutOfBoundsException"), r.toString());
        assertTrue(r.out().contains("aborts the job through the " + mpi + " bootstrap (exit status 1): uncaught "
            + "java.lang.ArrayIndexOutOfBoundsException"), r.toString());
        assertTrue(r.millis() < 30_000, "the step took " + r.millis() + " ms: " + r);
    }

    @ParameterizedTest(name = "--mpi={0} -n {1}")
    @CsvSource({"pmi2, 4", "pmix, 3"}) // 3 and 4 ranks: an odd ring and an even one
    void shouldPassATokenAroundARingOverTags(final String mpi, final int n) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = srun(mpi, n, Map.of(), List.of(), LaunchTestPe.class.getName(), "exchange",
            pidDir.toString());
        assertEquals(0, r.rc(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out().contains("rank " + rank + "/" + n + " local " + rank + "/" + n + " node 0 bootstrap "
                + mpi + " "), "rank " + rank + ": " + r);
        }
        final String ring = LaunchTestPe.expectedRing(n);
        assertEquals(n, r.out().lines().filter(l -> l.endsWith(" ring " + ring)).count(), r.toString());
    }

    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix"})
    void shouldProgressWhileInAFence(final String mpi) throws Exception {
        assumeMpi(mpi);
        // rank 1 waits in the PMI fence while rank 0's synchronous send needs its match (BarrierProgressPe)
        final LocalSlurm.Result r = srun(mpi, 2, Map.of("WEFT_BOOTSTRAP_TIMEOUT", "60s"), List.of(),
            BarrierProgressPe.class.getName());
        assertEquals(0, r.rc(), r.toString());
        assertTrue(r.out().contains("ok 0") && r.out().contains("ok 1"), r.toString());
    }

    @ParameterizedTest(name = "--mpi={0} -n {1}")
    @CsvSource({"pmi2, 4", "pmix, 3"}) // 3 and 4 ranks: an odd ring and an even one
    void shouldPutGetAndUpdateAtomically(final String mpi, final int n) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = srun(mpi, n, Map.of(), List.of(), RmaScenarioPe.class.getName(),
            pidDir.toString());
        assertEquals(0, r.rc(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out().contains("rma ok " + rank + "/" + n + " via " + mpi), "rank " + rank + ": " + r);
        }
    }

    @Test
    void shouldRefuseToRunTasksAsSingletonsWithoutPmi() throws Exception {
        final LocalSlurm.Result r = srun("none", 2, Map.of(), List.of(), LaunchTestPe.class.getName(), "exchange",
            pidDir.toString());
        assertNotEquals(0, r.rc(), r.toString());
        assertTrue(r.out().contains("srun gave it no process-management interface Weft can use"), r.toString());
        assertTrue(r.out().contains("start it with 'srun --mpi=pmix' or 'srun --mpi=pmi2'"), r.toString());
        assertTrue(!r.out().contains("ring "), "no task may run the job alone: " + r);
    }

    /** A task killed by a signal mid-job: the others fail at the bootstrap timeout and abort the step. */
    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix"})
    void shouldEndTheStepWhenATaskIsKilled(final String mpi) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = srun(mpi, 3, Map.of("WEFT_BOOTSTRAP_TIMEOUT", "5s"), List.of(),
            LaunchTestPe.class.getName(), "killfence", pidDir.toString(), "1");
        assertNotEquals(0, r.rc(), r.toString());
        assertTrue(r.out().matches("(?s).*srun: error: [^\n]*tasks? [0-9,-]*: Killed.*"), r.toString()); // "tasks 0-2"
        // PMI-2 (and PMIx where the server does not notice) waits for the dead task until the timeout; Slurm's
        // PMIx server fails the fence at once
        assertTrue(r.out().contains("did not complete within 5 s (WEFT_BOOTSTRAP_TIMEOUT)")
            || mpi.equals("pmix") && r.out().contains("a PE of the job died or left before entering the fence"),
            r.toString());
        assertTrue(r.out().contains("aborts the job through the " + mpi + " bootstrap"), r.toString());
        assertTrue(r.millis() < 40_000, "the step took " + r.millis() + " ms: " + r);
        try (Stream<Path> s = Files.list(pidDir)) {
            assertEquals(3, s.count(), "every PE recorded its pid");
        }
    }

    /** With srun's --kill-on-bad-exit the step ends as soon as the task dies, before any timeout. */
    @Test
    void shouldEndTheStepAtOnceWithKillOnBadExit() throws Exception {
        final LocalSlurm.Result r = srun("pmi2", 3, Map.of("WEFT_BOOTSTRAP_TIMEOUT", "60s"),
            List.of("--kill-on-bad-exit=1"), LaunchTestPe.class.getName(), "killfence", pidDir.toString(), "1");
        assertNotEquals(0, r.rc(), r.toString());
        assertTrue(r.millis() < 30_000, "the step took " + r.millis() + " ms: " + r);
    }

    @Test
    void shouldRunTheExampleBatchScript() throws Exception {
        final String name = LocalSlurm.newName();
        names.add(name);
        final Path out = slurm.dir.resolve(name + ".out");
        final Path root = EXAMPLE.getParent().getParent();
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final LocalSlurm.Result r = slurm.batch(name, List.of("--job-name=" + name, "--time=2",
            "--chdir=" + root, "--output=" + out, root.resolve("examples/hello.sbatch").toString(), "pmi2"),
            Map.of("CLASSPATH", System.getProperty("java.class.path"), "JAVA", java), 100);
        final String log = Files.exists(out) ? Files.readString(out) : "(no output file)";
        assertEquals(0, r.rc(), r + "\n--- job output\n" + log);
        assertTrue(log.contains("rank 1 got \"hello from rank 0\" and 42 in its heap"), log);
    }

    @Test
    void shouldRunWeftRunOnTheNodesOfAnAllocation() throws Exception {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final List<String> launcher = List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"), "weft.tools.Main", "run");
        final String name = LocalSlurm.newName();
        names.add(name);
        final List<String> ok = new ArrayList<>(List.of("salloc", "-n", "2", "--time=2", "--job-name=" + name));
        ok.addAll(launcher);
        ok.addAll(List.of("-n", "2", "--tag-output", "-J", "-XX:TieredStopAtLevel=1", LaunchTestPe.class.getName(),
            "exchange", pidDir.toString()));
        final LocalSlurm.Result r = slurm.run(name, ok, Map.of(), 100);
        assertEquals(0, r.rc(), r.toString());
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.out().contains("[" + rank + "] rank " + rank + "/2 local " + rank + "/2 node 0 bootstrap "
                + "launcher "), r.toString());
        }
        // the hosts came from the allocation (SLURM_JOB_NODELIST with SLURM_TASKS_PER_NODE), not from -n
        final String name2 = LocalSlurm.newName();
        names.add(name2);
        final List<String> tooMany = new ArrayList<>(List.of("salloc", "-n", "2", "--time=2", "--job-name=" + name2));
        tooMany.addAll(launcher);
        tooMany.addAll(List.of("-n", "3", LaunchTestPe.class.getName(), "exchange", pidDir.toString()));
        final LocalSlurm.Result r2 = slurm.run(name2, tooMany, Map.of(), 100);
        assertEquals(RunCommand.LAUNCH_ERROR, r2.rc(), r2.toString());
        assertTrue(r2.out().matches("(?s).*3 PEs requested but the hosts have only 2 slot\\(s\\) \\([^)]+:2\\).*"),
            r2.toString());
    }

    /**
     * The agent the README gives for other nodes of an allocation, {@code srun --overlap -N1 -n1 -w HOST}: PEs
     * on a host weft run does not take for itself (an address of this machine other than loopback) are
     * started as steps of the allocation, through a wrapper that sends every host to this cluster's one
     * node and records each start.
     */
    @Test
    void shouldStartPesOnOtherHostsThroughSrun() throws Exception {
        final String address = nonLoopbackAddress();
        Assumptions.assumeTrue(address != null, "this machine has no address but loopback; skipped");
        final Path starts = slurm.dir.resolve("agent-starts-" + LocalSlurm.newName());
        final Path agent = slurm.dir.resolve("srun-agent");
        Files.writeString(agent, "#!/bin/sh\necho \"$1\" >> '" + starts + "'\nshift\n"
            + "exec srun --overlap -N1 -n1 -w \"$SLURM_JOB_NODELIST\" \"$@\"\n");
        Files.setPosixFilePermissions(agent, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        final String name = LocalSlurm.newName();
        names.add(name);
        final List<String> cmd = new ArrayList<>(List.of("salloc", "-n", "2", "--time=2", "--job-name=" + name,
            ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "weft.tools.Main", "run",
            "-n", "2", "-H", address + ":2", "--agent", agent.toString(), "--tag-output", "-J",
            "-XX:TieredStopAtLevel=1", LaunchTestPe.class.getName(), "exchange", pidDir.toString()));
        final LocalSlurm.Result r = slurm.run(name, cmd, Map.of(), 100);
        assertEquals(0, r.rc(), r.toString());
        assertEquals(List.of(address, address), Files.readAllLines(starts), "one agent start per PE");
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.out().contains("[" + rank + "] rank " + rank + "/2 local " + rank + "/2 node 0 bootstrap "
                + "launcher "), r.toString());
        }
    }

    private static String nonLoopbackAddress() throws IOException {
        for (final java.net.NetworkInterface nif : java.util.Collections.list(
            java.net.NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || nif.isLoopback()) {
                continue;
            }
            for (final java.net.InetAddress a : java.util.Collections.list(nif.getInetAddresses())) {
                if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return a.getHostAddress();
                }
            }
        }
        return null;
    }
}
