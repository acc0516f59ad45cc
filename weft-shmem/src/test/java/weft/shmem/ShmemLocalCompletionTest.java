package weft.shmem;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Collectives complete only locally ({@link ShmemLocalCompletionPe}): sources overwritten right after a
 * broadcast or reduction returns never reach another member, and teams destroyed right after their
 * collectives leave no signal for the team that reuses their slot; over shared memory and tcp.
 */
@Timeout(600)
class ShmemLocalCompletionTest {
    @ParameterizedTest(name = "{0}, {1} PEs")
    @CsvSource({"shm, 2", "tcp, 2", "tcp, 3", "tcp, 4"})
    void sourcesReusableAndSlotsClean(final String tls, final int n) {
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "16m"), 300,
            ShmemLocalCompletionPe.class);
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("ok local-completion\n"), "rank " + rank + ": " + r);
        }
    }
}
