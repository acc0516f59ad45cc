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
 * PEs that outnumber the node's CPUs start with C1 only at late thresholds and the serial collector; PEs bound to
 * one CPU compile Weft's methods in the foreground ({@link CrowdedNode}).
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
    void pesBoundToOneCpuCompileWeftsMethodsInTheForegroundAtATenthOfTheThresholds() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(weft.tools.perftest.Affinity.currentCpus().length > 0,
            "this machine lets the launcher bind");
        final Path cache = Files.write(tmp.resolve("weft.aot"), new byte[] {1});
        System.setProperty(RunCommand.AOT_PROPERTY, cache.toString());
        final List<String> bound = peCommand("-n", "1", "my.Main");
        assertTrue(bound.containsAll(CrowdedNode.FOREGROUND_COMPILES), bound.toString());
        assertFalse(bound.contains("-XX:-BackgroundCompilation"), "the JDK's methods stay in the background");
        assertTrue(bound.containsAll(RunCommand.FOREGROUND_JIT_OPTIONS), bound.toString());
        assertTrue(bound.contains("-XX:CompileCommand=CompileThresholdScaling,weft.*::*,0.1"), bound.toString());
        assertFalse(bound.contains(CrowdedNode.C1_ONLY), bound.toString());

        final List<String> free = peCommand("-n", "1", "--bind-to", "none", "my.Main");
        assertFalse(free.stream().anyMatch(o -> o.contains("BackgroundCompilation")), "not bound: " + free);
        assertTrue(free.containsAll(RunCommand.AOT_JIT_OPTIONS), free.toString());
        assertFalse(peCommand("-n", MANY, "my.Main").stream().anyMatch(o -> o.contains("BackgroundCompilation")),
            "a crowded node compiles with C1 only, in the background");
        final List<String> own = peCommand("-n", "1", "-J", "-XX:+BackgroundCompilation", "my.Main");
        assertFalse(own.stream().anyMatch(o -> o.startsWith("-XX:CompileCommand=BackgroundCompilation")),
            "the user's choice wins: " + own);
        assertTrue(own.containsAll(RunCommand.AOT_JIT_OPTIONS), own.toString());
    }

    /**
     * The foreground options as the JVM applies them ({@link ForegroundProbe}, a {@code weft.*} class): every
     * compile of its method is blocking ({@code b} in -XX:+PrintCompilation's flags), the JDK's are not.
     */
    @Test
    void weftsMethodsCompileBlockingAndTheJdksInTheBackground() throws IOException, InterruptedException {
        final List<String> cmd = new java.util.ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(CrowdedNode.FOREGROUND_COMPILES);
        cmd.addAll(List.of("-XX:+PrintCompilation", "-cp", System.getProperty("java.class.path"),
            ForegroundProbe.class.getName()));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "did not end: " + cmd);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("done"), out);
        // "  timestamp  id  FLAGS  tier  method": FLAGS is five characters of %, s, !, b, n
        final java.util.regex.Pattern compile =
            java.util.regex.Pattern.compile("^\\s*\\d+\\s+\\d+\\s(.{5})\\s\\d\\s+(\\S+)");
        final List<String> weft = new java.util.ArrayList<>();
        final List<String> jdk = new java.util.ArrayList<>();
        for (final String line : out.lines().filter(l -> !l.contains("made not entrant")).toList()) {
            final java.util.regex.Matcher m = compile.matcher(line);
            if (!m.find()) {
                continue;
            }
            if (m.group(2).startsWith(ForegroundProbe.class.getName() + "::work")) {
                weft.add(m.group(1));
            } else if (m.group(2).startsWith("java.lang.")) {
                jdk.add(m.group(1));
            }
        }
        assertFalse(weft.isEmpty(), "the probe's method was compiled:\n" + out);
        assertTrue(weft.stream().allMatch(f -> f.indexOf('b') >= 0), "blocking: " + weft);
        assertFalse(jdk.isEmpty(), "some of the JDK's methods were compiled:\n" + out);
        assertTrue(jdk.stream().noneMatch(f -> f.indexOf('b') >= 0), "in the background: " + jdk);
    }
}
