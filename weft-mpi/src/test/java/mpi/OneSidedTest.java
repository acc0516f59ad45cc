package mpi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-sided communication ({@link RmaRanks}, {@link DynamicWinRanks}) in jobs of separate JVMs over shared
 * memory and tcp.
 */
class OneSidedTest {
    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"3, shm", "2, tcp"})
    void windowsWork(final int np, final String tls) throws Exception {
        expectOk(MpiJob.run(np, Map.of("WEFT_TLS", tls), RmaRanks.class), np, "rma");
    }

    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"2, shm", "4, shm", "3, tcp"})
    void dynamicWindowsWork(final int np, final String tls) throws Exception {
        expectOk(MpiJob.run(np, Map.of("WEFT_TLS", tls), DynamicWinRanks.class), np, "dynwin");
    }

    private static void expectOk(final MpiJob.Result r, final int np, final String program) {
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK " + program + " rank " + rank), r.describe());
        }
    }
}
