package mpi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every collective × operations × types × in-place forms, and communicator construction
 * ({@link CollectiveRanks}), in jobs of separate JVMs: a power of two and not, shared memory and tcp.
 */
class CollectivesTest {
    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"4, shm", "3, tcp", "1, shm"})
    void collectivesAndCommunicatorsAreCorrect(final int np, final String tls) throws Exception {
        final MpiJob.Result r = MpiJob.run(np, Map.of("WEFT_TLS", tls), CollectiveRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK coll rank " + rank), r.describe());
        }
    }
}
