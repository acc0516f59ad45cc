package weft.uct.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Worker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol layer's registrations reach the tcp domain's registration cache: mapping the same
 * segment twice, and rendezvous (get) sends from inside a mapped heap, are lookups, and leave no
 * registration behind.
 */
@Timeout(60)
class TcpRegistrationCacheInUseTest {
    private static final TcpMemoryDomain MD = TcpMemoryDomain.INSTANCE;

    @Test
    void shouldAnswerRepeatedMapsAndRendezvousRegistrationsFromTheCache() {
        final Config cfg = Config.global().with("RNDV_SCHEME", "get").with("RNDV_THRESH", "16k");
        try (Context ctx = Context.builder().features(Feature.values()).transports("tcp").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofShared()) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment mem = arena.allocate(1 << 20, 4096);
            final int regions = MD.cachedRegions();
            long hits = MD.cacheHits();
            try (MemoryMap m1 = ctx.memMap(mem, 0); MemoryMap m2 = ctx.memMap(mem, 0)) {
                assertEquals(hits + 1, MD.cacheHits(), "the second map of the same memory is a lookup");
                assertEquals(regions + 1, MD.cachedRegions());
                final MemorySegment dst = arena.allocate(256 << 10);
                for (int i = 0; i < 4; i++) {
                    mem.asSlice(i * 1000L, 8).set(ValueLayout.JAVA_LONG, 0, 1000L + i);
                    hits = MD.cacheHits();
                    final Request r = b.recvTag(dst, 0, dst.byteSize(), 5, -1L);
                    final Request s = ab.sendTag(5, mem, i * 1000L, 256 << 10); // rendezvous: registers the buffer
                    final long deadline = System.nanoTime() + 20_000_000_000L;
                    while (!(r.isCompleted() && s.isCompleted())) {
                        a.progress();
                        b.progress();
                        assertTrue(System.nanoTime() < deadline, "rendezvous did not complete");
                    }
                    assertEquals(Status.OK, r.status());
                    assertEquals(Status.OK, s.status());
                    r.release();
                    s.release();
                    assertEquals(1000L + i, dst.get(ValueLayout.JAVA_LONG, 0));
                    assertTrue(MD.cacheHits() > hits, "send " + i + ": the rendezvous registration was a lookup");
                    assertEquals(regions + 1, MD.cachedRegions(), "send " + i + ": no new registration kept");
                }
            }
            // the endpoint's rendezvous cache (RndvCache) keeps its registration until the endpoint closes
            assertEquals(regions + 1, MD.cachedRegions(), "both maps closed: the rendezvous cache still holds it");
            ab.close();
            assertEquals(regions, MD.cachedRegions(), "maps and endpoint closed: the registration is gone");
        }
    }
}
