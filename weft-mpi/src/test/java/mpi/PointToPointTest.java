package mpi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Point-to-point semantics ({@link P2pRanks}) in jobs of separate JVMs over shared memory and tcp, on both
 * message paths ({@code WEFT_MPI_TRANSPORT}: ucp tag matching, and the MPI layer's matching over active
 * messages).
 */
class PointToPointTest {
    @ParameterizedTest(name = "np {0} over {1}, {2} path")
    @CsvSource({"2, shm, tag", "4, shm, tag", "3, tcp, tag", "2, shm, am", "4, shm, am", "3, tcp, am"})
    void pointToPointSemanticsHold(final int np, final String tls, final String transport) throws Exception {
        final MpiJob.Result r = MpiJob.run(np, Map.of("WEFT_TLS", tls, "WEFT_MPI_TRANSPORT", transport),
            P2pRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK p2p rank " + rank), r.describe());
        }
        assertEquals(np, r.exits().length);
    }

    /**
     * A warm blocking send of a short message allocates nothing; a receive allocates only its Status; a barrier,
     * broadcast, reduce and allreduce of a few bytes allocate nothing (on either message path).
     */
    @ParameterizedTest(name = "{0} path")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tag", "am"})
    void shortMessagesAllocateOnlyTheStatus(final String transport) throws Exception {
        final MpiJob.Result r = MpiJob.run(2, Map.of("WEFT_TLS", "shm", "WEFT_MPI_TRANSPORT", transport),
            AllocationRanks.class);
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        assertTrue(r.output()[0].contains("OK alloc rank 0") && r.output()[1].contains("OK alloc rank 1"),
            r.describe());
    }

    /**
     * MPI_Finalize returns on every rank, job after job: a rank that had finished its flush sat in the
     * out-of-band barrier without progressing its worker, while over tcp a peer's flush waited for its
     * acknowledgements, or a peer's message over a connection still being made waited for both sides (a 2-rank
     * allreduce-and-finalize hung until the bootstrap timeout in most runs; 4 ranks, through the new
     * connections of a barrier, in a third). The bootstrap timeout is short here so that a hang fails in seconds.
     */
    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"2, tcp", "4, tcp", "2, shm"})
    void finalizeReturnsJobAfterJob(final int np, final String tls) throws Exception {
        for (int job = 0; job < 3; job++) {
            final MpiJob.Result r = MpiJob.run(np, Map.of("WEFT_TLS", tls, "WEFT_BOOTSTRAP_TIMEOUT", "20s"),
                FinalizeRanks.class);
            assertTrue(r.allZero(), "job " + job + ":\n" + r.describe());
            for (int rank = 0; rank < np; rank++) {
                assertTrue(r.output()[rank].contains("OK finalize rank " + rank), "job " + job + ":\n" + r.describe());
            }
        }
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
