package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A stream receiver that does not receive holds at most about one window; the sender waits (backpressure). */
@Timeout(60)
class StreamFlowControlTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void stalledReceiverBoundsBufferedBytes(final String tls) {
        final long window = 256 * 1024;
        final long total = 8L << 20;
        try (Context ctx = Context.builder().features(Feature.values()).transports(tls.split(","))
            .config(weft.ucs.config.Config.global().with("STREAM_WINDOW", Long.toString(window))).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment src = arena.allocate(total, 64);
            for (long i = 0; i < total; i += 8) {
                src.set(ValueLayout.JAVA_LONG, i, i);
            }
            final Request s = ab.sendStream(src, 0, total);
            final long stallEnd = System.nanoTime() + 300_000_000L;
            long peak = 0;
            while (System.nanoTime() < stallEnd) {
                a.progress();
                b.progress();
                peak = Math.max(peak, b.unexpected.inUse());
            }
            assertFalse(s.isCompleted(), "the sender must wait for a receiver that does not receive");
            assertTrue(peak > 0 && peak <= 2 * window, "buffered " + peak + " bytes, window " + window);
            final Endpoint ba = b.endpoints().getFirst();
            final MemorySegment dst = arena.allocate(total, 64);
            final Request r = ba.recvStream(dst, 0, total, true);
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (!(r.isCompleted() && s.isCompleted()) && System.nanoTime() < deadline) {
                a.progress();
                b.progress();
            }
            assertEquals(Status.OK, s.status(), "send");
            assertEquals(Status.OK, r.status(), "receive");
            assertEquals(-1, src.mismatch(dst), "bytes in order");
            assertEquals(0, b.unexpected.inUse(), "nothing left buffered");
            s.release();
            r.release();
        }
    }

    /** Both sides stream more than a window to each other at once: acks must not wait behind blocked sends. */
    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void bidirectionalStreamsBeyondTheWindow(final String tls) {
        final long window = 64 * 1024;
        final long total = 4L << 20;
        try (Context ctx = Context.builder().features(Feature.values()).transports(tls.split(","))
            .config(weft.ucs.config.Config.global().with("STREAM_WINDOW", Long.toString(window))).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            final long wire = System.nanoTime() + 10_000_000_000L;
            while (b.endpoints().isEmpty() && System.nanoTime() < wire) {
                a.progress();
                b.progress();
            }
            final Endpoint ba = b.endpoints().getFirst();
            final MemorySegment srcA = arena.allocate(total, 64);
            final MemorySegment srcB = arena.allocate(total, 64);
            for (long i = 0; i < total; i += 8) {
                srcA.set(ValueLayout.JAVA_LONG, i, i);
                srcB.set(ValueLayout.JAVA_LONG, i, ~i);
            }
            final Request sa = ab.sendStream(srcA, 0, total);
            final Request sb = ba.sendStream(srcB, 0, total);
            final MemorySegment dstA = arena.allocate(total, 64);
            final MemorySegment dstB = arena.allocate(total, 64);
            final Request ra = ab.recvStream(dstA, 0, total, true);
            final Request rb = ba.recvStream(dstB, 0, total, true);
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (!(sa.isCompleted() && sb.isCompleted() && ra.isCompleted() && rb.isCompleted())) {
                a.progress();
                b.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("bidirectional streams stalled: " + sa + " " + sb + " " + ra + " " + rb);
                }
            }
            assertEquals(-1, srcB.mismatch(dstA), "a received b's bytes in order");
            assertEquals(-1, srcA.mismatch(dstB), "b received a's bytes in order");
            sa.release();
            sb.release();
            ra.release();
            rb.release();
        }
    }
}
