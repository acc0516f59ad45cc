package weft.tools.run;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The PEs' command line with the AOT cache the weft script names ({@link RunCommand#AOT_PROPERTY}). */
class RunAotCacheTest {
    @TempDir
    Path tmp;

    @AfterEach
    void clear() {
        System.clearProperty(RunCommand.AOT_PROPERTY);
    }

    /** The PEs' command that {@code weft run ARGS} would start. */
    static List<String> peCommand(final String... args) {
        final RunCommand cmd = new RunCommand();
        cmd.env = name -> null;
        new CommandLine(cmd).setStopAtPositional(true).parseArgs(args);
        return cmd.spec().peCommand();
    }

    /** The thresholds a job of one PE gets here: bound to one CPU when this machine lets the launcher bind. */
    static List<String> jitOptionsOfOnePe() {
        return weft.tools.perftest.Affinity.currentCpus().length > 0 ? RunCommand.FOREGROUND_JIT_OPTIONS
            : RunCommand.AOT_JIT_OPTIONS;
    }

    private static String classPathOf(final List<String> cmd) {
        return cmd.get(cmd.indexOf("-cp") + 1);
    }

    @Test
    void pesStartWithTheCacheAndWeftsClassPathFirst() throws IOException {
        final Path cache = Files.write(tmp.resolve("weft.aot"), new byte[] {1});
        System.setProperty(RunCommand.AOT_PROPERTY, cache.toString());
        final List<String> cmd = peCommand("-n", "1", "-cp", "/app/classes", "my.Main");
        assertTrue(cmd.contains("-XX:AOTCache=" + cache), cmd.toString());
        assertTrue(cmd.containsAll(jitOptionsOfOnePe()), cmd.toString());
        final String own = System.getProperty("java.class.path");
        assertEquals(own + java.io.File.pathSeparator + "/app/classes", classPathOf(cmd));
    }

