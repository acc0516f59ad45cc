package weft.ucp.conformance;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.TagInfo;
import weft.ucp.Worker;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Perftest-style measurement of what error handling costs on the fast path: an idle
 * {@link Worker#progress()} call and an 8-byte tag send + receive + progress through the self lane,
 * best of 5 rounds. Run on demand ({@code -Dtest=KeepaliveCostMeasurement -Dweft.slow=true}); compare with
 * the same class on a build without the keepalive check.
 */
@Tag("slow")
@Timeout(120)
class KeepaliveCostMeasurement {
    @Test
    void progressAndShortTagRoundTripCost() {
        try (Context ctx = Two.context("shm,self", Config.global()); Worker w = ctx.newWorker();
             Context ctx2 = Two.context("shm,self", Config.global()); Worker peer = ctx2.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Endpoint self = w.connect(w.address());
            final Endpoint toPeer = w.connect(peer.address()); // a live shm endpoint for the keepalive to check
            peer.connect(w.address());
            for (int i = 0; i < 1000; i++) {
                w.progress();
                peer.progress();
            }
            final MemorySegment buf = arena.allocate(8);
            final TagInfo info = new TagInfo();
            double bestIdle = Double.MAX_VALUE;
            double bestRt = Double.MAX_VALUE;
            for (int round = 0; round < 5; round++) {
                final int n = 5_000_000;
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    w.progress();
                }
                bestIdle = Math.min(bestIdle, (System.nanoTime() - t0) / (double) n);
                final int m = 1_000_000;
                t0 = System.nanoTime();
                for (int i = 0; i < m; i++) {
                    final Request r = w.recvTag(buf, 0, 8, 5, -1L, info, null);
                    self.sendTag(5, buf, 0, 8);
                    while (!r.isCompleted()) {
                        w.progress();
                    }
                    r.release();
                }
                bestRt = Math.min(bestRt, (System.nanoTime() - t0) / (double) m);
                peer.progress();
            }
            System.out.printf("KEEPALIVE-COST idle progress %.1f ns/call, self 8 B send+recv+progress %.1f ns%n",
                bestIdle, bestRt);
            assertTrue(bestIdle > 0 && toPeer != null);
        }
    }
}
