package weft.tools.perftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Intermediate lines come about once per report interval, with growing counts; -f has none. */
class PerfMeterTest {
    private static final PerfParams P = new PerfParams(PerfTestKind.PUT_BW, new long[] {1024}, 1, 0,
        PerfParams.Layout.SHORT, 0, 127, 50, "self", "");

    private static String measure(final boolean finalOnly, final boolean csv, final long[] iterations) {
        final ByteArrayOutputStream bos = new ByteArrayOutputStream();
        final PerfOutput out = new PerfOutput(new PrintStream(bos, true, StandardCharsets.UTF_8), P, finalOnly, csv);
        final PerfMeter m = new PerfMeter(out, P, 2_000_000); // a line every 2 ms
        // synthetic clock: one iteration every 100 us for 30 ms, so the line count does not depend on load
        final long start = 1_000_000_000L;
        m.start(start);
        long now = start;
        for (int i = 0; i < 300; i++) {
            now += 100_000;
            m.record(now);
        }
        final PerfResult r = m.finish(now);
        out.finalResult(r);
        iterations[0] = m.iterations();
        assertEquals(m.iterations(), r.iterations());
        return bos.toString(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(10)
    void shouldPrintIntermediateLinesThenTheFinalOne() {
        final long[] n = new long[1];
        final String[] lines = measure(false, false, n).split("\n");
        assertTrue(lines.length >= 5, String.join("\n", lines));
        long prev = 0;
        for (int i = 0; i < lines.length - 1; i++) {
            assertTrue(lines[i].startsWith("[thread 0]"), lines[i]);
            final long it = Long.parseLong(lines[i].substring(14, 28).trim());
            assertTrue(it > prev, lines[i]);
            prev = it;
        }
        assertTrue(lines[lines.length - 1].startsWith("Final:"), lines[lines.length - 1]);
        assertEquals(n[0], Long.parseLong(lines[lines.length - 1].substring(14, 28).trim()));
    }

    @Test
    @Timeout(10)
    void shouldPrintCsvIntermediateLinesWithThePrefix() {
        final String[] lines = measure(false, true, new long[1]).split("\n");
        assertTrue(lines[0].startsWith("[thread 0]") && lines[0].split(",").length == 8, lines[0]);
        assertTrue(lines[lines.length - 1].matches("\\d+(,[0-9.]+){7}"), lines[lines.length - 1]);
    }

    @Test
    @Timeout(10)
    void shouldPrintOnlyTheFinalLineWithF() {
        final String[] lines = measure(true, false, new long[1]).split("\n");
        assertEquals(1, lines.length);
        assertTrue(lines[0].startsWith(" ".repeat(14)), lines[0]);
    }

    @Test
    @Timeout(10)
    void shouldTimeOneIterationInSixteenOnLongRunsAndEveryOneOnShortRuns() {
        for (final long n : new long[] {PerfMeter.SAMPLE_FROM * 2, 1000}) {
            final PerfParams p = new PerfParams(PerfTestKind.PUT_BW, new long[] {8}, n, 0,
                PerfParams.Layout.SHORT, 0, 127, 50, "self", "");
            final PerfMeter m = new PerfMeter(null, p, Long.MAX_VALUE);
            final long t0 = System.nanoTime();
            m.start(t0);
            for (long i = 0; i < n; i++) {
                m.tick();
            }
            final long t1 = System.nanoTime();
            final PerfResult r = m.finish(t1);
            assertEquals(n, m.iterations());
            assertEquals(n, r.iterations());
            assertEquals(n >= PerfMeter.SAMPLE_FROM ? n / PerfMeter.SAMPLE : n, m.timedIterations(), "timed of " + n);
        }
    }
}
