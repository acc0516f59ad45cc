package weft.tools.perftest;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The protocol-layer perftest loops allocate nothing per message (fresh JVM: tag "allocation"). */
@Tag("allocation")
class PerftestUcpAllocationTest {
    @Test
    @Timeout(60)
    void shouldAllocateNothingPerShortSendAndReceive() {
        // loopback: both workers run on the measuring thread, so this counts the sends and the receives
        for (final String test : new String[] {"tag_lat", "tag_bw", "tag_sync_lat", "tag_sync_bw"}) {
            final int n = 100_000;
            final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", test, "-n", "" + n,
                "-w", "60000", "-f");
            assertEquals(0, r.rc(), r.err());
            // One object per operation would be >= 16 B x n = 1.6 MB. What remains is one-off: report lines, code
            // run once in the interpreter after a deoptimization (seen: 4 kB), and in the bandwidth tests the
            // pools (unexpected messages, requests) reaching a new, bounded peak when the sender gets further
            // ahead than during the warm-up (seen: 29 kB). Typical: 240-300 B per run.
            assertTrue(r.allocatedBytes() < 32 * 1024, test + ": " + r.err());
        }
    }
}
