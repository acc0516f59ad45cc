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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Local completion ({@link Endpoint#flushSent()}, {@link Worker#flushSent()}): over tcp it completes once the
 * bytes left the socket, with no help from the target (which acknowledges puts only from its progress), while
 * a zero-copy put, whose memory goes by reference, keeps it open until acknowledged; a remote flush issued
 * beside it still waits for the target. Over shared memory it is done at once.
 */
@Timeout(60)
class FlushSentTest {
    private static final Config CFG = Config.global().with("KEEPALIVE_INTERVAL", "10m");
    /** Progress calls of the initiator alone: far more than sending needs, and no reply can come meanwhile. */
    private static final int ALONE = 2000;

    @Test
    void tcpShortOperationsNeedNoTargetProgress() {
        try (Context ctx = Context.builder().transports("tcp", "self").config(CFG).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(4096, 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            final long base = heap.address();
            final MemorySegment buf = arena.allocate(64, 8);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                settle(a, b, ab.flush());
                buf.set(ValueLayout.JAVA_LONG, 0, 0x5eed);
                assertFalse(ab.putNbi(buf, 0, 8, base + 64, rk).isError());
                assertFalse(ab.atomicPost(AtomicOp.ADD, 3, base, rk).isError());
                final Request sent = a.flushSent();
                final Request remote = ab.flush();
                for (int i = 0; i < ALONE && !sent.isCompleted(); i++) {
                    a.progress();
                }
                assertTrue(sent.isCompleted(), "the bytes left without the target's progress");
                assertEquals(Status.OK, sent.status());
                for (int i = 0; i < ALONE; i++) {
                    a.progress();
                }
                assertFalse(remote.isCompleted(), "a remote flush waits for the target's acknowledgement");
                settle(a, b, remote);
                assertEquals(0x5eed, heap.segment().get(ValueLayout.JAVA_LONG, 64));
                assertEquals(3, heap.segment().get(ValueLayout.JAVA_LONG, 0));
                sent.release();
                remote.release();
            }
        }
    }

    @Test
    void tcpZeroCopyPutHoldsItUntilAcknowledged() {
        final int size = 1 << 20;
        try (Context ctx = Context.builder().transports("tcp", "self").config(CFG).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(size, 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            final MemorySegment src = arena.allocate(size, 64);
            for (int i = 0; i < size; i += 8) {
                src.set(ValueLayout.JAVA_LONG, i, i * 7L + 1);
            }
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                settle(a, b, ab.flush());
                assertFalse(ab.putNbi(src, 0, size, heap.address(), rk).isError());
                final Request sent = ab.flushSent();
                for (int i = 0; i < ALONE; i++) {
                    a.progress();
                }
                assertFalse(sent.isCompleted(), "the put's memory is referenced until the target acknowledges it");
                settle(a, b, sent);
                for (int i = 0; i < size; i += 8) {
                    assertEquals(i * 7L + 1, heap.segment().get(ValueLayout.JAVA_LONG, i), "byte " + i);
                }
                sent.release();
            }
        }
    }

    @Test
    void shmIsDoneAtOnce() {
        try (Context ctx = Context.builder().transports("shm", "self").config(CFG).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(4096, 0)) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment buf = arena.allocate(64, 8);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                assertFalse(ab.putNbi(buf, 0, 8, heap.address(), rk).isError());
                final Request sent = a.flushSent();
                assertTrue(sent.isCompleted());
                assertEquals(Status.OK, sent.status());
                sent.release();
            }
        }
    }

    /** Progresses both workers until {@code r} completes (bounded by the class timeout), then checks it is OK. */
    private static void settle(final Worker a, final Worker b, final Request r) {
        while (!r.isCompleted()) {
            a.progress();
            b.progress();
        }
        assertEquals(Status.OK, r.status());
    }
}
