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
    /**
     * @param algorithms "default" thresholds, or "large": every message counts as large, so broadcasts scatter
     *                   and allgather and commutative allreduces go round the ring
     */
    @ParameterizedTest(name = "np {0} over {1}, {2} algorithms")
    @CsvSource({"4, shm, default", "2, tcp, default", "1, shm, default", "5, shm, large", "3, shm, default"})
    void collectivesAndCommunicatorsAreCorrect(final int np, final String tls, final String algorithms)
        throws Exception {
        final Map<String, String> env = algorithms.equals("large")
            ? Map.of("WEFT_TLS", tls, "WEFT_MPI_BCAST_LARGE", "1", "WEFT_MPI_BCAST_LARGE_RANKS", "2",
                "WEFT_MPI_ALLREDUCE_LARGE", "1")
            : Map.of("WEFT_TLS", tls);
        final MpiJob.Result r = MpiJob.run(np, env, CollectiveRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK coll rank " + rank), r.describe());
        }
    }

    /** Every collective on an intercommunicator between the world's two halves, each group as the root's. */
    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"5, shm", "4, tcp", "2, shm"})
    void intercommunicatorCollectivesAreCorrect(final int np, final String tls) throws Exception {
        final MpiJob.Result r = MpiJob.run(np, Map.of("WEFT_TLS", tls), InterCollectiveRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK inter rank " + rank), r.describe());
        }
    }
}
