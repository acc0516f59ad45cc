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
            final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", "shm", "-t", test, "-n", "20000",
                "-w", "60000", "-f");
            assertEquals(0, r.rc(), r.err());
            // one object per operation would be >= 16 B x 20 000; what remains is one-off (pool growth, JIT)
            assertTrue(r.allocatedBytes() < 1024, test + ": " + r.err());
        }
    }

}
