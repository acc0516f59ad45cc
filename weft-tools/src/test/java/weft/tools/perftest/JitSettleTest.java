package weft.tools.perftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pause between warm-up and measurement is bounded, and ends early once the JIT is quiet. */
class JitSettleTest {
    private static final long ALLOWANCE_NS = Long.getLong("weft.test.timeAllowanceMs", 5_000) * 1_000_000L;

    @Test
    @Timeout(30)
    void shouldReturnWithinItsLimit() {
        final long t0 = System.nanoTime();
        JitSettle.await(1_000_000_000L);
        final long took = System.nanoTime() - t0;
        // its limit plus what a busy machine may add (as the core suite's Waits.bound)
        assertTrue(took < 1_000_000_000L + ALLOWANCE_NS, "took " + took / 1_000_000 + " ms");
    }

    @Test
    @Timeout(10)
    void shouldWaitAtLeastTheQuietPeriodWhenItSucceeds() {
        final var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(jit != null && jit.isCompilationTimeMonitoringSupported());
        final long t0 = System.nanoTime();
        final boolean quiet = JitSettle.await(3_000_000_000L);
        final long took = System.nanoTime() - t0;
        if (quiet) {
            assertTrue(took >= 150_000_000L, "quiet after only " + took / 1_000_000 + " ms");
        } else {
            assertTrue(took >= 3_000_000_000L, "gave up after " + took / 1_000_000 + " ms");
        }
    }
}
