package weft.shmem;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Collectives without entry barriers ({@link ShmemBackToBackPe}): back-to-back broadcasts with changing roots,
 * fcollects and reductions on several teams, with a PE that falls behind, on 2, 3 and 4 PEs over shared memory
 * and tcp. A signal of a later collective counted for an earlier one shows as a wrong value (or a hang, ended
 * by the job's timeout). A root that broadcasts into one destination again and again stays at most one
 * broadcast ahead of a late member.
 */
@Timeout(600)
class ShmemBackToBackTest {
    @ParameterizedTest(name = "{0}, {1} PEs")
    @CsvSource({"shm, 2", "shm, 3", "shm, 4", "tcp, 2", "tcp, 3", "tcp, 4"})
    void collectivesBackToBackOnSeveralTeams(final String tls, final int n) {
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"), 300,
            ShmemBackToBackPe.class);
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("ok back-to-back\n"), "rank " + rank + ": " + r);
        }
    }

    /** A root's broadcasts into one destination stay at most one ahead of a late member ({@link ShmemBroadcastRunAheadPe}). */
    @ParameterizedTest(name = "{0}, {1} PEs, radix {2}")
    @CsvSource({"shm, 2, 2", "shm, 4, 2", "tcp, 3, 2"})
    void broadcastsIntoOneDestinationWhileAMemberIsLate(final String tls, final int n, final int radix) {
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"), 120,
            ShmemBroadcastRunAheadPe.class, Integer.toString(radix));
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("ok run-ahead\n"), "rank " + rank + ": " + r);
        }
    }
}