    /** Every option the launcher may add to a PE's JVM is one the JVM accepts (a typo would stop every PE). */
    @Test
    void theJvmAcceptsTheOptionsThePesGet() throws IOException, InterruptedException {
        final List<String> cmd = new java.util.ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(RunCommand.AOT_JIT_OPTIONS);
        cmd.addAll(RunCommand.FOREGROUND_JIT_OPTIONS);
        cmd.addAll(CrowdedNode.options(List.of()));
        cmd.addAll(CrowdedNode.FOREGROUND_COMPILES);
        cmd.add("-version");
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "did not end: " + cmd);
        assertEquals(0, p.exitValue(), cmd + "\n" + out);
    }

    /**
     * Each method the PEs never compile, or compile as units of their own or early, exists: a renamed one would
     * silently lose its option.
     */
    @Test
    void theMethodsRunOnceExist() throws ClassNotFoundException {
        for (final String once : RunCommand.RUN_ONCE) {
            assertTrue(exists(once), "no method " + once);
        }
        for (final String unit : RunCommand.COMPILE_UNITS) {
            assertTrue(exists(unit), "no method " + unit);
        }
        // an early pattern names a class prefix (its lambdas' hidden classes too): the class itself must exist,
        // else a rename leaves the protocol compiling late, inside a short run's measured phase, unnoticed
        for (final String early : RunCommand.EARLY) {
            final String cls = early.substring(0, early.indexOf("::")).replace("*", "");
            assertTrue(exists(cls + "::*"), "no class " + cls + " for " + early);
        }
    }

    /** Whether {@code Class::method} (a trailing * in the method: a prefix; {@code <init>}: a constructor) exists. */
    private static boolean exists(final String classMethod) throws ClassNotFoundException {
        final String[] cm = classMethod.split("::");
        final Class<?> c = Class.forName(cm[0]);
        final String m = cm[1];
        return m.equals("<init>") ? c.getDeclaredConstructors().length > 0
            : java.util.Arrays.stream(c.getDeclaredMethods()).anyMatch(d -> m.equals("*")
                || (m.endsWith("*") ? d.getName().startsWith(m.substring(0, m.length() - 1)) : d.getName().equals(m)));
    }

    /** The weft script gives its JVMs (perftest, bench, the training run) the thresholds and exclusions the PEs get. */
    @Test
    void theScriptsJitOptionsIncludeThePes() throws IOException, InterruptedException, ClassNotFoundException {
        final Path script = Path.of("..", "weft").toAbsolutePath().normalize();
        final Process p = new ProcessBuilder("bash", script.toString(), "aot-jit").redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "weft aot-jit did not end");
        assertEquals(0, p.exitValue(), out);
        final List<String> given = List.of(out.trim().split("\\s+"));
        for (final String o : RunCommand.AOT_JIT_OPTIONS) {
            assertTrue(given.contains(o), "weft aot-jit lacks " + o + ": " + given);
        }
        // and every single class it names (perftest's and HdrHistogram's exceptions too) has the method named:
        // a renamed one would silently be compiled early again, in the middle of a short run
        int named = 0;
        for (final String o : given) {
            final String spec = o.substring(o.lastIndexOf('=') + 1);
            final String[] parts = spec.split(",");
            final String target = parts.length > 1 ? parts[1] : "";
            if (target.contains("::") && !target.substring(0, target.indexOf("::")).contains("*")) {
                assertTrue(exists(target), "weft aot-jit names a method that does not exist: " + o);
                named++;
            }
        }
        assertTrue(named >= RunCommand.RUN_ONCE.size(), "too few methods named: " + given);
    }

    @Test
    void withoutACacheTheProgramsClassPathComesFirst() {
        System.setProperty(RunCommand.AOT_PROPERTY, tmp.resolve("absent.aot").toString());
        final List<String> cmd = peCommand("-n", "1", "-cp", "/app/classes", "my.Main");
        assertFalse(cmd.stream().anyMatch(o -> o.startsWith("-XX:AOTCache")), cmd.toString());
        assertTrue(classPathOf(cmd).startsWith("/app/classes" + java.io.File.pathSeparator), cmd.toString());
    }

    @Test
    void theUsersOwnCacheOptionOrNoAotCacheWins() throws IOException {
        final Path cache = Files.write(tmp.resolve("weft.aot"), new byte[] {1});
        System.setProperty(RunCommand.AOT_PROPERTY, cache.toString());
        final List<String> own = peCommand("-n", "1", "-J", "-XX:AOTCache=/mine.aot", "my.Main");
        assertEquals(1, own.stream().filter(o -> o.startsWith("-XX:AOTCache")).count(), own.toString());
        assertTrue(own.contains("-XX:AOTCache=/mine.aot"), own.toString());
        final List<String> off = peCommand("-n", "1", "--no-aot-cache", "my.Main");
        assertFalse(off.stream().anyMatch(o -> o.startsWith("-XX:AOTCache")), off.toString());
    }

    @Test
    void aSourceFileIsCompiledOnceByTheLauncherAndItsPesUseTheCache() throws IOException {
        final Path cache = Files.write(tmp.resolve("weft.aot"), new byte[] {1});
        System.setProperty(RunCommand.AOT_PROPERTY, cache.toString());
        final Path pkg = Files.createDirectories(tmp.resolve("src/demo"));
        Files.writeString(pkg.resolve("Helper.java"), "package demo;\nclass Helper { static int x() { return 4; } }\n");
        final Path prog = Files.writeString(pkg.resolve("Prog.java"),
            "package demo;\npublic class Prog {\n  public static void main(String[] a) { System.exit(Helper.x()); }\n}\n"
                + "class Other {}\n");
        final RunCommand run = new RunCommand();
        run.env = name -> null;
        new CommandLine(run).setStopAtPositional(true).parseArgs("-n", "2", prog.toString(), "arg1");
        final List<String> cmd = run.spec().peCommand();
        try {
            assertTrue(cmd.contains("-XX:AOTCache=" + cache), cmd.toString());
            assertEquals(List.of("demo.Prog", "arg1"), cmd.subList(cmd.size() - 2, cmd.size()));
            assertFalse(cmd.stream().anyMatch(o -> o.endsWith(".java")), cmd.toString());
            final Path classes = run.program.classes();
            assertTrue(classPathOf(cmd).endsWith(java.io.File.pathSeparator + classes), cmd.toString());
            assertTrue(Files.isRegularFile(classes.resolve("demo/Prog.class")), "the main class is compiled");
            assertTrue(Files.isRegularFile(classes.resolve("demo/Helper.class")), "a sibling source it uses too");
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(classes)));
        } finally {
            run.program.close();
        }
        assertFalse(Files.exists(run.program.classes()), "closing the program deletes its classes");
    }

    @Test
    void aSourceFileThatDoesNotCompileIsALaunchErrorNamingTheLine() throws IOException {
        final Path bad = Files.writeString(tmp.resolve("Bad.java"), "class Bad {\n  void f() {\n    int x = ;\n  }\n}\n");
        final RunCommand run = new RunCommand();
        run.env = name -> null;
        new CommandLine(run).setStopAtPositional(true).parseArgs("-n", "1", bad.toString());
        final LaunchException e = org.junit.jupiter.api.Assertions.assertThrows(LaunchException.class, run::spec);
        assertTrue(e.getMessage().contains("Bad.java:3: "), e.getMessage());
        assertEquals(null, run.program);
    }

    @Test
    void aCompactSourceFileStartsTheClassNamedAfterTheFile() throws IOException {
        final Path prog = Files.writeString(tmp.resolve("Compact.java"), "void main() {\n  IO.println(\"hi\");\n}\n");
        final RunCommand run = new RunCommand();
        run.env = name -> null;
        new CommandLine(run).setStopAtPositional(true).parseArgs("-n", "1", prog.toString());
        final List<String> cmd = run.spec().peCommand();
        try {
            assertEquals("Compact", cmd.getLast(), cmd.toString());
            assertTrue(Files.isRegularFile(run.program.classes().resolve("Compact.class")));
        } finally {
            run.program.close();
        }
    }

    @Test
    void aProgramDirectoryLeftByADeadLauncherIsSweptAndALiveOnesIsKept() throws IOException {
        final long dead = new ProcessBuilder("true").start().pid();
        final Path gone = Files.createDirectories(tmp.resolve(SourceProgram.PREFIX + dead + "-1/pkg"));
        final Path kept = Files.createDirectories(tmp.resolve(SourceProgram.PREFIX + ProcessHandle.current().pid() + "-2"));
        for (int i = 0; i < 100 && ProcessHandle.of(dead).map(ProcessHandle::isAlive).orElse(false); i++) {
            ProcessHandle.of(dead).ifPresent(h -> h.onExit().join());
        }
        SourceProgram.sweep(tmp);
        assertFalse(Files.exists(gone.getParent()), "a dead launcher's directory is deleted");
        assertTrue(Files.isDirectory(kept), "a live launcher's directory is kept");
    }
}
