package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AtomicOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The immediate path of small one-sided operations ({@code Rma.immediate}): where the lane finishes the
 * operation inside the call (shm) the call returns the shared done request, with the result in place;
 * where it does not (tcp: the target's progress serves it) the worker's spare request becomes the
 * operation's request and completes with the right result; a pending fence and out-of-range accesses
 * still take the general path with its answers.
 */
@Timeout(60)
class RmaImmediateTest {
    private static final Config CFG = Config.global().with("KEEPALIVE_INTERVAL", "10m");

    @Test
    void shmOperationsReturnTheSharedDoneRequest() {
        try (Context ctx = Context.builder().transports("shm", "self").config(CFG).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(4096, 0)) {
            final Endpoint ab = a.connect(b.address());
            final long base = heap.address();
            final MemorySegment buf = arena.allocate(64, 8);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                heap.segment().set(ValueLayout.JAVA_LONG, 0, 41);
                assertSame(Request.done(Status.OK), ab.atomicFetch(AtomicOp.ADD, 1, buf, 0, base, rk));
                assertEquals(41, buf.get(ValueLayout.JAVA_LONG, 0), "fetched old value");
                assertSame(Request.done(Status.OK), ab.atomicCswap(42, 7, buf, 8, base, rk));
                assertEquals(42, buf.get(ValueLayout.JAVA_LONG, 8));
                assertEquals(7, heap.segment().get(ValueLayout.JAVA_LONG, 0));
                heap.segment().set(ValueLayout.JAVA_LONG, 64, 0x1122334455667788L);
                assertSame(Request.done(Status.OK), ab.get(buf, 16, 8, base + 64, rk));
                assertEquals(0x1122334455667788L, buf.get(ValueLayout.JAVA_LONG, 16));
                assertEquals(Status.OK, ab.putNbi(buf, 16, 8, base + 128, rk));
                assertEquals(0x1122334455667788L, heap.segment().get(ValueLayout.JAVA_LONG, 128));
                assertEquals(Status.OK, ab.atomicPost(AtomicOp.ADD, 5, base, rk));
                assertEquals(12, heap.segment().get(ValueLayout.JAVA_LONG, 0));
                // errors keep their answers: out of range at once, a misaligned atomic, a closed endpoint's key
                assertEquals(Status.OUT_OF_RANGE, ab.get(buf, 0, 8, base + 4096, rk).status());
                assertEquals(Status.INVALID_PARAM, ab.atomicFetch(AtomicOp.ADD, 1, buf, 0, base + 4, rk).status());
                // a pending fence still orders: the operation after it completes, with the fence before it
                ab.putNbi(buf, 16, 8, base + 256, rk);
                a.fence();
                final Request r = ab.atomicFetch(AtomicOp.ADD, 1, buf, 0, base, rk);
                assertEquals(Status.OK, r.await());
                assertEquals(12, buf.get(ValueLayout.JAVA_LONG, 0));
                r.release();
            }
        }
    }

    @Test
    void tcpOperationsTurnTheSpareIntoTheirRequest() {
        try (Context ctx = Context.builder().transports("tcp", "self").config(CFG).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(4096, 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            final long base = heap.address();
            final MemorySegment buf = arena.allocate(64, 8);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                for (int i = 0; i < 100; i++) {
                    heap.segment().set(ValueLayout.JAVA_LONG, 64, i * 3L);
                    final Request f = ab.atomicFetch(AtomicOp.ADD, 1, buf, 0, base, rk);
                    final Request g = ab.get(buf, 8, 8, base + 64, rk);
                    assertFalse(f.isCompleted(), "tcp completes from progress");
                    assertTrue(f != g, "each operation has its own request");
                    await(a, b, f);
                    await(a, b, g);
                    assertEquals(i, buf.get(ValueLayout.JAVA_LONG, 0), "fetch " + i);
                    assertEquals(i * 3L, buf.get(ValueLayout.JAVA_LONG, 8), "get " + i);
                    f.release();
                    g.release();
                }
                final Status post = ab.atomicPost(AtomicOp.ADD, 1, base, rk); // tcp: done once sent
                assertTrue(post == Status.OK || post == Status.IN_PROGRESS, "post: " + post);
                assertEquals(Status.IN_PROGRESS, ab.getNbi(buf, 16, 8, base + 64, rk));
                final Request fl = ab.flush();
                await(a, b, fl);
                assertEquals(Status.OK, fl.status());
                assertEquals(101, heap.segment().get(ValueLayout.JAVA_LONG, 0));
                assertEquals(99 * 3L, buf.get(ValueLayout.JAVA_LONG, 16));
                fl.release();
            }
        }
    }

    /**
     * A blocking tcp put up to a segment (8 KiB by default) is copied into the socket's send ring, so its
     * source is reusable when the call returns, as UCX's bcopy puts: it does not wait a round trip for the
     * target's acknowledgement as a zero-copy put does. A put above a segment still goes by reference.
     */
    @Test
    void tcpPutsUpToASegmentCompleteInsideTheCall() {
        try (Context ctx = Context.builder().transports("tcp", "self").config(CFG).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(64 << 10, 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            final long base = heap.address();
            final MemorySegment src = arena.allocate(32 << 10, 8);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                for (final int size : new int[] {8, 257, 512, 4096, 8192}) {
                    for (int i = 0; i < size; i++) {
                        src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + size));
                    }
                    final Request r = ab.put(src, 0, size, base, rk);
                    assertTrue(r.isCompleted(), size + " B: completed inside the call");
                    assertEquals(Status.OK, r.status(), size + " B");
                    r.release();
                    src.fill((byte) 0); // reusable: the copy already left
                    final Request fl = ab.flush();
                    await(a, b, fl);
                    fl.release();
                    for (int i = 0; i < size; i++) {
                        assertEquals((byte) (i * 7 + size), heap.segment().get(ValueLayout.JAVA_BYTE, i), size + " B @" + i);
                    }
                }
                final Request big = ab.put(src, 0, 16 << 10, base, rk);
                assertFalse(big.isCompleted(), "above a segment: by reference, complete when the target acknowledges");
                await(a, b, big);
                big.release();
            }
        }
    }

    private static void await(final Worker a, final Worker b, final Request r) {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!r.isCompleted()) {
            a.progress();
            b.progress();
            assertTrue(System.nanoTime() < deadline, "request did not complete");
        }
        assertEquals(Status.OK, r.status());
    }
}
