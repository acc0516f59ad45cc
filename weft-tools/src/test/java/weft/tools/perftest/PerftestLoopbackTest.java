package weft.tools.perftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each test end to end in one process on the self transport (-l), with sanity checks on the numbers. */
class PerftestLoopbackTest {
    /** What one run printed and returned. */
    record Run(int rc, String out, String err) {
        double[] finalNumbers() {
            final String[] lines = out.strip().split("\n");
            final String[] f = lines[lines.length - 1].trim().replace(",", " ").split("\\s+");
            final double[] v = new double[f.length];
            for (int i = 0; i < f.length; i++) {
                v[i] = Double.parseDouble(f[i]);
            }
            return v;
        }

        long allocatedBytes() {
            final Matcher m = Pattern.compile("# allocated bytes/op: [0-9.]+ \\((\\d+) bytes in").matcher(err);
            assertTrue(m.find(), err);
            return Long.parseLong(m.group(1));
        }
    }

    static Run run(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PerftestCommand c = new PerftestCommand();
        c.out = new PrintStream(out, true, StandardCharsets.UTF_8);
        c.err = new PrintStream(err, true, StandardCharsets.UTF_8);
        final int rc = new CommandLine(c).execute(args);
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource({
        "am_lat, short, 8", "am_lat, bcopy, 64", "am_lat, zcopy, '8,100'",
        "put_lat, short, 8", "put_lat, bcopy, 1000", "put_lat, zcopy, '16,48'",
        "add_lat, short, 8", "add_lat, short, 4",
        "get, bcopy, 8", "get, zcopy, '8,16'",
        "fadd, short, 8", "swap, short, 8", "cswap, short, 8", "cswap, short, 4",
        "am_bw, short, 8", "am_bw, bcopy, 1024", "am_bw, zcopy, 4096",
        "put_bw, short, 8", "put_bw, bcopy, 1024", "put_bw, zcopy, 65536",
        "add_mr, short, 8"})
    @Timeout(60)
    void shouldRunOnSelfWithSaneNumbers(final String test, final String layout, final String sizes) {
        final int n = 3000;
        final Run r = run("-l", "-x", "self", "-t", test, "-D", layout, "-s", sizes, "-n", "" + n, "-w", "200", "-f");
        assertEquals(0, r.rc(), r.err());
        final double[] v = r.finalNumbers();
        assertEquals(8, v.length, r.out());
        assertEquals(n, (long) v[0], "iterations");
        final long size = PerfParams.parseSizes(sizes).length == 1 ? Long.parseLong(sizes)
            : java.util.Arrays.stream(PerfParams.parseSizes(sizes)).sum();
        final double lat = v[3];
        final double mbs = v[5];
        final double rate = v[7];
        assertTrue(lat > 0 && rate > 0 && v[1] > 0, r.out());
        // one message per iteration: rate = 1 / time per iteration, bandwidth = size * rate in 2^20 bytes
        // (latency is printed to 0.001 us: at 0.034 us that rounding alone is 1.5 % of the rate)
        assertEquals(1e6 / lat, rate, rate * 0.01 + 1e6 * 0.0005 / (lat * lat), r.out());
        assertEquals(size * rate / (1 << 20), mbs, Math.max(0.02, mbs * 0.01), r.out());
        // a single final interval: average = overall
        assertEquals(v[3], v[2], 1e-3 + v[3] * 1e-6, r.out());
        assertTrue(r.out().contains("|     Test     | # iterations |"), r.out());
    }

    @Test
    @Timeout(240)
    void shouldAllocateNothingPerOperationInTheTimedLoop() {
        for (final String test : new String[] {"am_lat", "put_lat", "add_lat", "fadd", "cswap", "am_bw", "put_bw",
            "add_mr"}) {
            // the best of up to three runs: a recompilation or a preemption can land in one timed loop, an
            // allocation per operation (20000 x 16 B or more) shows in every one
            final java.util.List<Long> seen = new java.util.ArrayList<>();
            Run r;
            do {
                r = run("-l", "-x", "self", "-t", test, "-n", "20000", "-w", "60000", "-f");
                assertEquals(0, r.rc(), r.err());
                seen.add(r.allocatedBytes());
            } while (r.allocatedBytes() >= 300 && seen.size() < 3);
            assertTrue(r.allocatedBytes() < 300, test + ": bytes allocated in each timed loop " + seen + "; " + r.err());
        }
    }

    @Test
    @Timeout(60)
    void shouldPrintTheLoopbackTableAndCsv() {
        final Run table = run("-l", "-x", "self", "-t", "put_bw", "-n", "100", "-w", "0");
        assertEquals(0, table.rc(), table.err());
        final String[] lines = table.out().split("\n");
        assertTrue(lines[0].startsWith("+----"), table.out());
        assertTrue(lines[2].startsWith("| Test:         put bandwidth / message rate"), table.out());
        assertTrue(table.out().contains("|    Stage     | # iterations |"), table.out());
        assertTrue(lines[lines.length - 1].startsWith("Final:                   100 "), table.out());

        final Run csv = run("-l", "-x", "self", "-t", "am_lat", "-n", "100", "-w", "0", "-v", "-R", "99");
        assertEquals(0, csv.rc(), csv.err());
        final String[] c = csv.out().strip().split("\n");
        // as ucx_perftest -l -v: the box without its closing rule, then the CSV lines
        assertTrue(c[6].startsWith("| Message size: 8 "), csv.out());
        assertEquals("iterations,99.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr", c[7]);
        assertTrue(c[c.length - 1].matches("100,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9]+,[0-9]+"), csv.out());
    }

    @Test
    @Timeout(60)
    void shouldRejectWhatTheTransportCannotDo() {
        final Run getShort = run("-l", "-x", "self", "-t", "get", "-n", "10");
        assertEquals(1, getShort.rc());
        assertTrue(getShort.err().contains("does not support operation get short"), getShort.err());
        final Run amTiny = run("-l", "-x", "self", "-t", "am_lat", "-s", "4", "-n", "10");
        assertEquals(1, amTiny.rc());
        assertTrue(amTiny.err().contains("AM header size (8) is larger than message size (4)"), amTiny.err());
        final Run atomicSize = run("-l", "-x", "self", "-t", "fadd", "-s", "16", "-n", "10");
        assertEquals(1, atomicSize.rc());
        assertTrue(atomicSize.err().contains("4 or 8 bytes"), atomicSize.err());
        final Run noTl = run("-l", "-x", "nosuch", "-n", "10");
        assertEquals(1, noTl.rc());
        assertTrue(noTl.err().contains("unknown transport 'nosuch'"), noTl.err());
        final Run noDev = run("-l", "-x", "self", "-d", "eth9", "-n", "10");
        assertEquals(1, noDev.rc());
        assertTrue(noDev.err().contains("no device 'eth9'"), noDev.err());
        final Run ucpLayout = run("-l", "-x", "self", "-t", "put_bw", "-D", "contig", "-n", "10");
        assertEquals(1, ucpLayout.rc());
        assertTrue(ucpLayout.err().contains("for protocol-layer tests"), ucpLayout.err());
        final Run loopHost = run("-l", "localhost");
        assertEquals(1, loopHost.rc());
    }

    @Test
    @Timeout(60)
    void shouldWriteEachMeasuredIterationToTheTrace(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
        throws java.io.IOException {
        final java.nio.file.Path file = dir.resolve("trace.txt");
        final Run r = run("-l", "-x", "self", "-t", "am_lat", "-n", "500", "-w", "20", "-f", "--trace", file.toString());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().contains("# trace: " + file), r.err());
        final java.util.List<String> lines = java.nio.file.Files.readAllLines(file);
        assertTrue(lines.get(0).startsWith("# iteration ns"), lines.get(0));
        // every measured iteration (none of the warm-up), in order, each with a time
        assertEquals(501, lines.size(), "header and one line per measured iteration");
        for (int i = 1; i < lines.size(); i++) {
            final String[] f = lines.get(i).split(" ");
            assertEquals(i - 1, Long.parseLong(f[0]), lines.get(i));
            assertTrue(Long.parseLong(f[1]) > 0, lines.get(i));
        }
        // an unwritable trace is a clear error, not a stack trace
        final Run bad = run("-l", "-x", "self", "-t", "am_lat", "-n", "10", "-w", "0", "-f", "--trace", dir.toString());
        assertEquals(1, bad.rc(), bad.err());
        assertTrue(bad.err().contains("cannot write the trace to " + dir), bad.err());
    }
}
