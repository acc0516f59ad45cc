package mpi;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MPI-IO ({@link FileRanks}, {@link SharedFileRanks}, {@link CollectiveBufferingRanks})
 * in jobs of separate JVMs sharing a directory: views,
 * collective and independent access, and the shared file pointer moved by ucp atomics over shm and tcp.
 */
class FileTest {
    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"2, shm", "4, shm", "3, tcp"})
    void filesWork(final int np, final String tls, @TempDir final Path dir) throws Exception {
        expectOk(MpiJob.run(np, Map.of("WEFT_TLS", tls), FileRanks.class, dir.toString()), np, "file");
        assertNothingLeft(dir);
    }

    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"2, shm", "4, shm", "2, tcp", "4, tcp"})
    void sharedPointerIsShared(final int np, final String tls, @TempDir final Path dir) throws Exception {
        expectOk(MpiJob.run(np, Map.of("WEFT_TLS", tls), SharedFileRanks.class, dir.toString()), np, "sharedfile");
        assertNothingLeft(dir);
    }

    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"2, shm", "4, shm", "3, tcp"})
    void interleavedCollectiveAccessGoesTwoPhase(final int np, final String tls, @TempDir final Path dir)
        throws Exception {
        expectOk(MpiJob.run(np, Map.of("WEFT_TLS", tls), CollectiveBufferingRanks.class, dir.toString()), np, "cb");
        assertNothingLeft(dir);
    }

    private static void expectOk(final MpiJob.Result r, final int np, final String program) {
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK " + program + " rank " + rank), r.describe());
        }
    }

    private static void assertNothingLeft(final Path dir) throws Exception {
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count(), "files the program deleted or closed with MODE_DELETE_ON_CLOSE");
        }
    }
}
