package weft.ucp.conformance;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.TagInfo;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a keepalive round costs in allocation (in its own JVM, apart from {@link KeepaliveAllocationTest}:
 * the round's downcalls can turn the JDK's capture-segment slicing megamorphic). The keepalive round
 * itself (2 per second per endpoint by default) allocates a few dozen bytes: uct {@code check()} makes
 * capturing downcalls (open/read/close of the peer's stat file on shm, a socket write on tcp), which
 * allocate once the JDK's capture-segment slicing turns megamorphic (ARCHITECTURE.md, "errno capture").
 *
 * <p>Over tcp the short-message path itself allocates 40 B per capturing downcall in some JVM runs (the
 * transport's known errno-capture issue, order dependent), so only the shm set is asserted here.
 */
@Tag("allocation")
@Timeout(60)
class KeepaliveRoundAllocationTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self"}) // tcp: see the class comment
    void aKeepaliveRoundAllocatesOnlyAFewBytes(final String tls) {
        final Config cfg = Config.global().with("KEEPALIVE_INTERVAL", "1ms");
        try (Two t = new Two(tls, cfg); Arena arena = Arena.ofConfined()) {
            final Endpoint[] e = t.connectByAddress();
            final MemorySegment buf = arena.allocate(64);
            final TagInfo info = new TagInfo();
            for (int i = 0; i < 20_000; i++) {
                roundTrip(t, e, buf, info);
            }
            final long t0 = System.nanoTime();
            final long end = t0 + 400_000_000L;
            final long before = AllocationMeter.allocatedBytes();
            while (System.nanoTime() < end) {
                roundTrip(t, e, buf, info);
            }
            final long bytes = AllocationMeter.allocatedBytes() - before;
            final long rounds = 2 * (System.nanoTime() - t0) / 1_000_000; // two workers, one endpoint each
            System.out.printf("keepalive allocation over %s: %d bytes in at most %d keepalive rounds%n", tls, bytes,
                rounds);
            assertTrue(bytes / Math.max(1, rounds) < 256, bytes + " bytes in " + rounds + " keepalive rounds");
            assertEquals(Status.OK, e[0].status());
            assertEquals(Status.OK, e[1].status());
        }
    }

    private static void roundTrip(final Two t, final Endpoint[] e, final MemorySegment buf, final TagInfo info) {
        final Request r = t.b.recvTag(buf, 0, 8, 1, -1L, info, null);
        e[0].sendTag(1, buf, 8, 8);
        while (!r.isCompleted()) {
            t.a.progress();
            t.b.progress();
        }
        r.release();
    }
}
