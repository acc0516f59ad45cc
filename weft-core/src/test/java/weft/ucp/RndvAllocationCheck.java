package weft.ucp;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The large-message paths allocate (almost) nothing per message in steady state: tag rendezvous by get,
 * by put and by AM streaming, eager zero-copy and multi-fragment eager, and the AM rendezvous received
 * with {@link Worker#recvAmData}. Two workers in one JVM, one thread progressing both (the meter sees
 * both sides); the same buffers every message, as a benchmark or a solver's halo exchange does (so the
 * registration and remote-key caches hit). One test class per transport set ({@link RndvShmAllocationTest},
 * {@link RndvTcpAllocationTest}: top-level, as surefire runs no nested class), each in its own fresh JVM: a JVM
 * that ran shm first has megamorphic segment slicing, and then tcp's errno-capturing socket calls allocate
 * (docs/ARCHITECTURE.md, errno capture), a uct matter, not these paths'.
 */
@Timeout(120)
@Tag("allocation") // runs in a fresh JVM per class: see the surefire "allocation" execution
abstract class RndvAllocationCheck {
    private static final int N = Integer.getInteger("weft.test.rndvMessages", 1000);
    // Nothing per message: any object made per message (16 bytes or more) would put every window above this
    // average; a rare one-off (a recompilation, a cache entry) stays under it.
    private static final long LIMIT = 4; // bytes per message on average over a window of N, both sides together

    void check(final String tls, final String scheme, final int size, final String api, final String rndvThresh) {
        final Config cfg = Config.global().with("SHM_KEEPALIVE_INTERVAL", "inf").with("KEEPALIVE_INTERVAL", "10m")
            .with("RNDV_SCHEME", scheme).with("RNDV_THRESH", rndvThresh);
        try (Context ctx = Context.builder().features(Feature.TAG, Feature.AM).transports(tls.split(";")).config(cfg)
            .build(); Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment src = arena.allocate(size, 64);
            final MemorySegment dst = arena.allocate(size, 64);
            final Receiver handler = new Receiver(b, dst);
            b.setAmHandler(7, handler, 0);
            final boolean am = api.equals("am");
            final long best = AllocationMeter.fewestBytes(tls + " scheme=" + scheme + " size=" + size + " " + api
                + ": " + N + " messages", () -> run(a, b, ab, src, dst, handler, am, N), LIMIT * N, 60_000);
            System.out.printf("ALLOC %s scheme=%s size=%d %s: %.1f bytes/message%n", tls, scheme, size, api,
                best / (double) N);
            if (!scheme.equals("auto")) { // rendezvous by get or put: both caches hit (so the test measures them)
                final Endpoint ba = b.endpoints().getFirst();
                assertTrue(ab.rndvCache.registrationHits + ba.rndvCache.registrationHits >= N, "registration cache hits");
                assertTrue(ab.rndvCache.keyHits + ba.rndvCache.keyHits >= N, "remote key cache hits");
            }
        }
    }

    /** Receives each rendezvous AM into {@code dst} from inside the handler. */
    static final class Receiver implements AmRecvHandler {
        final Worker worker;
        final MemorySegment dst;
        Request pending;
        long handled;

        Receiver(final Worker worker, final MemorySegment dst) {
            this.worker = worker;
            this.dst = dst;
        }

        @Override
        public Status onReceive(final MemorySegment header, final long headerOffset, final long headerLength,
                                final MemorySegment data, final long dataOffset, final long dataLength,
                                final AmMessage message) {
            handled++;
            if (message.isRendezvous()) {
                pending = worker.recvAmData(message, dst, 0, dataLength);
            } else {
                MemorySegment.copy(data, dataOffset, dst, 0, dataLength);
            }
            return Status.OK;
        }
    }

    private static void run(final Worker a, final Worker b, final Endpoint ab, final MemorySegment src,
                            final MemorySegment dst, final Receiver h, final boolean am, final int n) {
        final long size = src.byteSize();
        for (int i = 0; i < n; i++) {
            src.set(ValueLayout.JAVA_LONG, size - 8, i);
            src.set(ValueLayout.JAVA_LONG, 0, i);
            final Request r = am ? null : b.recvTag(dst, 0, size, 5, -1L);
            final long handled = h.handled;
            final Request s = am ? ab.sendAm(7, src, 0, size, 0) : ab.sendTag(5, src, 0, size);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!s.isCompleted() || (am ? h.handled == handled || h.pending != null && !h.pending.isCompleted()
                : !r.isCompleted())) {
                a.progress();
                b.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("message " + i + " of " + size + " bytes did not complete");
                }
            }
            assertEquals(Status.OK, s.status(), "send");
            if (am) {
                if (h.pending != null) {
                    assertEquals(Status.OK, h.pending.status(), "AM receive");
                    h.pending.release();
                    h.pending = null;
                }
            } else {
                assertEquals(Status.OK, r.status(), "receive");
                r.release();
            }
            s.release();
            if (dst.get(ValueLayout.JAVA_LONG, 0) != i || dst.get(ValueLayout.JAVA_LONG, size - 8) != i) {
                throw new AssertionError("message " + i + ": wrong data");
            }
        }
    }
}
