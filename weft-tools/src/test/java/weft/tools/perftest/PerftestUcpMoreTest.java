package weft.tools.perftest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import weft.ucp.Context;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one-sided (ucp_put_lat, ucp_put_bw, ucp_get, ucp_add, ucp_fadd, ucp_swap, ucp_cswap), stream
 * (stream_lat, stream_bw) and active-message (ucp_am_lat, ucp_am_bw) protocol-layer tests end to
 * end: in loopback over shm and tcp, across two JVMs, and with one server serving several clients
 * in a row (-S). Every run checks the data: the put tests' peer checks what arrived, gets and
 * fetching atomics check each result, the atomic counter ends at the number of operations, and
 * every stream or active message is checked against the sender's pattern.
 */
class PerftestUcpMoreTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (final Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "ucp_put_lat, shm, 8", "ucp_put_bw, shm, 8", "ucp_get, shm, 8", "ucp_add, shm, 8", "ucp_fadd, shm, 8",
        "ucp_swap, shm, 8", "ucp_cswap, shm, 8",
        "ucp_put_lat, tcp, 8", "ucp_put_bw, tcp, 8", "ucp_get, tcp, 8", "ucp_add, tcp, 8", "ucp_fadd, tcp, 8",
        "ucp_swap, tcp, 8", "ucp_cswap, tcp, 8",
        // 32-bit atomics, sizes that take several pieces or another protocol
        "ucp_fadd, tcp, 4", "ucp_cswap, shm, 4", "ucp_add, shm, 4", "ucp_swap, tcp, 4",
        "ucp_put_lat, shm, 4096", "ucp_put_bw, tcp, 1048576", "ucp_get, shm, 1048576", "ucp_get, tcp, 4096",
        "stream_lat, shm, 8", "stream_bw, shm, 8", "ucp_am_lat, shm, 8", "ucp_am_bw, shm, 8",
        "stream_lat, tcp, 8", "stream_bw, tcp, 8", "ucp_am_lat, tcp, 8", "ucp_am_bw, tcp, 8",
        // multi-fragment and rendezvous active messages, large stream messages
        "ucp_am_lat, shm, 100000", "ucp_am_bw, tcp, 1048576", "ucp_am_bw, shm, 1048576", "stream_bw, shm, 100000"})
    @Timeout(60)
    void shouldRunInLoopback(final String test, final String tls, final long size) {
        final long n = size > 10000 ? 200 : 2000;
        final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", tls, "-t", test, "-s", "" + size,
            "-n", "" + n, "-w", "100", "-f");
        PerftestUcpTest.checkFinal(r, n, size);
        final PerfTestKind kind = PerfTestKind.byName(test);
        assertTrue(r.out().contains("| Test:         " + kind.description()), r.out());
        assertTrue(r.out().contains(kind.timeColumn() + " (usec)"), r.out());
        assertTrue(r.err().contains("# lane 0: " + tls + "/"), r.err());
        if (kind.isUcpRma()) {
            assertTrue(r.err().contains("# remote key rma="), "the lanes of the peer's key: " + r.err());
        }
    }

    @Test
    @Timeout(60)
    void shouldUseTheUcxColumnsAndDescriptions() {
        // as ucx_perftest 1.13 prints them
        assertEquals("overhead", PerfTestKind.UCP_PUT_BW.timeColumn());
        assertEquals("overhead", PerfTestKind.UCP_ADD.timeColumn());
        assertEquals("overhead", PerfTestKind.STREAM_BW.timeColumn());
        assertEquals("overhead", PerfTestKind.UCP_AM_BW.timeColumn());
        assertEquals("latency", PerfTestKind.UCP_GET.timeColumn());
        assertEquals("latency", PerfTestKind.UCP_FADD.timeColumn());
        assertEquals("atomic fetch-and-add latency / bandwidth / rate", PerfTestKind.UCP_FADD.description());
        assertEquals(2.0, PerfTestKind.UCP_PUT_LAT.factor());
        assertEquals(1.0, PerfTestKind.UCP_GET.factor());
        final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", "ucp_get", "-n", "100",
            "-w", "0");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().contains("| API:          protocol layer"), r.out());
        assertTrue(r.out().contains("| Test:         get latency / bandwidth / message rate"), r.out());
    }

    @Test
    @Timeout(60)
    void shouldRejectWhatTheOneSidedTestsCannotRun() {
        final PerftestLoopbackTest.Run atomicSize = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", "ucp_fadd",
            "-s", "16", "-n", "10");
        assertEquals(1, atomicSize.rc());
        assertTrue(atomicSize.err().contains("ucp_fadd needs a message size of 4 or 8 bytes"), atomicSize.err());
        final PerftestLoopbackTest.Run empty = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", "ucp_put_lat",
            "-s", "0", "-n", "10");
        assertEquals(1, empty.rc());
        assertTrue(empty.err().contains("at least 1 byte"), empty.err());
        final PerftestLoopbackTest.Run iov = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", "ucp_put_bw", "-D",
            "iov", "-n", "10");
        assertEquals(1, iov.rc());
        assertTrue(iov.err().contains("-D iov is supported by the tag tests only"), iov.err());
    }

    @ParameterizedTest
    @CsvSource({"tag_lat, '16,48,8192'", "tag_bw, '8,100000'", "tag_sync_bw, '3,5'"})
    @Timeout(60)
    void shouldSendTagMessagesAsScatterGatherLists(final String test, final String sizes) {
        final long size = java.util.Arrays.stream(PerfParams.parseSizes(sizes)).sum();
        final long n = size > 10000 ? 200 : 1000;
        final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", test, "-s", sizes, "-D",
            "iov", "-n", "" + n, "-w", "50", "-f");
        PerftestUcpTest.checkFinal(r, n, size);
    }

    /** The checks the runs rely on do fail when the data is not there. */
    @Test
    @Timeout(60)
    void shouldFailWhenTheDataDidNotArrive() {
        final PerfParams put = new PerfParams(PerfTestKind.UCP_PUT_BW, new long[] {64}, 10, 0, PerfParams.Layout.SHORT,
            0, 127, 50, "self", "");
        try (Context ctx = UcpRun.context(put); UcpSide side = new UcpSide(ctx, put)) {
            // nobody put anything into this side's region
            final PerfException e = assertThrows(PerfException.class, () -> new UcpRmaResponder(side, 10).verify());
            assertTrue(e.getMessage().contains("the peer's puts did not arrive: byte 0"), e.getMessage());
            side.region.segment().copyFrom(side.send.asSlice(0, 64)); // what the puts would have written
            new UcpRmaResponder(side, 10).verify();
        }
        final PerfParams add = new PerfParams(PerfTestKind.UCP_ADD, new long[] {8}, 10, 5, PerfParams.Layout.SHORT, 0,
            127, 50, "self", "");
        try (Context ctx = UcpRun.context(add); UcpSide side = new UcpSide(ctx, add)) {
            final PerfException e = assertThrows(PerfException.class, () -> new UcpRmaResponder(side, 15).verify());
            assertTrue(e.getMessage().contains("the target word is 0, expected 15"), e.getMessage());
        }
        final UcpMessaging m = new UcpMessaging.Stream();
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment buf = a.allocate(100);
            final PerfException e = assertThrows(PerfException.class, () -> m.checkAndClear(buf, 0, 100, true));
            assertTrue(e.getMessage().contains("arrived corrupted"), e.getMessage());
            UcpMessaging.fill(buf, 100);
            m.checkAndClear(buf, 0, 100, true);
            assertEquals(1, m.checked());
            // cleared: the same bytes do not pass twice (a receive that wrote nothing is caught)
            assertThrows(PerfException.class, () -> m.checkAndClear(buf, 0, 100, true));
        }
    }

    private static PerftestLoopbackTest.Run client(final int port, final String test, final String tls,
                                                   final long size, final long n) {
        return PerftestLoopbackTest.run("127.0.0.1", "-p", "" + port, "-x", tls, "-t", test, "-s", "" + size, "-n",
            "" + n, "-w", "100", "-f", "--timeout", "30");
    }

    @ParameterizedTest
    @CsvSource({"ucp_put_lat, shm, 8", "ucp_fadd, tcp, 8", "ucp_put_bw, tcp, 1048576", "stream_lat, tcp, 8",
        "ucp_am_bw, shm, 8"})
    @Timeout(180) // a hang bound: the client (--timeout 30) and the server wait (30 s) bound each side
    void shouldRunAcrossTwoProcesses(final String test, final String tls, final long size, @TempDir final Path dir)
        throws Exception {
        final int port = PerftestUcpTest.freePort();
        final Path so = dir.resolve("server.txt");
        final Process server = PerftestUcpTest.spawnServer(started, so, tls, port);
        final long n = size > 10000 ? 200 : 2000;
        final PerftestLoopbackTest.Run r = client(port, test, tls, size, n);
        assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server did not exit");
        final String sout = Files.readString(so);
        // the server exits 0 only if its checks passed: the puts' data in its region, the counter at 2100, every
        // stream or active message matching the pattern
        assertEquals(0, server.exitValue(), sout);
        PerftestUcpTest.checkFinal(r, n, size);
        assertTrue(sout.contains("| Test:         " + PerfTestKind.byName(test).description()), sout);
        assertTrue(r.err().contains("# lane 0: " + tls + "/"), r.err());
    }

    @Test
    @Timeout(120)
    void shouldServeSeveralClientsInARowAndSurviveAFailedTest(@TempDir final Path dir) throws Exception {
        final int port = PerftestUcpTest.freePort();
        final Path so = dir.resolve("server.txt");
        final Process server = PerftestUcpTest.spawnServer(started, so, "shm", port, "-S", "4");
        final PerftestLoopbackTest.Run put = client(port, "ucp_put_lat", "tcp", 8, 1000);
        PerftestUcpTest.checkFinal(put, 1000, 8);
        // refused by both sides (the server reports it and serves the next client)
        final PerftestLoopbackTest.Run bad = client(port, "ucp_fadd", "shm", 16, 1000);
        assertEquals(1, bad.rc(), bad.out());
        assertTrue(bad.err().contains("4 or 8 bytes"), bad.err());
        final PerftestLoopbackTest.Run am = client(port, "ucp_am_lat", "shm", 8, 1000);
        PerftestUcpTest.checkFinal(am, 1000, 8);
        final PerftestLoopbackTest.Run tag = client(port, "tag_bw", "tcp", 8, 1000);
        PerftestUcpTest.checkFinal(tag, 1000, 8);
        assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server did not exit after its 4 clients");
        final String sout = Files.readString(so);
        assertEquals(1, server.exitValue(), "one of the 4 tests failed: " + sout);
        assertEquals(4, sout.split("Accepted connection from", -1).length - 1, sout);
        assertTrue(sout.contains("test 2 failed"), sout);
    }
}
