package weft.tools.perftest;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The warm-up is split into enough calls of run() that run() and the test's chunk loop reach their
 * optimizing-compile thresholds before the measured call, even at OSU's 100 (or 10) warm-up iterations.
 */
class WarmupSlicesTest {
    @Test
    void shortWarmupsRunOneIterationPerCall() {
        assertEquals(100, PerfRun.warmupSlices(100));
        assertEquals(10, PerfRun.warmupSlices(10));
        assertEquals(1, PerfRun.warmupSlices(1));
    }

    @Test
    void noWarmupStillMakesOneCall() {
        assertEquals(1, PerfRun.warmupSlices(0));
    }

    @Test
    void longWarmupsRunWholeChunksUpToTheCap() {
        assertEquals(10_000 / PerfLoop.CHUNK, PerfRun.warmupSlices(10_000));
        assertEquals(PerfRun.MIN_WARMUP_SLICES, PerfRun.warmupSlices(PerfRun.MIN_WARMUP_SLICES * PerfLoop.CHUNK - 1));
        assertEquals(PerfRun.WARMUP_SLICES, PerfRun.warmupSlices(10_000_000));
    }
}
