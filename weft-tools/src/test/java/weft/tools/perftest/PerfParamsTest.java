package weft.tools.perftest;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Option parsing and the parameters sent from client to server. */
class PerfParamsTest {
    private static PerftestCommand parse(final String... args) {
        final PerftestCommand c = new PerftestCommand();
        new CommandLine(c).parseArgs(args);
        return c;
    }

    @Test
    void shouldUseUcxPerftestDefaults() {
        final PerftestCommand c = parse("-x", "self");
        assertNull(c.host);
        assertEquals(13337, c.port);
        final PerfParams p = c.params();
        assertEquals(PerfTestKind.AM_LAT, p.test());
        assertEquals(8, p.messageSize());
        assertEquals(1_000_000, p.iterations());
        assertEquals(10_000, p.warmup());
        assertEquals(PerfParams.Layout.SHORT, p.layout());
        assertEquals(127, p.window());
        assertEquals(50.0, p.percentile());
        assertEquals(PerfParams.DEFAULT_OUTSTANDING, p.maxOutstanding());
    }

    @Test
    void shouldTakeUcxPerftestsWindowWhereItHasOne() {
        for (final String t : new String[] {"tag_bw", "tag_sync_bw", "ucp_put_bw", "ucp_am_bw"}) {
            assertEquals(32, parse("-t", t).params().maxOutstanding(), t);
            assertEquals(4, parse("-t", t, "-O", "4").params().maxOutstanding(), t + " -O 4");
        }
        assertEquals(PerfParams.DEFAULT_OUTSTANDING, parse("-t", "am_bw", "-x", "self").params().maxOutstanding());
        assertEquals(PerfParams.DEFAULT_OUTSTANDING, parse("-t", "ucp_get").params().maxOutstanding());
    }

    @Test
    void shouldParseEveryOption() {
        final PerftestCommand c = parse("localhost", "-t", "put_bw", "-s", "16,48,8192", "-n", "500", "-w", "7",
            "-c", "1", "-O", "4", "-W", "32", "-R", "99.9", "-p", "20000", "-f", "-v", "-x", "self", "-d", "memory",
            "-D", "zcopy");
        assertEquals("localhost", c.host);
        assertEquals(20000, c.port);
        assertTrue(c.finalOnly && c.csv);
        assertEquals("1", c.cpus);
        final PerfParams p = c.params();
        assertEquals(PerfTestKind.PUT_BW, p.test());
        assertArrayEquals(new long[] {16, 48, 8192}, p.sizes());
        assertEquals(16 + 48 + 8192, p.messageSize());
        assertEquals(500, p.iterations());
        assertEquals(7, p.warmup());
        assertEquals(4, p.maxOutstanding());
        assertEquals(32, p.window());
        assertEquals(99.9, p.percentile());
        assertEquals("memory", p.device());
        assertEquals(PerfParams.Layout.ZCOPY, p.layout());
    }

    @Test
    void shouldRejectUnknownAndUcpTestsClearly() {
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> parse("-t", "nosuch").params());
        assertTrue(unknown.getMessage().contains("unknown test 'nosuch'"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("am_lat"), unknown.getMessage());
        // every ucx_perftest UCP test name is known; the protocol-layer tests take their transports from WEFT_TLS
        for (final String t : new String[] {"ucp_put_lat", "ucp_put_bw", "ucp_get", "ucp_add", "ucp_fadd", "ucp_swap",
            "ucp_cswap", "stream_bw", "stream_lat", "ucp_am_lat", "ucp_am_bw"}) {
            final PerfParams ucp = parse("-t", t).params();
            assertTrue(ucp.test().isUcp() && ucp.transport().isEmpty(), t);
        }
        assertEquals(PerfParams.Layout.IOV, parse("-t", "tag_lat", "-D", "iov", "-s", "8,16").params().layout());
        assertEquals(PerfParams.Layout.CONTIG, parse("-t", "tag_lat", "-D", "contig").params().layout());
        final PerfParams tag = parse("-t", "tag_lat").params();
        assertTrue(tag.test().isUcp() && tag.transport().isEmpty(), "tag_lat without -x: transports from WEFT_TLS");
        assertEquals("shm", parse("-t", "tag_bw", "-x", "shm").params().transport());
        assertThrows(IllegalArgumentException.class, () -> parse("-D", "shortiov").params());
        assertThrows(IllegalArgumentException.class, () -> parse("-s", "8,x").params());
        assertThrows(IllegalArgumentException.class, () -> parse("-n", "0").params());
        assertThrows(IllegalArgumentException.class, () -> parse("-R", "0").params());
        assertThrows(CommandLine.ParameterException.class, () -> parse("-n", "many"));
    }

    @Test
    void shouldRoundTripParametersOnTheWire() {
        final PerfParams p = parse("-t", "cswap", "-s", "4", "-n", "123", "-w", "4", "-O", "9", "-W", "5",
            "-R", "90", "-x", "tcp", "-d", "lo", "-D", "bcopy").params();
        final PerfParams q = PerfParams.decode(p.encode());
        assertEquals(p.test(), q.test());
        assertArrayEquals(p.sizes(), q.sizes());
        assertEquals(p.iterations(), q.iterations());
        assertEquals(p.warmup(), q.warmup());
        assertEquals(p.layout(), q.layout());
        assertEquals(p.outstanding(), q.outstanding());
        assertEquals(p.window(), q.window());
        assertEquals(p.percentile(), q.percentile());
        assertEquals("tcp", q.transport());
        assertEquals("lo", q.device());
    }

    @Test
    void shouldRejectMalformedParameters() {
        final byte[] good = parse("-x", "self").params().encode();
        assertThrows(IllegalArgumentException.class,
            () -> PerfParams.decode(java.util.Arrays.copyOf(good, good.length - 3)));
        assertThrows(IllegalArgumentException.class,
            () -> PerfParams.decode(java.util.Arrays.copyOf(good, good.length + 1)));
        assertThrows(IllegalArgumentException.class, () -> PerfParams.decode(new byte[] {1, 2, 3}));
    }
}
