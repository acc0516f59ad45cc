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
}
