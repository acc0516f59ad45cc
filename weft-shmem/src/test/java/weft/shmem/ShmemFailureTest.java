package weft.shmem;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input and failures as jobs of separate PE processes: each ends with a clear error, never a hang. */
@Timeout(300)
class ShmemFailureTest {
    @Test
    void aGarbageHeapSizeFailsInitOnEveryPeWithTheVariableNamed() {
        final ShmemJob.Result r = ShmemJob.run(2, Map.of("SHMEM_SYMMETRIC_SIZE", "twelve"), 120,
            ShmemFailurePe.class, "init");
        assertFalse(r.timedOut(), r.toString());
        for (int rank = 0; rank < 2; rank++) {
            assertNotEquals(0, r.codes()[rank], r.toString());
            assertTrue(r.out(rank).contains("SHMEM_SYMMETRIC_SIZE='twelve' is not a size"), r.toString());
        }
    }

    /** Every PE exits with the status PE 1 passed to globalExit, 0 included (not the abort's 1). */
    @ParameterizedTest(name = "status {0}")
    @ValueSource(ints = {0, 7})
    void globalExitEndsEveryPeWithItsStatus(final int status) {
        final ShmemJob.Result r = ShmemJob.run(3, Map.of("SHMEM_SYMMETRIC_SIZE", "8m"), 120, ShmemFailurePe.class,
            "globalExit", Integer.toString(status));
        assertFalse(r.timedOut(), r.toString());
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(status, r.codes()[rank], "rank " + rank + ": " + r);
        }
        assertFalse(r.toString().contains("the barrier completed without PE 1"), r.toString());
    }

    @Test
    void aPeFailingInsideTryGivesUpInFinalizeInsteadOfHanging() {
        final ShmemJob.Result r = ShmemJob.run(3, Map.of("SHMEM_SYMMETRIC_SIZE", "8m", "WEFT_SHMEM_FINALIZE_TIMEOUT",
            "3s"), 120, ShmemFailurePe.class, "throwInTry");
        assertFalse(r.timedOut(), r.toString());
        assertNotEquals(0, r.codes()[1], r.toString());
        assertTrue(r.out(1).contains("PE 1 fails on purpose"), r.toString());
        assertTrue(r.out(1).contains("did not reach the barrier in time"), "finalize reported the missing PEs: " + r);
        assertNotEquals(0, r.codes()[0], "the waiting PEs were stopped: " + r);
        assertNotEquals(0, r.codes()[2], r.toString());
    }

    /** A PE killed by SIGKILL mid-job: the others are stopped (not left waiting), over shm and over tcp. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aPeKilledMidJobEndsTheJob(final String tls) {
        final ShmemJob.Result r = ShmemJob.run(3, Map.of("SHMEM_SYMMETRIC_SIZE", "8m", "WEFT_TLS", tls), 120,
            ShmemFailurePe.class, "kill");
        assertFalse(r.timedOut(), r.toString());
        assertEquals(137, r.codes()[1], r.toString());
        assertNotEquals(0, r.codes()[0], r.toString());
        assertNotEquals(0, r.codes()[2], r.toString());
        assertTrue(r.out(0).contains("job aborted"), "the waiting PEs learned why: " + r);
        assertFalse(r.toString().contains("the wait completed without PE 1"), r.toString());
    }
}
