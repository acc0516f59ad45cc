package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import weft.ucs.Status;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rendezvous caches ({@link RndvCache}) reuse only what is still right: more distinct buffers than
 * slots rotate with correct data, and a buffer of a closed arena is never matched by new memory (even at
 * the same address): its registration is dropped and the new buffer registered afresh.
 */
@Timeout(60)
class RndvCacheTest {
    private static final int SIZE = 64 * 1024;

    @ParameterizedTest(name = "{0} scheme={1}")
    @CsvSource({"shm;cma;self, get", "shm;cma;self, put", "tcp, get", "tcp, put"})
    void cachedRegistrationsAndKeysStayCorrect(final String tls, final String scheme) {
        final Config cfg = Config.global().with("KEEPALIVE_INTERVAL", "10m").with("RNDV_SCHEME", scheme)
            .with("RNDV_THRESH", "8k");
        try (Context ctx = Context.builder().features(Feature.TAG).transports(tls.split(";")).config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment[] src = new MemorySegment[7]; // more buffers than cache slots (4)
            final MemorySegment[] dst = new MemorySegment[7];
            for (int i = 0; i < src.length; i++) {
                src[i] = arena.allocate(SIZE, 64);
                dst[i] = arena.allocate(SIZE, 64);
            }
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < src.length; i++) { // twice each: the second one hits
                    transfer(a, b, ab, src[i], dst[(i + round) % dst.length], round * 100 + 2 * i);
                    transfer(a, b, ab, src[i], dst[(i + round) % dst.length], round * 100 + 2 * i + 1);
                }
            }
            final Endpoint ba = b.endpoints().getFirst();
            assertTrue(ab.rndvCache.registrationHits + ba.rndvCache.registrationHits > 0, "the caches are used");
            // a closed arena's buffer, then new memory (the allocator may well hand out the same address)
            for (int k = 0; k < 3; k++) {
                final long hits = ab.rndvCache.registrationHits + ba.rndvCache.registrationHits;
                try (Arena gone = Arena.ofConfined()) {
                    final MemorySegment s = gone.allocate(SIZE, 64);
                    final MemorySegment d = gone.allocate(SIZE, 64);
                    transfer(a, b, ab, s, d, 1000 + k);
                }
                assertEquals(hits, ab.rndvCache.registrationHits + ba.rndvCache.registrationHits,
                    "a new arena's buffer must not hit a cached registration");
            }
        }
    }

    private static void transfer(final Worker a, final Worker b, final Endpoint ab, final MemorySegment src,
                                 final MemorySegment dst, final int seed) {
        for (long o = 0; o < SIZE; o += 8) {
            src.set(ValueLayout.JAVA_LONG, o, seed * 31L + o);
        }
        dst.fill((byte) 0);
        final Request r = b.recvTag(dst, 0, SIZE, seed, -1L);
        final Request s = ab.sendTag(seed, src, 0, SIZE);
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!r.isCompleted() || !s.isCompleted()) {
            a.progress();
            b.progress();
            assertTrue(System.nanoTime() < deadline, "message " + seed + " did not complete");
        }
        assertEquals(Status.OK, s.status(), "send " + seed);
        assertEquals(Status.OK, r.status(), "receive " + seed);
        r.release();
        s.release();
        for (long o = 0; o < SIZE; o += 8) {
            if (dst.get(ValueLayout.JAVA_LONG, o) != seed * 31L + o) {
                throw new AssertionError("message " + seed + ": wrong data at " + o);
            }
        }
    }
}
