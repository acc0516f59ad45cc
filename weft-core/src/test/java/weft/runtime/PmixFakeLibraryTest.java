package weft.runtime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PMIx bootstrap's FFM side (structures, value decoding, who frees what, deadlines) against a
 * stand-in libpmix compiled from {@code src/test/c/fake_pmix.c}, in real PE processes. This runs
 * where no PMIx launcher is installed; {@link PmixProcessTest} covers the real one under mpirun.
 * Skipped when there is no C compiler.
 */
@Timeout(60)
class PmixFakeLibraryTest {
    @TempDir
    Path tmp;
    private Path library;
    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void compileFakeLibrary() throws Exception {
        final Path cc = weft.testkit.Executables.onPath("cc").or(() -> weft.testkit.Executables.onPath("gcc")).orElse(null);
        Assumptions.assumeTrue(cc != null, "no C compiler (cc) on PATH to build the stand-in libpmix; skipped");
        library = tmp.resolve("libfakepmix.so");
        final Process p = new ProcessBuilder(cc.toString(), "-shared", "-fPIC", "-O1", "-o", library.toString(),
            Path.of("src/test/c/fake_pmix.c").toAbsolutePath().toString()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "cc failed: " + out);
    }

    @AfterEach
    void killChildren() throws InterruptedException {
        for (final Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldExchangeThroughPmix() throws Exception {
        final Path store = Files.createDirectory(tmp.resolve("store"));
        final Process p0 = pe(0, 2, store, "60s");
        final Process p1 = pe(1, 2, store, "60s");
        final String out0 = finish(p0);
        final String out1 = finish(p1);
        assertEquals(0, p0.exitValue(), out0);
        assertEquals(0, p1.exitValue(), out1);
        assertTrue(out0.contains("OK rank 0/2 via pmix"), out0);
        assertTrue(out1.contains("OK rank 1/2 via pmix"), out1);
    }

    @Test
    void shouldGiveUpOnAFenceNoPeerJoins() throws Exception {
        final Path store = Files.createDirectory(tmp.resolve("store"));
        final long t0 = System.nanoTime();
        final Process p = pe(0, 2, store, "1s"); // rank 1 never starts
        final String out = finish(p);
        assertNotEquals(0, p.exitValue(), out);
        assertTrue(out.contains("PMIx_Fence did not complete within 1 s (WEFT_BOOTSTRAP_TIMEOUT)"), out);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30), "no hang");
    }

    @Test
    void shouldAbortTheJobWhenAPeDiesOfAnUncaughtException() throws Exception {
        final Path store = Files.createDirectory(tmp.resolve("store"));
        final Process p = pe(0, 1, store, "60s", "throw");
        final String out = finish(p);
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("Exception in thread \"main\" java.lang.IllegalStateException: rank 0 fails on purpose"),
            out);
        assertTrue(out.contains("weft: rank 0 of 1 aborts the job through the pmix bootstrap (exit status 1)"), out);
        final Path abort = store.resolve("abort.0");
        assertTrue(Files.exists(abort), "PMIx_Abort was not called: " + out);
        assertEquals("1 rank 0 aborted the job (status 1): uncaught java.lang.IllegalStateException in thread "
            + "\"main\": rank 0 fails on purpose", Files.readString(abort));
    }

    private Process pe(final int rank, final int size, final Path store, final String timeout) throws IOException {
        return pe(rank, size, store, timeout, "exchange");
    }

    private Process pe(final int rank, final int size, final Path store, final String timeout, final String mode)
        throws IOException {
        final ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", System.getProperty("java.class.path"), RuntimeTestPe.class.getName(), mode)
            .redirectErrorStream(true);
        final Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("WEFT_") || k.startsWith("PMIX_"));
        env.put("PMIX_RANK", Integer.toString(rank));
        env.put("PMIX_NAMESPACE", "fake-ns");
        env.put("FAKE_PMIX_SIZE", Integer.toString(size));
        env.put("FAKE_PMIX_DIR", store.toString());
        env.put("WEFT_PMIX_LIBRARY", library.toString());
        env.put("WEFT_BOOTSTRAP_TIMEOUT", timeout);
        final Process p = pb.start();
        children.add(p);
        return p;
    }

    private static String finish(final Process p) throws Exception {
        p.getOutputStream().close();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "PE did not exit: " + out);
        return out;
    }
}
