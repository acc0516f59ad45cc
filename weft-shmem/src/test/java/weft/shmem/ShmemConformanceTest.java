package weft.shmem;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The OpenSHMEM routines as real multi-PE jobs (separate JVMs) over shared memory and over tcp: every family
 * of {@link ShmemConformancePe} in one job per transport, each PE checking its own results.
 */
@Timeout(240)
class ShmemConformanceTest {
    private static final String[] FAMILIES = {"rma", "amo", "sync", "coll", "heap", "lock"};

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void everyFamilyOnFourPes(final String tls) {
        final ShmemJob.Result r = ShmemJob.run(4, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "24m"), 200,
            ShmemConformancePe.class, FAMILIES);
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < 4; rank++) {
            for (final String f : FAMILIES) {
                assertTrue(r.out(rank).contains("ok " + f + "\n"), "rank " + rank + " did not finish " + f + ": " + r);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aRingConnectsOnlyTheNeighbours(final String tls) {
        final int n = 8;
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"), 200,
            ShmemConformancePe.class, "ring");
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("endpoints 1 keys 1\n"), "rank " + rank + " connected only its right "
                + "neighbour before any collective: " + r);
        }
        assertEquals(n, r.codes().length);
    }
}
