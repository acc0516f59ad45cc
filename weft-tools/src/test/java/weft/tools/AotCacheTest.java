package weft.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JVM's AOT cache as the weft script builds and uses it: a training run ({@code weft train}) writes a
 * cache, and perftest JVMs start with it, with a missing one and with a corrupt one; none of them fails.
 */
@Timeout(300)
class AotCacheTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path tmp;

    private record Result(int rc, String output) {
    }

    private static Result java(final List<String> args) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC", "-Xss2m"));
        cmd.addAll(args);
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), "did not end: " + cmd);
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /**
     * The test's class path with every directory packed into a jar: the JVM makes AOT caches only from jars
     * (as the weft script's class path is).
     */
    private String jarredClassPath() throws IOException {
        final List<String> out = new ArrayList<>();
        int i = 0;
        for (final String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            final Path e = Path.of(entry);
            if (!Files.isDirectory(e)) {
                out.add(entry);
                continue;
            }
            final Path jar = tmp.resolve("cp" + i++ + ".jar");
            try (java.util.jar.JarOutputStream j = new java.util.jar.JarOutputStream(Files.newOutputStream(jar));
                 java.util.stream.Stream<Path> files = Files.walk(e)) {
                for (final Path f : files.filter(Files::isRegularFile).toList()) {
                    j.putNextEntry(new java.util.jar.JarEntry(e.relativize(f).toString().replace('\\', '/')));
                    Files.copy(f, j);
                    j.closeEntry();
                }
            }
            out.add(jar.toString());
        }
        return String.join(java.io.File.pathSeparator, out);
    }

    private static List<String> perftest(final String cacheOption, final String cp) {
        final List<String> a = new ArrayList<>();
        if (cacheOption != null) {
            a.add(cacheOption);
        }
        a.addAll(List.of("-cp", cp, "weft.tools.Main", "perftest", "-l", "-x", "shm",
            "-t", "tag_lat", "-n", "300", "-w", "30", "-f"));
        return a;
    }

    private static void assertRan(final Result r) {
        assertEquals(0, r.rc(), r.output());
        assertTrue(r.output().lines().anyMatch(l -> l.trim().startsWith("300 ")), r.output());
    }

    @Test
    void trainingWritesACacheThatPerftestStartsWith() throws Exception {
        final Path cache = tmp.resolve("weft.aot");
        final String cp = jarredClassPath();
        final Result train = java(List.of("-XX:AOTCacheOutput=" + cache, "-cp", cp, "weft.tools.Main", "train",
            "--quick", "--no-job"));
        assertEquals(0, train.rc(), train.output());
        assertTrue(Files.size(cache) > 0, "no cache written: " + train.output());
        final Result used = java(perftest("-XX:AOTCache=" + cache, cp));
        assertRan(used);
        assertTrue(!used.output().contains("[error]"), used.output());
    }

    @Test
    void aMissingOrCorruptCacheDoesNotStopTheJvm() throws Exception {
        final String cp = jarredClassPath();
        assertRan(java(perftest("-XX:AOTCache=" + tmp.resolve("absent.aot"), cp)));
        final Path corrupt = Files.write(tmp.resolve("corrupt.aot"), new byte[64 * 1024]);
        assertRan(java(perftest("-XX:AOTCache=" + corrupt, cp)));
    }
}
