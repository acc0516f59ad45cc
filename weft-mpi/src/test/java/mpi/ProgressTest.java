package mpi;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wait policy of {@link Progress}: when an idle wait yields its CPU. */
class ProgressTest {
    /** 2000 idle polls, in steps of 16. */
    private static final int SPIN_STEPS = 125;

    @AfterEach
    void restore() {
        Progress.configure("auto", 1, 0);
    }

    @Test
    void withACpuPerRankAWaitOnlyPolls() {
        Progress.configure("n", 1, 0);
        assertFalse(Progress.yields(SPIN_STEPS), "policy n");
        assertFalse(Progress.yields(1_000_000), "policy n, a long wait");
    }

    @Test
    void policyYesYieldsOnlyAfterTheSpin() {
        Progress.configure("y", 1, 0);
        assertFalse(Progress.yields(SPIN_STEPS - 1), "before 2000 idle polls");
        assertTrue(Progress.yields(SPIN_STEPS), "after 2000 idle polls");
    }

    @Test
    void duringTheWarmUpAnIdleWaitYieldsWhateverThePolicy() {
        Progress.configure("n", 1, Long.MAX_VALUE); // WEFT_MPI_WARMUP_YIELD=inf: no overflow, always warming
        assertFalse(Progress.yields(SPIN_STEPS - 1), "a short wait still only polls");
        assertTrue(Progress.yields(SPIN_STEPS), "a long idle wait yields while warming up");
    }

    @Test
    void theWarmUpEnds() {
        Progress.configure("n", 1, 1); // 1 ns: over before the first look
        long spin = 0;
        while (spin < 1_000_000 && Progress.yields(SPIN_STEPS)) {
            spin++; // nanoTime may not have moved on a coarse clock yet
        }
        assertFalse(Progress.yields(SPIN_STEPS), "after the warm-up the policy (n) decides");
    }

    @Test
    void onACrowdedNodeTheAutoPolicyYieldsAfterOneIdleStep() {
        final int cpus = weft.ucs.Cpus.online();
        Progress.configure("auto", cpus + 1, 0);
        assertFalse(Progress.yields(0), "a wait that just found nothing polls once more");
        assertTrue(Progress.yields(1), "after 16 idle polls the peer may need this CPU");
        Progress.configure("auto", cpus, 0);
        assertFalse(Progress.yields(SPIN_STEPS), "a rank per CPU never yields");
        Progress.configure("y", cpus + 1, 0);
        assertFalse(Progress.yields(1), "policy y keeps its 2000 idle polls");
        assertTrue(Progress.yields(SPIN_STEPS));
    }
}
