package weft.shmem;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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

    @Test
    void globalExitEndsEveryPeAndItsCodeIsTheJobs() {
        final ShmemJob.Result r = ShmemJob.run(3, Map.of("SHMEM_SYMMETRIC_SIZE", "8m"), 120, ShmemFailurePe.class,
            "globalExit", "7");
        assertFalse(r.timedOut(), r.toString());
        assertEquals(7, r.codes()[1], r.toString());
        assertNotEquals(0, r.codes()[0], "the others were stopped, not left waiting: " + r);
        assertNotEquals(0, r.codes()[2], r.toString());
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
}
