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

    private static List<String> peCommand(final String... args) {
        final RunCommand cmd = new RunCommand();
        cmd.env = name -> null;
        new CommandLine(cmd).setStopAtPositional(true).parseArgs(args);
        return cmd.spec().peCommand();
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
        assertTrue(cmd.containsAll(RunCommand.AOT_JIT_OPTIONS), cmd.toString());
        final String own = System.getProperty("java.class.path");
        assertEquals(own + java.io.File.pathSeparator + "/app/classes", classPathOf(cmd));
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
}
