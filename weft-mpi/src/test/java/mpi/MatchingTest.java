package mpi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The matching rules ({@link MatchingRanks}) on both message paths, over shared memory and tcp, and a bad
 * {@code WEFT_MPI_TRANSPORT} refused at init.
 */
class MatchingTest {
    @ParameterizedTest(name = "over {0}, {1} path")
    @CsvSource({"shm, tag", "shm, am", "tcp, am"})
    void matchingRulesHold(final String tls, final String transport) throws Exception {
        final MpiJob.Result r = MpiJob.run(3, Map.of("WEFT_TLS", tls, "WEFT_MPI_TRANSPORT", transport),
            MatchingRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.output()[rank].contains("OK match rank " + rank), r.describe());
        }
    }

    /** An unknown path is an error of MPI.Init naming the variable and the accepted values. */
    @org.junit.jupiter.api.Test
    void anUnknownPathIsRefused() throws Exception {
        final MpiJob.Result r = MpiJob.run(1, Map.of("WEFT_MPI_TRANSPORT", "rdma"), BadTransportRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        assertTrue(r.output()[0].contains("OK refused"), r.describe());
    }
}
