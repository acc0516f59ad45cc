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
     * @param transport  the message path ({@code WEFT_MPI_TRANSPORT}): the collectives are built on point to point,
     *                   so the active-message path runs them too (on a power of two over shm, and over tcp)
     */
    @ParameterizedTest(name = "np {0} over {1}, {2} algorithms, {3} path")
    @CsvSource({"4, shm, default, tag", "2, tcp, default, tag", "1, shm, default, tag", "5, shm, large, tag",
        "3, shm, default, tag", "4, shm, default, am", "3, tcp, large, am"})
    void collectivesAndCommunicatorsAreCorrect(final int np, final String tls, final String algorithms,
                                               final String transport) throws Exception {
        final Map<String, String> env = algorithms.equals("large")
            ? Map.of("WEFT_TLS", tls, "WEFT_MPI_BCAST_LARGE", "1", "WEFT_MPI_BCAST_LARGE_RANKS", "2",
                "WEFT_MPI_ALLREDUCE_LARGE", "1", "WEFT_MPI_TRANSPORT", transport)
            : Map.of("WEFT_TLS", tls, "WEFT_MPI_TRANSPORT", transport);
        final MpiJob.Result r = MpiJob.run(np, env, CollectiveRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK coll rank " + rank), r.describe());
        }
    }

    /** Every collective on an intercommunicator between the world's two halves, each group as the root's. */
    @ParameterizedTest(name = "np {0} over {1}, {2} path")
    @CsvSource({"5, shm, tag", "4, tcp, tag", "2, shm, tag", "4, shm, am"})
    void intercommunicatorCollectivesAreCorrect(final int np, final String tls, final String transport)
        throws Exception {
        final MpiJob.Result r = MpiJob.run(np, Map.of("WEFT_TLS", tls, "WEFT_MPI_TRANSPORT", transport),
            InterCollectiveRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK inter rank " + rank), r.describe());
        }
    }
}
