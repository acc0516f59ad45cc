package weft.tools.run;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PEs that outnumber the node's CPUs start with C1 only at late thresholds and the serial collector; PEs that
 * fill them compile in the foreground ({@link CrowdedNode}).
 */
class CrowdedNodeTest {
    /** More PEs than any node this runs on has CPUs. */
    private static final String MANY = Integer.toString(weft.ucs.Cpus.online() + 1);

    @TempDir
    Path tmp;

    @AfterEach
    void clear() {
        System.clearProperty(RunCommand.AOT_PROPERTY);
    }

    private static List<String> peCommand(final String... args) {
        return RunAotCacheTest.peCommand(args);
    }

    /** The variables {@code weft run ARGS} sets for its PEs, in an environment of {@code env}. */
    private static java.util.Map<String, String> exports(final java.util.function.Function<String, String> env,
                                                         final String... args) {
        final RunCommand cmd = new RunCommand();
        cmd.env = env;
        new picocli.CommandLine(cmd).setStopAtPositional(true).parseArgs(args);
        return cmd.spec().exports();
    }

    @Test
    void crowdedPesCompileWithC1AtUsualThresholdsAndCollectSerially() throws IOException {
        final Path cache = Files.write(tmp.resolve("weft.aot"), new byte[] {1});
        System.setProperty(RunCommand.AOT_PROPERTY, cache.toString());
        final List<String> cmd = peCommand("-n", MANY, "my.Main");
        assertTrue(cmd.contains(CrowdedNode.C1_ONLY), cmd.toString());
        assertTrue(cmd.contains(CrowdedNode.LATE_COMPILES), cmd.toString());
        assertTrue(cmd.contains(CrowdedNode.SERIAL_GC), cmd.toString());
        assertTrue(cmd.contains("-XX:AOTCache=" + cache), "the cache still saves class loading: " + cmd);
        assertFalse(cmd.stream().anyMatch(RunCommand.AOT_JIT_OPTIONS::contains), cmd.toString());
    }

    @Test
    void aPeOfItsOwnKeepsTheJvmsCompilersAndTheCachesThresholds() throws IOException {
        final Path cache = Files.write(tmp.resolve("weft.aot"), new byte[] {1});
        System.setProperty(RunCommand.AOT_PROPERTY, cache.toString());
        final List<String> cmd = peCommand("-n", "1", "my.Main");
        assertFalse(cmd.contains(CrowdedNode.C1_ONLY), cmd.toString());
        assertFalse(cmd.contains(CrowdedNode.LATE_COMPILES), cmd.toString());
        assertFalse(cmd.contains(CrowdedNode.SERIAL_GC), cmd.toString());
        assertTrue(cmd.containsAll(RunAotCacheTest.jitOptionsOfOnePe()), cmd.toString());
    }

    @Test
    void theUsersCompilerAndCollectorChoicesWin() {
        final List<String> cmd = peCommand("-n", MANY, "-J", "-XX:+UseG1GC", "-J", "-XX:-TieredCompilation",
            "my.Main");
        assertFalse(cmd.contains(CrowdedNode.C1_ONLY), cmd.toString());
        assertFalse(cmd.contains(CrowdedNode.LATE_COMPILES), "thresholds go with the tiers the user chose: " + cmd);
        assertFalse(cmd.contains(CrowdedNode.SERIAL_GC), cmd.toString());
        assertEquals(List.of(CrowdedNode.C1_ONLY, CrowdedNode.LATE_COMPILES),
            CrowdedNode.options(List.of("-XX:+UseParallelGC")));
        assertEquals(List.of(CrowdedNode.SERIAL_GC), CrowdedNode.options(List.of("-XX:TieredStopAtLevel=4")));
        assertEquals(List.of(CrowdedNode.C1_ONLY, CrowdedNode.SERIAL_GC),
            CrowdedNode.options(List.of("-XX:CompileThresholdScaling=2")));
    }

    @Test
    void crowdedMeansMorePesThanCpus() {
        assertFalse(CrowdedNode.crowded(2, 2));
        assertTrue(CrowdedNode.crowded(3, 2));
    }

    @Test
    void aFullNodesPesCompileInTheForegroundAtATenthOfTheThresholds() throws IOException {
        final Path cache = Files.write(tmp.resolve("weft.aot"), new byte[] {1});
        System.setProperty(RunCommand.AOT_PROPERTY, cache.toString());
        final String cpus = Integer.toString(weft.ucs.Cpus.online());
        final List<String> full = peCommand("-n", cpus, "my.Main");
        assertTrue(full.contains(CrowdedNode.FOREGROUND_COMPILES), full.toString());
        assertTrue(full.containsAll(RunCommand.FULL_NODE_JIT_OPTIONS), full.toString());
        assertTrue(full.contains("-XX:CompileCommand=CompileThresholdScaling,weft.*::*,0.1"), full.toString());
        assertFalse(full.contains(CrowdedNode.C1_ONLY), full.toString());
        assertFalse(peCommand("-n", MANY, "my.Main").contains(CrowdedNode.FOREGROUND_COMPILES),
            "a crowded node compiles with C1 only, in the background");
        if (weft.ucs.Cpus.online() > 1) {
            final List<String> roomy = peCommand("-n", "1", "my.Main");
            assertFalse(roomy.contains(CrowdedNode.FOREGROUND_COMPILES), "a free CPU compiles in the background");
            assertTrue(roomy.containsAll(RunCommand.AOT_JIT_OPTIONS), roomy.toString());
        }
        assertEquals("0", exports(name -> null, "-n", cpus, "my.Main").get(RunCommand.MPI_WARMUP_YIELD),
            "no compiler thread to yield to");
        assertEquals(null, exports(name -> name.equals(RunCommand.MPI_WARMUP_YIELD) ? "1s" : null, "-n", cpus,
            "my.Main").get(RunCommand.MPI_WARMUP_YIELD), "the PEs inherit the user's setting");
        assertEquals("3s", exports(name -> null, "-n", cpus, "-x", RunCommand.MPI_WARMUP_YIELD + "=3s", "my.Main")
            .get(RunCommand.MPI_WARMUP_YIELD));
        assertEquals(null, exports(name -> null, "-n", cpus, "-J", "-XX:+BackgroundCompilation", "my.Main")
            .get(RunCommand.MPI_WARMUP_YIELD));
        final List<String> own = peCommand("-n", cpus, "-J", "-XX:+BackgroundCompilation", "my.Main");
        assertFalse(own.contains(CrowdedNode.FOREGROUND_COMPILES), "the user's choice wins: " + own);
        assertTrue(CrowdedNode.full(2, 2));
        assertFalse(CrowdedNode.full(1, 2));
        assertFalse(CrowdedNode.full(3, 2));
    }
}
