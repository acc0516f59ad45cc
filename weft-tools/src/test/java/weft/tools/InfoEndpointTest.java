package weft.tools;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code weft info -e}: the output is parsed and the lanes fit the kind of peer. */
class InfoEndpointTest {
    private static final Pattern LANE = Pattern.compile("^#   lane (\\d+): (\\S+)/(\\S+) -> (\\S+)/(\\S+) \\[(.*)]$");
    private static final Pattern TAG = Pattern.compile(
        "^#   tag_send: 0\\.\\.(\\d+) eager short, \\.\\.(\\d+) eager bcopy \\(([^)]*)\\)"
            + "(?:, \\.\\.(\\d+) eager (?:zcopy \\(fragments of \\d+\\)|get \\(pool of the AM lane's memory\\)))?"
            + ", (\\d+)\\.\\. rendezvous \\((get|put|am)\\)$");

    /** One parsed lane: local transport/device, peer transport/device, roles. */
    record Lane(String tl, String dev, String peerTl, String peerDev, String roles) {
    }

    record Parsed(List<Lane> lanes, long maxShort, long lastEager, long rndv) {
        Lane am() {
            return lanes.stream().filter(l -> l.roles.contains("am")).findFirst().orElseThrow();
        }
    }

    static Parsed printAndParse(final String kind) {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        InfoCommand.printEndpoint(new PrintStream(b, true, StandardCharsets.UTF_8), kind);
        final String out = b.toString(StandardCharsets.UTF_8);
        final List<Lane> lanes = new ArrayList<>();
        long maxShort = -1;
        long lastEager = -1;
        long rndv = -1;
        for (final String line : out.split("\n")) {
            final Matcher l = LANE.matcher(line);
            if (l.matches()) {
                assertEquals(lanes.size(), Integer.parseInt(l.group(1)), out);
                lanes.add(new Lane(l.group(2), l.group(3), l.group(4), l.group(5), l.group(6)));
            }
            final Matcher t = TAG.matcher(line);
            if (t.matches()) {
                maxShort = Long.parseLong(t.group(1));
                final long lastBcopy = Long.parseLong(t.group(2));
                // eager zero-copy or eager get, where the lane has it, follows bcopy without a gap
                lastEager = t.group(4) == null ? lastBcopy : Long.parseLong(t.group(4));
                assertTrue(lastEager >= lastBcopy, line);
                rndv = Long.parseLong(t.group(5));
            }
        }
        assertFalse(lanes.isEmpty(), out);
        assertTrue(maxShort >= 0, "no tag_send line: " + out);
        // the size ranges are contiguous and in protocol order
        assertTrue(maxShort < rndv && lastEager + 1 == rndv, out);
        assertEquals(1, lanes.stream().filter(x -> x.roles.matches("(^|.*, )am(,.*|$)")).count(), out);
        return new Parsed(lanes, maxShort, lastEager, rndv);
    }

    @Test
    @Timeout(30)
    void shouldUseSelfForTheSameWorker() {
        final Parsed p = printAndParse("self");
        assertEquals("self", p.am().tl(), p.toString());
    }

    @Test
    @Timeout(30)
    void shouldUseSharedMemoryOnTheSameNode() {
        final Parsed p = printAndParse("node");
        assertEquals("shm", p.am().tl(), p.toString());
        for (final Lane l : p.lanes()) {
            assertFalse(l.tl().equals("self"), "self does not reach another worker: " + p);
        }
    }

    @Test
    @Timeout(30)
    void shouldUseOnlyTheNetworkForAnotherNode() throws Exception {
        boolean haveNonLoopback = false;
        for (final java.net.NetworkInterface ni : java.util.Collections.list(
            java.net.NetworkInterface.getNetworkInterfaces())) {
            haveNonLoopback |= ni.isUp() && !ni.isLoopback() && ni.getInterfaceAddresses().stream()
                .anyMatch(a -> a.getAddress() instanceof java.net.Inet4Address);
        }
        if (!haveNonLoopback) {
            assertThrows(IllegalArgumentException.class, () -> printAndParse("remote"));
            Assumptions.abort("no non-loopback IPv4 device here: checked the error only");
        }
        final Parsed p = printAndParse("remote");
        for (final Lane l : p.lanes()) {
            assertEquals("tcp", l.tl(), p.toString());
            assertEquals("tcp", l.peerTl(), p.toString());
            assertFalse(java.net.NetworkInterface.getByName(l.peerDev()).isLoopback(), p.toString());
        }
    }

    @Test
    @Timeout(30)
    void shouldRejectAnUnknownPeerKind() {
        assertThrows(IllegalArgumentException.class, () -> printAndParse("mars"));
        final PrintStream saved = System.err;
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertEquals(1, new CommandLine(new InfoCommand()).execute("-e", "--peer", "mars"));
        } finally {
            System.setErr(saved);
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown peer kind 'mars'"), err.toString());
    }
}
