package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.conformance.Resources;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer process SIGKILLed while a 256 MiB get from its memory is under way: the get completes (an
 * error if it had not finished; shm copies straight from the mapping, so there it is done, with the
 * right data), nothing hangs, later operations fail at once, and every fd, thread and mapping is
 * released. Memory is the peer's allocation (shm, tcp) or its registered memory (cma).
 */
@Timeout(90)
class RmaPeerFailureTest {
    static {
        Two.warmUp();
    }

    private static final long SIZE = 256L << 20;

    static List<String> sets() {
        return ScenarioRunner.TRANSPORT_SETS;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sets")
    void peerKilledDuringLargeGet(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (PeerProcess child = new PeerProcess("address", tls, (tls.contains("cma") ? "reg=" : "map=") + SIZE);
             Context ctx = Two.context(tls, Config.global());
             Worker w = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final byte[] childAddr = HexFormat.of().parseHex(child.expect("ADDR "));
            child.send("ADDR " + HexFormat.of().formatHex(w.address()));
            final byte[] key = HexFormat.of().parseHex(child.expect("RKEY "));
            child.expect("READY");
            final Endpoint ep = w.connect(childAddr);
            final Rkey rk = ep.unpackRkey(key);
            final MemorySegment dst = arena.allocate(SIZE, 4096);
            final Request small = ep.get(dst, 0, 64, rk.base() + 64, rk);
            PeerFailureConformanceTest.await(w, small, 20, "a small get");
            assertEquals(Status.OK, small.status());
            small.release();
            assertEquals(64 * 0x9E3779B97F4A7C15L, dst.get(ValueLayout.JAVA_LONG, 0), "small get data");
            final long t0 = System.nanoTime();
            final Request big = ep.get(dst, 0, SIZE, rk.base(), rk);
            for (int i = 0; i < 3 && !big.isCompleted(); i++) {
                w.progress(); // the transfer is under way
            }
            final boolean doneBefore = big.isCompleted();
            child.kill();
            PeerFailureConformanceTest.await(w, big, 10, "the get from a killed peer");
            final long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("256 MiB get over " + rk.describe() + ", peer SIGKILLed "
                + (doneBefore ? "after it completed" : "during it") + ": " + big.status() + " after " + ms + " ms");
            if (doneBefore || big.status() == Status.OK) {
                assertTrue(doneBefore || !rk.describe().contains("tcp"), "tcp cannot finish without its peer");
                for (long i = 0; i < SIZE; i += 8) {
                    if (dst.get(ValueLayout.JAVA_LONG, i) != i * 0x9E3779B97F4A7C15L) {
                        throw new AssertionError("a get that completed OK has wrong data at byte " + i);
                    }
                }
            } else {
                assertTrue(big.status().isError(), "get: " + big.status());
            }
            big.release();
            // the endpoint is failed (or fails within the keepalive bound): operations then fail at once
            PeerFailureConformanceTest.await(w, () -> ep.status().isError(), 5, "the endpoint to fail");
            final Request after = ep.get(dst, 0, 8, rk.base(), rk);
            assertTrue(after.isCompleted() && after.status().isError(), "get on a failed endpoint: " + after.status());
            after.release();
            rk.close();
            ep.close();
        }
        Resources.assertBackTo(before, "peer killed during a large get over " + tls, 3000);
    }
}
