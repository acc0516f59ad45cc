package weft.tools.run;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import weft.tools.perftest.Affinity;
import weft.ucs.config.Config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code weft run}'s CPU binding with real PE processes: each PE reports the CPUs the kernel lets it run on
 * (Cpus_allowed_list of /proc/self/status), which the test compares with what the options ask for.
 */
@Timeout(90)
class BindingJobTest {
    private static final Pattern CPUS = Pattern.compile("rank (\\d+) cpus (\\S+)");

    @TempDir
    Path tmp;
    private Path pidDir;
    /** The CPUs this (launcher) thread may use: what the PEs are bound within. */
    private int[] allowed;

    @BeforeEach
    void setUp() throws IOException {
        pidDir = Files.createDirectory(tmp.resolve("pids"));
        allowed = Affinity.currentCpus();
    }

    private LaunchTest.Job job(final String... launcherArgs) {
        final List<String> a = new ArrayList<>(List.of(launcherArgs));
        a.addAll(LaunchTest.FAST_JVM);
        a.addAll(List.of(LaunchTestPe.class.getName(), "affinity", pidDir.toString()));
        return LaunchTest.run(Config.global().with("RUN_KILL_GRACE", "500ms").with("BOOTSTRAP_TIMEOUT", "30s"), a);
    }

    /** rank -> its Cpus_allowed_list. */
    private static Map<Integer, String> cpusOf(final LaunchTest.Job job) {
        final Map<Integer, String> m = new TreeMap<>();
        final Matcher mt = CPUS.matcher(job.out());
        while (mt.find()) {
            m.put(Integer.parseInt(mt.group(1)), mt.group(2));
        }
        return m;
    }

    @Test
    void byDefaultEachPeRunsOnItsOwnCpu() {
        assumeTrue(allowed.length >= 2, "needs 2 CPUs");
        final LaunchTest.Job job = job("-n", "2");
        assertEquals(0, job.rc(), job.toString());
        assertEquals(Map.of(0, Integer.toString(allowed[0]), 1, Integer.toString(allowed[1])), cpusOf(job),
            job.toString());
        assertArrayEquals(allowed, Affinity.currentCpus(), "the launcher's own affinity is unchanged");
    }

    /** Without taskset the launcher binds each PE by its own thread's mask as it starts it, then takes its own back. */
    @Test
    void withoutTasksetTheLauncherBindsByItsThreadMask() {
        assumeTrue(allowed.length >= 2, "needs 2 CPUs");
        System.setProperty(JobLauncher.TASKSET_PROPERTY, "none");
        try {
            final LaunchTest.Job job = job("-n", "2");
            assertEquals(0, job.rc(), job.toString());
            assertEquals(Map.of(0, Integer.toString(allowed[0]), 1, Integer.toString(allowed[1])), cpusOf(job),
                job.toString());
            assertArrayEquals(allowed, Affinity.currentCpus(), "the launcher's own affinity is restored");
        } finally {
            System.clearProperty(JobLauncher.TASKSET_PROPERTY);
        }
    }

    @Test
    void bindToNoneLeavesThePesTheLaunchersCpus() {
        final LaunchTest.Job job = job("-n", "2", "--bind-to", "none");
        assertEquals(0, job.rc(), job.toString());
        final String all = Binding.ranges(allowed);
        assertEquals(Map.of(0, all, 1, all), cpusOf(job), job.toString());
    }

    @Test
    void morePesThanCpusAreLeftUnboundByDefault() {
        final int n = allowed.length + 1;
        final LaunchTest.Job job = job("-n", Integer.toString(n));
        assertEquals(0, job.rc(), job.toString());
        final Map<Integer, String> cpus = cpusOf(job);
        assertEquals(n, cpus.size(), job.toString());
        assertTrue(cpus.values().stream().allMatch(Binding.ranges(allowed)::equals), job.toString());
    }

    @Test
    void explicitCoreBindingThatDoesNotFitFailsBeforeStartingAnything() {
        final LaunchTest.Job job = job("-n", Integer.toString(allowed.length + 1), "--bind-to", "core");
        assertEquals(RunCommand.LAUNCH_ERROR, job.rc(), job.toString());
        assertTrue(job.err().contains("do not fit"), job.toString());
        assertTrue(cpusOf(job).isEmpty(), job.toString());
    }

    @Test
    void reportBindingsAndPePerCpuGroups() {
        assumeTrue(allowed.length >= 2, "needs 2 CPUs");
        final LaunchTest.Job job = job("-n", "1", "--map-by", "core:PE=2", "--report-bindings");
        assertEquals(0, job.rc(), job.toString());
        final String two = Binding.ranges(new int[] {allowed[0], allowed[1]});
        assertEquals(Map.of(0, two), cpusOf(job), job.toString());
        assertTrue(job.err().contains("weft run: rank 0 (pid ") && job.err().contains("bound to CPU " + two),
            job.toString());
    }

    @Test
    void reportBindingsSaysWhenNotBound() {
        final LaunchTest.Job job = job("-n", "1", "--bind-to", "none", "--report-bindings");
        assertEquals(0, job.rc(), job.toString());
        assertTrue(job.err().contains("on localhost not bound"), job.toString());
    }

    @Test
    void badBindToIsALaunchError() {
        final LaunchTest.Job job = job("-n", "1", "--bind-to", "socket");
        assertEquals(RunCommand.LAUNCH_ERROR, job.rc(), job.toString());
        assertTrue(job.err().contains("--bind-to socket: expected core or none"), job.toString());
    }
}
