package mpi;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Error handling, abort and the singleton job ({@link ErrorRanks}), as separate JVMs. */
class ErrorsTest {
    @Test
    void errorsReturnedAsExceptionsLeaveTheCommunicatorWorking() throws Exception {
        final MpiJob.Result r = MpiJob.run(2, Map.of(), ErrorRanks.class, "return");
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.output()[rank].contains("OK errors rank " + rank), r.describe());
        }
    }

    @Test
    void abortEndsEveryRankWithTheCode() throws Exception {
        final MpiJob.Result r = MpiJob.run(3, Map.of(), ErrorRanks.class, "abort");
        System.out.println(r.describe());
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(7, r.exits()[rank], "rank " + rank + ": " + r.describe());
        }
        assertTrue(r.output()[1].contains("MPI_Abort"), r.describe());
    }

    @Test
    void anErrorUnderTheDefaultHandlerEndsTheJobWithItsClass() throws Exception {
        final MpiJob.Result r = MpiJob.run(2, Map.of(), ErrorRanks.class, "fatal");
        System.out.println(r.describe());
        assertEquals(MPI.ERR_RANK, r.exits()[0], r.describe());
        assertNotEquals(0, r.exits()[1], r.describe());
        assertTrue(r.output()[0].contains("MPI_ERRORS_ARE_FATAL") && r.output()[0].contains("destination rank"),
            r.describe());
    }

    @Test
    void aRankThatDiesEndsTheJobInsteadOfHangingTheOthers() throws Exception {
        final MpiJob.Result r = MpiJob.run(3, Map.of(), ErrorRanks.class, "killed");
        System.out.println(r.describe());
        assertEquals(9, r.exits()[1], r.describe());
        assertNotEquals(0, r.exits()[0], r.describe());
        assertNotEquals(0, r.exits()[2], r.describe());
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "over {0}, {1} path")
    @org.junit.jupiter.params.provider.CsvSource({"shm, tag", "tcp, tag", "shm, am"})
    void aReceiveFromARankThatDiedFailsWithAnError(final String tls, final String transport) throws Exception {
        final MpiJob.Result r = MpiJob.run(2, Map.of("WEFT_TLS", tls, "WEFT_MPI_TRANSPORT", transport), false,
            ErrorRanks.class, "peerfail");
        System.out.println(r.describe());
        assertEquals(9, r.exits()[1], r.describe());
        assertEquals(0, r.exits()[0], r.describe());
        assertTrue(r.output()[0].contains("OK peerfail rank 0"), r.describe());
    }

    /** Receives posted on ANY_SOURCE fail too (no launcher ends the job): they watch every connected rank. */
    @org.junit.jupiter.params.ParameterizedTest(name = "over {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"shm", "tcp"})
    void aReceiveFromAnySourceFailsWhenARankDies(final String tls) throws Exception {
        final MpiJob.Result r = MpiJob.run(3, Map.of("WEFT_TLS", tls), false, ErrorRanks.class, "peerfailany");
        System.out.println(r.describe());
        assertEquals(9, r.exits()[1], r.describe());
        assertEquals(0, r.exits()[0], r.describe());
        assertEquals(0, r.exits()[2], r.describe());
        assertTrue(r.output()[0].contains("OK peerfailany rank 0"), r.describe());
        assertTrue(r.output()[2].contains("OK peerfailany rank 2"), r.describe());
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} path")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tag", "am"})
    void threadsExchangeMessagesAtOnceUnderThreadMultiple(final String transport) throws Exception {
        final MpiJob.Result r = MpiJob.run(3, Map.of("WEFT_MPI_TRANSPORT", transport), ErrorRanks.class, "threads");
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.output()[rank].contains("OK threads rank " + rank), r.describe());
        }
    }

    @Test
    void aProgramStartedWithoutLauncherIsAJobOfOne() throws Exception {
        final ProcessBuilder pb = new ProcessBuilder(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            ErrorRanks.class.getName(), "hello")).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("WEFT_") || k.startsWith("PMI") || k.startsWith("OMPI_")
            || k.startsWith("SLURM_"));
        final Process p = pb.start();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Thread pump = Thread.ofPlatform().daemon().start(() -> {
            try (var in = p.getInputStream()) {
                in.transferTo(out);
            } catch (final java.io.IOException e) {
                out.writeBytes(("[output ended: " + e.getMessage() + "]").getBytes(StandardCharsets.UTF_8));
            }
        });
        final boolean ended = p.waitFor(MpiJob.JOB_TIMEOUT_S, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        pump.join(TimeUnit.SECONDS.toMillis(10));
        final String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(ended, "the singleton did not finish: " + text);
        assertEquals(0, p.exitValue(), text);
        assertTrue(text.contains("OK hello rank 0 of 1 sum 41") && text.contains("OK errors rank 0"), text);
    }
}
