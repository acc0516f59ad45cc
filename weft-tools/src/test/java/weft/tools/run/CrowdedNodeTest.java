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
 * PEs that outnumber the node's CPUs start with C1 only at late thresholds and the serial collector
 * ({@link CrowdedNode}).
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
        assertTrue(cmd.containsAll(RunCommand.AOT_JIT_OPTIONS), cmd.toString());
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
}
