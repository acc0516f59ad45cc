package weft.tools.bench;

import org.junit.jupiter.api.Test;
import weft.tools.perftest.PerfResult;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code weft bench --cold}: its points (OSU's counts), what it reads from perftest, and its columns. */
class BenchColdTest {
    private static final PerfResult LAT = new PerfResult(10_000, 0.2, 0.3, 0.3, 1, 1, 1, 1);

    @Test
    void pointsHaveOsusCountsAndAreCold() {
        final List<BenchPoint> pts = BenchPlan.points(BenchPlan.Tier.COLD, List.of("shm", "tcp"), List.of(), 0);
        assertEquals(10, pts.size());
        for (final BenchPoint p : pts) {
            assertTrue(p.cold(), p.toString());
            if (p.size() >= BenchPlan.COLD_LARGE) {
                assertEquals(1_000, p.iterations(), p.toString());
                assertEquals(10, p.warmup(), p.toString());
            } else {
                assertEquals(10_000, p.iterations(), p.toString());
                assertEquals(100, p.warmup(), p.toString());
            }
        }
        final BenchPoint tcpGet = pts.stream().filter(p -> p.transport().equals("tcp") && p.test().equals("ucp_get"))
            .findFirst().orElseThrow();
        assertEquals("tag_lat", tcpGet.ucxTest()); // the same anchor as the steady-state suite
        assertEquals(List.of("tag_lat"), BenchPlan.points(BenchPlan.Tier.COLD, List.of("shm"), List.of("tag_lat"), 0)
            .stream().map(BenchPoint::test).toList());
    }

    @Test
    void readsSteadyStateAndJitLines() {
        final Outcome o = WeftSide.outcome(LAT, """
            # JIT compilation during the measured phase: 42 ms in 300 ms
            # steady state: from iteration 1234 of 10000 (within 10% of the last half's median, 0.100 usec)
            # allocated bytes/op: 0.500 (5000 bytes in 10000 iterations)
            """);
        assertEquals(1234, o.steadyAt());
        assertEquals(42, o.jitMs());
        assertEquals(0.5, o.allocPerOp(), 1e-9);
        final Outcome never = WeftSide.outcome(LAT, "# steady state: not reached in 10000 iterations (...)\n");
        assertEquals(10_000, never.steadyAt());
        assertEquals(-1, never.jitMs());
        assertEquals(-1, WeftSide.outcome(LAT, "").steadyAt());
    }

    @Test
    void tableHasTheColdColumns() {
        final BenchRow r = new BenchRow(new BenchPoint("shm", "tag_lat", 8, Metric.LATENCY, 10_000, 100, "tag_lat",
            1.0, true));
        r.weft.add(Outcome.ok(LAT, 0, 3000, 80));
        r.weft.add(Outcome.ok(LAT, 0, 1000, 20));
        r.weft.add(Outcome.ok(LAT, 0, 2000, 40));
        r.ucx.add(Outcome.ok(LAT, Double.NaN));
        assertEquals(2000, r.weftSteadyAt());
        assertEquals(40, r.weftJitMs());
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        BenchReport.table(new PrintStream(b, true, StandardCharsets.UTF_8), List.of(r), true);
        final String t = b.toString(StandardCharsets.UTF_8);
        assertTrue(t.contains("steady@") && t.contains("jit ms") && t.contains("warm-up+iters"), t);
        assertTrue(t.lines().anyMatch(l -> l.contains("tag_lat") && l.contains("100+10000") && l.contains(" 2000")
            && l.trim().endsWith("40")), t);
        final BenchRow never = new BenchRow(r.point);
        never.weft.add(Outcome.ok(LAT, 0, 10_000, 5));
        assertTrue(BenchReport.coldColumns(never).contains("never"), BenchReport.coldColumns(never));
    }
}
