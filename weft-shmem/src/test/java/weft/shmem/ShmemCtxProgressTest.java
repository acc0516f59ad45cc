package weft.shmem;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Contexts used only from the PEs' main threads ({@link ShmemCtxPe#mainThreadOnly}): a call blocked on a
 * context's worker must also serve the other PEs' contexts, which reach this PE's default worker. Over tcp
 * that needs the default worker progressed; without it every PE waits for the others until the job's bound.
 */
class ShmemCtxProgressTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "shm"})
    void contextCallsOnEveryMainThreadDoNotWaitForEachOther(final String tls) {
        final ShmemJob.Result r = ShmemJob.run(3, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"), 120,
            ShmemConformancePe.class, "ctxmain");
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(r.out(rank).contains("ok ctxmain\n"), "rank " + rank + ": " + r);
        }
    }
}
