package weft.tools.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchPlanTest {
    @Test
    void everyTierCoversBothTransportsAndGrowsWithTheTier() {
        final List<BenchPoint> quick = BenchPlan.points(BenchPlan.Tier.QUICK, List.of("shm", "tcp"), List.of(), 0);
        final List<BenchPoint> standard = BenchPlan.points(BenchPlan.Tier.DEFAULT, List.of("shm", "tcp"), List.of(), 0);
        final List<BenchPoint> full = BenchPlan.points(BenchPlan.Tier.FULL, List.of("shm", "tcp"), List.of(), 0);
        assertTrue(quick.size() < standard.size() && standard.size() < full.size(),
            quick.size() + " " + standard.size() + " " + full.size());
        for (final List<BenchPoint> tier : List.of(quick, standard, full)) {
            assertTrue(tier.stream().anyMatch(p -> p.transport().equals("shm")));
            assertTrue(tier.stream().anyMatch(p -> p.transport().equals("tcp")));
            assertTrue(tier.stream().anyMatch(p -> p.metric() == Metric.LATENCY));
            assertTrue(tier.stream().anyMatch(p -> p.metric() == Metric.BANDWIDTH));
        }
    }

    @Test
    void iterationsFollowTheTimeBudgetWithinBounds() {
        final List<BenchPoint> pts = BenchPlan.points(BenchPlan.Tier.DEFAULT, List.of("shm", "tcp"), List.of(), 200);
        for (final BenchPoint p : pts) {
            assertTrue(p.iterations() >= 20 && p.iterations() <= 2_000_000, p.toString());
            assertTrue(p.warmup() >= p.iterations() / 2 && p.warmup() <= Math.max(p.iterations(), 1_000_000),
                p.toString());
            // each run is planned to last about the budget (the bounds aside)
            final double plannedMs = p.iterations() * BenchPlan.costUs(p.transport(), p.test(), p.size()) / 1000;
            assertTrue(p.iterations() == 20 || plannedMs <= 201, p + " plans " + plannedMs + " ms");
        }
        final BenchPoint shm8 = find(pts, "shm", "tag_lat", 8);
        final BenchPoint tcp1m = find(pts, "tcp", "tag_lat", 1 << 20);
        assertTrue(shm8.iterations() > 100 * tcp1m.iterations(), shm8 + " vs " + tcp1m);
    }

    @Test
    void warmUpReachesTheOptimizingCompilersThresholdWhereThatTakesUnderTheCap() {
        final List<BenchPoint> pts = BenchPlan.points(BenchPlan.Tier.DEFAULT, List.of("shm", "tcp"), List.of(), 0);
        for (final BenchPoint p : pts) {
            // below the threshold only where the cap stopped it (less one iteration's rounding)
            final double warmMs = p.warmup() * BenchPlan.costUs(p.transport(), p.test(), p.size()) / 1000;
            assertTrue(p.warmup() >= BenchPlan.C2_THRESHOLD || warmMs >= BenchPlan.WARMUP_CAP_US / 1000 - 1,
                p + " warms " + warmMs + " ms");
        }
        // a tcp round trip with 64 KiB each way: a 300 ms warm-up would be about 4000 of them
        assertTrue(find(pts, "tcp", "tag_lat", 64 << 10).warmup() >= BenchPlan.C2_THRESHOLD);
        // 1 MiB round trips: the cap's worth, not 15000 of them
        final BenchPoint tcp1m = find(pts, "tcp", "tag_lat", 1 << 20);
        assertTrue(tcp1m.warmup() < BenchPlan.C2_THRESHOLD
            && tcp1m.warmup() * BenchPlan.costUs("tcp", "tag_lat", 1 << 20) <= BenchPlan.WARMUP_CAP_US, tcp1m.toString());
    }

    @Test
    void smallStreamingPointsMeasureMessageRateAndLargeOnesBandwidth() {
        final List<BenchPoint> pts = BenchPlan.points(BenchPlan.Tier.DEFAULT, List.of("shm"), List.of("tag_bw"), 0);
        assertEquals(Metric.RATE, find(pts, "shm", "tag_bw", 8).metric());
        assertEquals(Metric.BANDWIDTH, find(pts, "shm", "tag_bw", 1 << 20).metric());
        assertTrue(pts.stream().allMatch(p -> p.test().equals("tag_bw")), "the test filter keeps only tag_bw");
    }

    @Test
    void tcpGetAndPutBandwidthAreAnchoredOnUcxTagFiguresNotOnItsToolArtefacts() {
        final List<BenchPoint> pts = BenchPlan.points(BenchPlan.Tier.DEFAULT, List.of("shm", "tcp"), List.of(), 0);
        final BenchPoint tcpGet = find(pts, "tcp", "ucp_get", 8);
        assertEquals("tag_lat", tcpGet.ucxTest());
        assertEquals(2.0, tcpGet.ucxFactor());
        assertEquals("2x ucx tag_lat", tcpGet.anchorNote());
        assertEquals("tag_bw", find(pts, "tcp", "ucp_put_bw", 1 << 20).ucxTest());
        final BenchPoint shmGet = find(pts, "shm", "ucp_get", 8);
        assertFalse(shmGet.proxyAnchor());
        assertEquals("", shmGet.anchorNote());
    }

    @Test
    void sizeLabels() {
        assertEquals("8 B", BenchPoint.sizeLabel(8));
        assertEquals("1000 B", BenchPoint.sizeLabel(1000));
        assertEquals("4 KiB", BenchPoint.sizeLabel(4096));
        assertEquals("1 MiB", BenchPoint.sizeLabel(1 << 20));
        assertEquals("1536 KiB", BenchPoint.sizeLabel(1536 * 1024));
    }

    private static BenchPoint find(final List<BenchPoint> pts, final String tl, final String test, final long size) {
        return pts.stream().filter(p -> p.transport().equals(tl) && p.test().equals(test) && p.size() == size)
            .findFirst().orElseThrow(() -> new AssertionError("no point " + tl + " " + test + " " + size));
    }
}
