package mpi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Point-to-point semantics ({@link P2pRanks}) in jobs of separate JVMs over shared memory and tcp. */
class PointToPointTest {
    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"2, shm", "4, shm", "3, tcp"})
    void pointToPointSemanticsHold(final int np, final String tls) throws Exception {
        final MpiJob.Result r = MpiJob.run(np, Map.of("WEFT_TLS", tls), P2pRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK p2p rank " + rank), r.describe());
        }
        assertEquals(np, r.exits().length);
    }

    /** A warm blocking send of a short message allocates nothing; a receive allocates only its Status. */
    @org.junit.jupiter.api.Test
    void shortMessagesAllocateOnlyTheStatus() throws Exception {
        final MpiJob.Result r = MpiJob.run(2, Map.of("WEFT_TLS", "shm"), AllocationRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        assertTrue(r.output()[0].contains("OK alloc rank 0") && r.output()[1].contains("OK alloc rank 1"),
            r.describe());
    }

    /** Connections on first use: in a ring of 16 JVMs each rank connects to its neighbours only. */
    @org.junit.jupiter.api.Test
    void aRingConnectsOnlyNeighbours() throws Exception {
        final int np = 16;
        final MpiJob.Result r = MpiJob.run(np, Map.of(), RingRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK ring rank " + rank), r.describe());
        }
    }
}
