package weft.tools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import weft.tools.perftest.PerfResult;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchReportTest {
    private static PerfResult lat(final double us) {
        return new PerfResult(1000, us, us, us, 8 / us, 8 / us, 1e6 / us, 1e6 / us);
    }

    private static PerfResult bw(final double mbs) {
        return new PerfResult(1000, 1, 1, 1, mbs, mbs, mbs * 10, mbs * 10);
    }

    private static BenchRow row(final String tl, final String test, final long size, final Metric m,
                                final PerfResult weft, final PerfResult ucx) {
        final BenchRow r = new BenchRow(new BenchPoint(tl, test, size, m, 1000, 100, test, 1.0));
        r.weft.add(Outcome.ok(weft, 0.0));
        if (ucx != null) {
            r.ucx.add(Outcome.ok(ucx, Double.NaN));
        }
        return r;
    }

    @Test
    void ratiosAreWeftOverUcxAndMarkWhereWeftIsAtLeastAsGood() {
        final BenchRow slower = row("shm", "tag_lat", 8, Metric.LATENCY, lat(0.3), lat(0.2));
        assertEquals(1.5, slower.ratio(), 1e-9);
        assertFalse(slower.weftAtLeastAsGood());
        final BenchRow faster = row("shm", "tag_bw", 1 << 20, Metric.BANDWIDTH, bw(12000), bw(10000));
        assertEquals(1.2, faster.ratio(), 1e-9);
        assertTrue(faster.weftAtLeastAsGood());
        final BenchRow alone = row("tcp", "tag_lat", 8, Metric.LATENCY, lat(10), null);
        assertTrue(Double.isNaN(alone.ratio()));
    }

    @Test
    void medianOfRepeatsAndTheAnchorFactor() {
        final BenchRow r = new BenchRow(new BenchPoint("tcp", "ucp_get", 8, Metric.LATENCY, 100, 10, "tag_lat", 2.0));
        r.weft.add(Outcome.ok(lat(30), 0));
        r.weft.add(Outcome.ok(lat(10), 0));
        r.weft.add(Outcome.failed("lost"));
        r.weft.add(Outcome.ok(lat(20), 0));
        r.ucx.add(Outcome.ok(lat(6), Double.NaN));
        assertEquals(20, r.weftValue(), 1e-9, "median of the successful runs");
        assertEquals(12, r.ucxValue(), 1e-9, "2x the UCX figure");
        assertEquals("lost", BenchRow.firstError(r.weft));
        assertNull(BenchRow.firstError(r.ucx));
    }

    @Test
    void tableAndCsvCarryEveryPoint(@TempDir final Path dir) throws Exception {
        final List<BenchRow> rows = List.of(row("shm", "tag_lat", 8, Metric.LATENCY, lat(0.25), lat(0.2)),
            row("tcp", "tag_bw", 1 << 20, Metric.BANDWIDTH, bw(3000), bw(2500)));
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BenchReport.table(new PrintStream(bytes, true, StandardCharsets.UTF_8), rows, true);
        final String table = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("tag_lat           8 B  usec 1-way"), table);
        assertTrue(table.contains("1.25"), table);
        assertTrue(table.contains("1.20 +"), table);
        final Path csv = dir.resolve("r.csv");
        BenchReport.csv(csv, rows);
        final List<String> lines = Files.readAllLines(csv);
        assertEquals(3, lines.size());
        assertTrue(lines.get(1).startsWith("shm,tag_lat,8,latency,usec,0.250000,0.200000,1.25000,"), lines.get(1));
        assertTrue(lines.get(2).startsWith("tcp,tag_bw,1048576,bandwidth,MB/s,3000.00,2500.00,1.20000,"), lines.get(2));
    }

    @Test
    void plotsAreRealPngs(@TempDir final Path dir) throws Exception {
        final List<BenchRow> rows = List.of(row("shm", "tag_lat", 8, Metric.LATENCY, lat(0.25), lat(0.2)),
            row("shm", "tag_lat", 4096, Metric.LATENCY, lat(1.5), lat(1.2)),
            row("shm", "tag_lat", 1 << 20, Metric.LATENCY, lat(150), lat(100)));
        final Path png = dir.resolve("lat.png");
        assertTrue(BenchPlot.write(png, rows, "shm", Metric.LATENCY));
        final BufferedImage img = ImageIO.read(png.toFile());
        assertNotNull(img, "decodes as an image");
        assertTrue(img.getWidth() > 500 && img.getHeight() > 300);
        // the Weft series is drawn in the first palette colour somewhere inside the plot
        boolean blue = false;
        for (int x = 100; x < img.getWidth() && !blue; x++) {
            for (int y = 60; y < img.getHeight() - 80; y++) {
                if ((img.getRGB(x, y) & 0xffffff) == 0x1f77b4) {
                    blue = true;
                    break;
                }
            }
        }
        assertTrue(blue, "a series line is drawn");
        assertFalse(BenchPlot.write(dir.resolve("none.png"), rows, "tcp", Metric.LATENCY), "no tcp points: no plot");
        assertFalse(Files.exists(dir.resolve("none.png")));
    }

    @Test
    void ucxFinalLineIsParsedFromItsOutput() {
        final String out = """
            +--------------+
            | some header |
                               10000      0.155     0.763     0.763       10.00      10.00     1310700     1310700
            """;
        final PerfResult r = UcxSide.finalLine(out);
        assertNotNull(r);
        assertEquals(10000, r.iterations());
        assertEquals(0.763, r.overallUs(), 1e-9);
        assertEquals(1310700, r.overallRate(), 1e-9);
        assertNull(UcxSide.finalLine("no numbers here\n"));
    }
}
