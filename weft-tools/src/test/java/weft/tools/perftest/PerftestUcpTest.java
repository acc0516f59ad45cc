package weft.tools.perftest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol-layer tests (tag_lat, tag_bw, tag_sync_lat, tag_sync_bw) end to end: in loopback
 * (two workers in this process) over each transport set and across the eager/rendezvous
 * protocols, and as server and client in two JVMs.
 */
class PerftestUcpTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (final Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Checks the final line's arithmetic as PerftestLoopbackTest does; returns the numbers. */
    static double[] checkFinal(final PerftestLoopbackTest.Run r, final long n, final long size) {
        assertEquals(0, r.rc(), r.out() + r.err());
        final double[] v = r.finalNumbers();
        assertEquals(8, v.length, r.out());
        assertEquals(n, (long) v[0], "iterations");
        final double lat = v[3];
        final double rate = v[7];
        assertTrue(lat > 0 && rate > 0 && v[1] > 0, r.out());
        assertEquals(1e6 / lat, rate, rate * 0.01, r.out());
        assertEquals(size * rate / (1 << 20), v[5], Math.max(0.02, v[5] * 0.01), r.out());
        return v;
    }

    @ParameterizedTest
    @CsvSource({
        "tag_lat, shm, 8", "tag_bw, shm, 8", "tag_sync_lat, shm, 8", "tag_sync_bw, shm, 8",
        "tag_lat, tcp, 8", "tag_bw, tcp, 8", "tag_sync_lat, tcp, 8", "tag_sync_bw, tcp, 8",
        // multi-fragment eager and rendezvous (shm: get over cma; tcp: get over tcp)
        "tag_lat, shm, 20000", "tag_bw, shm, 1048576", "tag_sync_bw, shm, 100000", "tag_bw, tcp, 1048576"})
    @Timeout(60)
    void shouldRunInLoopback(final String test, final String tls, final long size) {
        final long n = size > 10000 ? 300 : 3000;
        final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", tls, "-t", test, "-s", "" + size,
            "-n", "" + n, "-w", "100", "-f");
        checkFinal(r, n, size);
        assertTrue(r.out().contains("| API:          protocol layer"), r.out());
        assertTrue(r.out().contains("| Data layout:  (automatic)"), r.out());
        assertTrue(r.out().contains(test.endsWith("bw") ? "overhead (usec)" : "latency (usec)"), r.out());
        // the lanes the endpoint chose, and the protocol thresholds, follow the result
        assertTrue(r.err().contains("# lane 0: " + tls + "/"), r.err());
        assertTrue(r.err().contains("# tag_send: 0.."), r.err());
        // the initiator's interface counters: its AM lane sent at least the measured messages
        final java.util.regex.Matcher tx = java.util.regex.Pattern
            .compile("# counters " + tls + "/\\S+: .*tx_messages=(\\d+)").matcher(r.err());
        assertTrue(tx.find(), r.err());
        assertTrue(Long.parseLong(tx.group(1)) >= n, r.err());
        r.allocatedBytes(); // printed (parsed)
    }

    @Test
    @Timeout(60)
    void shouldPrintTheTestBoxAndIntermediateLines() {
        final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", "tag_sync_lat",
            "-n", "200", "-w", "0");
        assertEquals(0, r.rc(), r.err());
        final String[] lines = r.out().split("\n");
        assertTrue(lines[1].startsWith("| API:          protocol layer"), r.out());
        assertTrue(lines[2].startsWith("| Test:         tag sync match latency"), r.out());
        assertTrue(lines[lines.length - 1].startsWith("Final:                   200 "), r.out());
    }

    @Test
    @Timeout(60)
    void shouldRejectWhatItCannotRun() {
        final PerftestLoopbackTest.Run dev = PerftestLoopbackTest.run("-l", "-x", "tcp", "-d", "lo", "-t", "tag_lat",
            "-n", "10");
        assertEquals(1, dev.rc());
        assertTrue(dev.err().contains("WEFT_<TL>_DEVICES"), dev.err());
        final PerftestLoopbackTest.Run tl = PerftestLoopbackTest.run("-l", "-x", "nosuch", "-t", "tag_lat", "-n", "10");
        assertEquals(1, tl.rc());
        assertTrue(tl.err().contains("no usable transport"), tl.err());
        final PerftestLoopbackTest.Run iov = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", "stream_bw", "-D", "iov",
            "-n", "10");
        assertEquals(1, iov.rc());
        assertTrue(iov.err().contains("-D iov is supported by the tag tests only"), iov.err());
    }

    /**
     * Starts {@code weft perftest} as a server JVM on {@code port} with {@code WEFT_TLS=tls} and the
     * {@code extra} options, its output to {@code outFile}; adds it to {@code started} (killed after the test).
     */
    static Process spawnServer(final List<Process> started, final Path outFile, final String tls, final int port,
                               final String... extra) throws IOException {
        final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), "weft.tools.Main", "perftest", "-p", "" + port, "--timeout", "30"));
        cmd.addAll(List.of(extra));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outFile.toFile());
        pb.environment().put("WEFT_TLS", tls);
        final Process p = pb.start();
        started.add(p);
        return p;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @ParameterizedTest
    @CsvSource({"tag_lat, shm, 8", "tag_sync_bw, tcp, 8", "tag_bw, shm, 1048576"})
    @Timeout(90)
    void shouldRunAcrossTwoProcesses(final String test, final String tls, final long size,
                                     @org.junit.jupiter.api.io.TempDir final Path dir) throws Exception {
        final int port = freePort();
        final Path so = dir.resolve("server.txt");
        // the server takes its transports from its own WEFT_TLS; the client names the same set with -x
        final Process server = spawnServer(started, so, tls, port);
        final long n = size > 10000 ? 200 : 2000;
        final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("127.0.0.1", "-p", "" + port, "-x", tls, "-t",
            test, "-s", "" + size, "-n", "" + n, "-w", "100", "-f", "--timeout", "30");
        assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server did not exit");
        final String sout = Files.readString(so);
        assertEquals(0, server.exitValue(), sout);
        checkFinal(r, n, size);
        assertTrue(sout.contains("| API:          protocol layer"), sout);
        assertTrue(r.err().contains("# lane 0: " + tls + "/"), r.err());
        if (tls.equals("shm")) {
            assertTrue(r.err().contains("cma/memory [rma_bw"), "shm means shm+cma+self: " + r.err());
        }
    }
}
