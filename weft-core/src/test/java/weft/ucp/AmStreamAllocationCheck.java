package weft.ucp;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucp.conformance.AmScenarios;
import weft.uct.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 8-byte active messages and stream sends/receives allocate nothing in steady state. One test class per
 * transport set ({@link AmStreamShmAllocationTest}, {@link AmStreamTcpAllocationTest}: top-level, as surefire
 * runs no nested class), so that each runs in its own fresh JVM (the surefire "allocation" execution forks per
 * class): a JVM that ran shm first has megamorphic segment slicing, and then tcp's errno-capturing socket
 * calls allocate (docs/ARCHITECTURE.md, errno capture), which is a uct matter, not this path's.
 */
@Timeout(120)
@Tag("allocation")
abstract class AmStreamAllocationCheck {
    private static final int N = 20_000;
    private static final long LIMIT = 400;

    private static Endpoint wire(final Worker a, final Worker b) {
        final Endpoint ab = a.connect(b.address());
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while ((ab.remoteId < 0 || b.endpoints().isEmpty()) && System.nanoTime() < deadline) {
            a.progress();
            b.progress();
        }
        assertTrue(ab.remoteId >= 0, "wireup");
        return ab;
    }

    private static void spin(final Worker a, final Worker b, final long deadline) {
        a.progress();
        b.progress();
        if (System.nanoTime() > deadline) {
            throw new AssertionError("no progress before the deadline");
        }
    }

    /** Sends 8-byte AMs to a handler that keeps nothing, each handled before the next. */
    private static void ams(final Worker a, final Worker b, final Endpoint ab, final AmScenarios.Counter counter,
                            final MemorySegment src, final int n) {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        final long first = counter.count;
        for (int i = 0; i < n; i++) {
            src.set(ValueLayout.JAVA_LONG, 0, i);
            final long want = counter.count + 1;
            final Request q = ab.sendAm(3, src, 0, 8, 0); // queued (pooled request) if the lane is full
            while (!q.isCompleted()) {
                spin(a, b, deadline);
            }
            assertSame(Status.OK, q.status());
            q.release();
            while (counter.count < want) {
                spin(a, b, deadline);
            }
        }
        assertEquals(first + n, counter.count, "every AM handled once");
    }

    /** 8-byte stream send/receive pairs, every other one with the receive posted first. */
    private static void streams(final Worker a, final Worker b, final Endpoint ab, final Endpoint ba,
                                final MemorySegment src, final MemorySegment dst, final int n) {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        for (int i = 0; i < n; i++) {
            src.set(ValueLayout.JAVA_LONG, 0, i);
            final Request s;
            final Request r;
            if ((i & 1) == 0) { // receive posted first
                r = ba.recvStream(dst, 0, 8, true);
                s = ab.sendStream(src, 0, 8);
            } else {            // bytes arrive first, then the receive
                s = ab.sendStream(src, 0, 8);
                r = ba.recvStream(dst, 0, 8, true);
            }
            while (!s.isCompleted() || !r.isCompleted()) {
                spin(a, b, deadline);
            }
            s.release();
            r.release();
            if (dst.get(ValueLayout.JAVA_LONG, 0) != i) {
                throw new AssertionError("stream byte order at " + i);
            }
        }
    }

    void check(final String tls) {
        try (Context ctx = Context.builder().features(Feature.TAG, Feature.AM, Feature.STREAM).transports(tls.split(","))
            // the shm peer-liveness poll (every 200 ms) makes an errno-capturing read that allocates 40 B in a
            // JVM where segment slicing went megamorphic (docs/ARCHITECTURE.md, errno capture): not this path
            .config(Config.global().with("SHM_KEEPALIVE_INTERVAL", "inf").with("KEEPALIVE_INTERVAL", "10m")).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final AmScenarios.Counter counter = new AmScenarios.Counter();
            b.setAmHandler(3, counter, 0);
            final Endpoint ab = wire(a, b);
            final Endpoint ba = b.endpoints().getFirst();
            final MemorySegment src = arena.allocate(8, 8);
            final MemorySegment dst = arena.allocate(8, 8);
            AllocationMeter.fewestBytes(tls + ": " + N + " 8-byte AM send+receive", () -> ams(a, b, ab, counter, src, N),
                LIMIT, 30_000);
            AllocationMeter.fewestBytes(tls + ": " + N + " 8-byte stream send+receive",
                () -> streams(a, b, ab, ba, src, dst, N), LIMIT, 30_000);
            assertSame(ab.worker(), a);
        }
    }
}
