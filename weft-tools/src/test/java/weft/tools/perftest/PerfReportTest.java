package weft.tools.perftest;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The output has exactly ucx_perftest 1.13's shape (reference lines copied from its output). */
class PerfReportTest {
    private static PerfParams params(final PerfTestKind t, final double percentile, final String sizes) {
        return new PerfParams(t, PerfParams.parseSizes(sizes), 1000, 10, PerfParams.Layout.SHORT, 0, 127, percentile,
            "self", "");
    }

    @Test
    void shouldPrintTheTableHeaderLikeUcxPerftest() {
        final String expected = String.join("\n",
            "+--------------+--------------+------------------------------+---------------------+-----------------------+",
            "|              |              |        latency (usec)        |   bandwidth (MB/s)  |  message rate (msg/s) |",
            "+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+",
            "|    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |  average  |  overall  |",
            "+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+",
            "");
        assertEquals(expected, PerfReport.tableHeader(params(PerfTestKind.AM_LAT, 50, "8"), true, false));
    }

    @Test
    void shouldNameOverheadAndTestColumnsAndPercentile() {
        final String h = PerfReport.tableHeader(params(PerfTestKind.PUT_BW, 99, "8"), false, true);
        assertTrue(h.startsWith("|              |              |       overhead (usec)        |"), h);
        assertTrue(h.contains("|     Test     | # iterations | 99.0%ile | average |"), h);
    }

    @Test
    void shouldPrintTheTestBox() {
        final String box = PerfReport.box(params(PerfTestKind.GET, 50, "8,16"), false);
        final String[] lines = box.split("\n");
        assertEquals(8, lines.length);
        assertEquals("+" + "-".repeat(106) + "+", lines[0]);
        assertEquals(String.format("%-107s|", "| API:          transport layer"), lines[1]);
        assertEquals(String.format("%-107s|", "| Test:         get latency / bandwidth / message rate"), lines[2]);
        assertEquals(String.format("%-107s|", "| Message size: 24"), lines[6]);
        for (final String l : lines) {
            assertEquals(108, l.length(), l);
        }
        // loopback: the box closes with the table's top rule
        assertTrue(PerfReport.box(params(PerfTestKind.GET, 50, "8"), true).endsWith(
            "+--------------+--------------+------------------------------+---------------------+-----------------------+\n"));
    }

    @Test
    void shouldAlignResultColumnsLikeUcxPerftest() {
        final PerfResult r = new PerfResult(2500000, 0.106, 0.109, 0.109, 69.80, 69.80, 9148461, 9148461);
        assertEquals("Final:               2500000      0.106     0.109     0.109       69.80      69.80     9148461     9148461",
            PerfReport.line("Final:", r));
        assertEquals(List.of(28, 39, 49, 59, 71, 82, 94, 106), fieldEnds(PerfReport.line("", r)));
        assertEquals(List.of(7, 10, 28, 39, 49, 59, 71, 82, 94, 106), fieldEnds(PerfReport.line("[thread 0]", r)));
    }

    @Test
    void shouldPrintCsvLikeUcxPerftest() {
        final PerfResult r = new PerfResult(100000, 0.401, 0.428, 0.428, 17.81, 17.81, 2334507, 2334507);
        assertEquals("iterations,50.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr",
            PerfReport.csvHeader(params(PerfTestKind.AM_LAT, 50, "8")));
        assertEquals("100000,0.401,0.428,0.428,17.81,17.81,2334507,2334507", PerfReport.csvLine(false, r));
        assertEquals("[thread 0]100000,0.401,0.428,0.428,17.81,17.81,2334507,2334507", PerfReport.csvLine(true, r));
    }

    @Test
    void shouldComputeOneWayLatencyAndMebibytes() {
        // ping-pong: 1000 round trips of 8 bytes in 2 ms -> 1 us one way
        final PerfResult pp = PerfResult.of(1000, 2_000_000, 1000, 2_000_000, 8, 2.0, 1800);
        assertEquals(1.0, pp.overallUs(), 1e-9);
        assertEquals(0.9, pp.typicalUs(), 1e-9);
        assertEquals(1e6, pp.overallRate(), 1e-3);
        assertEquals(8 * 1e6 / (1 << 20), pp.overallMBs(), 1e-9);
        // stream: 1 MiB messages, 100 in 0.1 s -> 1000 MB/s, 1000 msg/s, 100 us per op
        final PerfResult st = PerfResult.of(100, 100_000_000, 50, 40_000_000, 1 << 20, 1.0, 90_000);
        assertEquals(1000.0, st.overallMBs(), 1e-9);
        assertEquals(1000.0, st.overallRate(), 1e-9);
        assertEquals(1000.0, st.overallUs(), 1e-9);
        assertEquals(50 / 0.04, st.avgRate(), 1e-6);
        assertEquals(800.0, st.avgUs(), 1e-9);
    }

    static List<Integer> fieldEnds(final String line) {
        final List<Integer> ends = new ArrayList<>();
        final Matcher m = Pattern.compile("\\S+").matcher(line);
        while (m.find()) {
            ends.add(m.end());
        }
        return ends;
    }
}
