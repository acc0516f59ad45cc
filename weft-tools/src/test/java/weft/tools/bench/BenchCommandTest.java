package weft.tools.bench;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import javax.imageio.ImageIO;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code weft bench --quick} end to end: a real server JVM, both transport sets, the files it promises. */
class BenchCommandTest {
    @Test
    @Timeout(300) // a hang bound: the run is about a minute on a quiet machine, four on one at load 25
    void quickBenchRunsEndToEndAndWritesTableCsvAndPlots(@TempDir final Path dir) throws Exception {
        final Set<String> shmBefore = shmFiles();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final BenchCommand cmd = new BenchCommand();
        cmd.stdout = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final Path out = dir.resolve("results");
        final int rc = new CommandLine(cmd).execute("--quick", "--no-ucx", "--budget-ms", "20", "-t", "tag_lat,tag_bw",
            "-s", "8,4k",
            "-o", out.toString());
        final String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, text);
        assertTrue(text.contains("[ 1/"), "progress lines while it runs:\n" + text);
        assertTrue(text.contains("shm  (Weft: shared memory"), "the table has a shm section:\n" + text);
        assertTrue(text.contains("\ntcp  (Weft: WEFT_TLS=tcp"), "and a tcp section:\n" + text);

        final List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertTrue(csv.get(0).startsWith("transport,test,size,metric,unit,weft,ucx,weft_over_ucx"), csv.get(0));
        for (final String tl : List.of("shm", "tcp")) {
            for (final String test : List.of("tag_lat", "tag_bw")) {
                final List<String> lines = csv.stream().filter(l -> l.startsWith(tl + "," + test + ",")).toList();
                assertEquals(2, lines.size(), tl + " " + test + " has the two sizes asked for: " + csv);
                for (final String l : lines) {
                    final double weft = Double.parseDouble(l.split(",")[5]);
                    assertTrue(weft > 0, "a real figure: " + l);
                    assertTrue(l.split(",")[2].equals("8") || l.split(",")[2].equals("4096"), "only -s sizes: " + l);
                }
            }
        }
        for (final String png : List.of("latency-shm.png", "bandwidth-shm.png", "latency-tcp.png", "bandwidth-tcp.png")) {
            assertNotNull(ImageIO.read(out.resolve(png).toFile()), png);
        }
        assertTrue(Files.readString(out.resolve("summary.txt")).contains("tag_lat"));
        assertTrue(Files.readString(out.resolve("weft-server.log")).contains("Accepted connection"));
        // the server JVM is gone and left no shared-memory files
        assertEquals(0, ProcessHandle.current().children().filter(ProcessHandle::isAlive).count(),
            "no child process is left");
        assertEquals(shmBefore, shmFiles(), "no /dev/shm leftovers");
    }

    @Test
    @Timeout(60)
    void badOptionsAreRefusedWithAMessage(@TempDir final Path dir) {
        for (final String[] args : List.of(new String[] {"-t", "nosuch"}, new String[] {"-x", "ib"},
            new String[] {"--cpus", "0"}, new String[] {"-s", "8q"}, new String[] {"--quick", "-t", "tag_lat", "-s", "3"})) {
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final BenchCommand cmd = new BenchCommand();
            cmd.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
            final String[] all = Stream.concat(Stream.of("-o", dir.toString()), Stream.of(args)).toArray(String[]::new);
            assertEquals(2, new CommandLine(cmd).execute(all), String.join(" ", args));
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("weft bench: "), err.toString());
        }
    }

    @Test
    void helpListsTheSuitesTests() {
        final java.io.StringWriter help = new java.io.StringWriter();
        final CommandLine cl = new CommandLine(new BenchCommand());
        cl.setOut(new java.io.PrintWriter(help));
        assertEquals(0, cl.execute("-h"));
        for (final String t : BenchPlan.tests()) {
            assertTrue(help.toString().contains(t), t + " in: " + help);
        }
    }

    @Test
    @Timeout(60)
    void ucxAnchorRunsWhenInstalled(@TempDir final Path dir) {
        final UcxSide ucx = UcxSide.find(dir.resolve("ucx.log"), 0, 1);
        Assumptions.assumeTrue(ucx != null, "ucx_perftest is not installed (apt-get install ucx-utils): skipped");
        final Outcome o = ucx.run(new BenchPoint("shm", "tag_lat", 8, Metric.LATENCY, 2000, 200, "tag_lat", 1.0));
        assertNull(o.error(), "ucx_perftest ran");
        assertEquals(2000, o.result().iterations());
        assertTrue(o.result().overallUs() > 0);
    }

    private static Set<String> shmFiles() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }
}
