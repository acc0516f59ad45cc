package weft.tools.perftest;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The steady-state detection of perftest on synthetic courses of a run. */
class SteadyStateTest {
    private static SteadyState.Result find(final long[] v) {
        return SteadyState.find(v, v.length, new long[v.length]);
    }

    /** A slow phase (interpreted, then C1 code) then a flat one: steady from the first flat block. */
    @Test
    void slowStartThenFlat() {
        final long[] v = new long[10_000];
        for (int i = 0; i < v.length; i++) {
            v[i] = i < 3_000 ? 5_000 : i < 4_000 ? 400 : 100;
        }
        final SteadyState.Result r = find(v);
        assertTrue(r.reached());
        assertEquals(100, r.steadyMedian());
        assertEquals(4_000, r.sample()); // blocks of 50 samples: 4000 is a block boundary
    }

    /** Single preempted iterations (a block's minority) do not move the answer; noise within 10 % does not. */
    @Test
    void isolatedOutliersAndSmallNoiseAreSteady() {
        final Random rnd = new Random(7);
        final long[] v = new long[10_000];
        for (int i = 0; i < v.length; i++) {
            v[i] = 95 + rnd.nextInt(10);
            if (i % 97 == 0) {
                v[i] = 2_000_000; // a 2 ms preemption now and then
            }
        }
        final SteadyState.Result r = find(v);
        assertEquals(0, r.sample());
    }

    /** A slow phase late in the run (a compile stall, a deoptimization) pushes the steady state after it. */
    @Test
    void lateSlowPhaseCounts() {
        final long[] v = new long[10_000];
        for (int i = 0; i < v.length; i++) {
            v[i] = i >= 7_000 && i < 7_200 ? 300 : 100;
        }
        assertEquals(7_200, find(v).sample());
    }

    /** A run that ends off its last half's median never settled. */
    @Test
    void lastBlockOffMedianIsNotReached() {
        final long[] v = new long[1_000];
        for (int i = 0; i < v.length; i++) {
            v[i] = i < 990 ? 100 : 200;
        }
        final SteadyState.Result r = find(v);
        assertTrue(r.known());
        assertFalse(r.reached());
        assertEquals(1_000, r.sample());
    }

    @Test
    void tooFewSamplesIsUnknown() {
        assertFalse(find(new long[SteadyState.MIN_SAMPLES - 1]).known());
    }

    @Test
    void medianOfRange() {
        assertEquals(2, SteadyState.median(new long[] {9, 5, 1, 3, 2, 8}, 1, 5, new long[6])); // 5,1,3,2: the lower
        assertEquals(5, SteadyState.median(new long[] {9, 5, 1}, 0, 3, new long[3]));
    }

    /** The trace keeps every timed iteration while they fit, then decimates, keeping the run's whole course. */
    @Test
    void traceDecimatesAndMapsBackToIterations() {
        final LatencyTrace t = new LatencyTrace(1024);
        for (int i = 0; i < 10_000; i++) {
            t.add(i < 6_000 ? 1_000 : 100);
        }
        assertEquals(16, t.stride()); // 10000 samples in 1024 slots: every 16th (625 kept)
        assertEquals(625, t.count());
        final SteadyState.Result r = t.steadyState();
        assertTrue(r.reached());
        assertEquals(6_000, r.sample() * t.stride(), 8 * t.stride()); // within one block of 8 samples
    }

    /** The meter maps the trace back to iterations, sampled runs included. */
    @Test
    void meterReportsSteadyIteration() {
        final PerfParams p = new PerfParams(PerfTestKind.byName("am_lat"), new long[] {8}, 1_000, 0,
            PerfParams.Layout.SHORT, 0, 127, 50, "shm", "");
        final PerfMeter m = new PerfMeter(null, p, Long.MAX_VALUE);
        m.start(0);
        long now = 0;
        for (int i = 0; i < 1_000; i++) {
            now += i < 250 ? 10_000 : 1_000;
            m.record(now);
        }
        assertEquals(250, m.steadyIteration(), 8);
        assertEquals(1_000, m.steadyNanos());
    }
}
