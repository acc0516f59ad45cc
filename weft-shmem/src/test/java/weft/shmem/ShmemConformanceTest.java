package weft.shmem;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The OpenSHMEM routines as real multi-PE jobs (separate JVMs) over shared memory and over tcp: every family
 * of {@link ShmemConformancePe} in one job per transport, each PE checking its own results.
 */
@Timeout(900)
class ShmemConformanceTest {
    /** Every family in one job per transport (4 JVMs per transport: the launches were most of the test's time). */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"shm, rma amo sync ctx coll heap lock", "tcp, rma amo sync ctx coll heap lock"})
    void everyFamilyOnFourPes(final String tls, final String job) {
        final String[] families = job.split(" ");
        final ShmemJob.Result r = ShmemJob.run(4, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "24m"), 500,
            ShmemConformancePe.class, families);
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < 4; rank++) {
            for (final String f : families) {
                assertTrue(r.out(rank).contains("ok " + f + "\n"), "rank " + rank + " did not finish " + f + ": " + r);
            }
        }
    }

    /**
     * Dynamic connections at 8 PEs: after init, a calloc (its agreement check is a dissemination exchange
     * with the PEs 1, 2 and 4 ahead) and a ring exchange with the right neighbour (1 ahead), each PE holds
     * 3 endpoints and 3 unpacked heap keys, not 7. Over tcp the 3 keys are byte-equal (symmetric) and the
     * worker keeps one transport key for them ({@code Rkey.compare} de-duplication); over shm none (mapped).
     * (8 PEs tell log2(N) from N - 1 as well as 16 did, at half the JVMs.)
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aRingOf8PesConnectsLog2Endpoints(final String tls) {
        final int n = 8;
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"), 200,
            ShmemConformancePe.class, "ring");
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("endpoints 3 keys 3 transport keys " + (tls.equals("tcp") ? 1 : 0) + "\n"),
                "rank " + rank + ": " + r);
        }
        assertEquals(n, r.codes().length);
    }
}
