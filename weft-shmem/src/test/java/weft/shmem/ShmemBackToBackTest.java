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
    @ParameterizedTest(name = "{0}, {1} PEs, {2} iterations")
    @CsvSource({"shm, 2, 200", "shm, 3, 200", "shm, 4, 200", "tcp, 2, 200", "tcp, 3, 80", "tcp, 4, 50"})
    void collectivesBackToBackOnSeveralTeams(final String tls, final int n, final int iterations) {
        // over tcp a PE that does not run applies no put: 3 and 4 PEs on 2 cores take ms per collective
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"), 300,
            ShmemBackToBackPe.class, Integer.toString(iterations));
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("ok back-to-back\n"), "rank " + rank + ": " + r);
        }
    }

    /** A root's broadcasts into one destination stay at most one ahead of a late member ({@link ShmemBroadcastRunAheadPe}). */
    @ParameterizedTest(name = "{0}, {1} PEs, radix {2}, {3} broadcasts")
    @CsvSource({"shm, 2, 2, 2000", "shm, 4, 2, 2000", "tcp, 3, 2, 600"})
    void broadcastsIntoOneDestinationWhileAMemberIsLate(final String tls, final int n, final int radix,
                                                        final int count) {
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"), 120,
            ShmemBroadcastRunAheadPe.class, Integer.toString(radix), Integer.toString(count));
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("ok run-ahead\n"), "rank " + rank + ": " + r);
        }
    }
}
