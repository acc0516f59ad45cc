package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Malformed eager tag fragments (shorter than their header, out of sequence, past the message's end, for
 * an unknown endpoint) are counted and dropped, as malformed active messages are: a receive being
 * reassembled fails with IO_ERROR instead of taking bytes at the wrong place (a short fragment once gave a
 * negative length), and the worker goes on matching normal messages.
 */
@Timeout(60)
class TagMalformedTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @Test
    void malformedEagerFragmentsAreCountedAndDropped() {
        try (Context ctx = RawAm.context();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            RawAm.progressUntil(a, b, () -> ab.remoteId >= 0);
            final weft.uct.Endpoint raw = RawAm.rawEndpoint(a, b);
            final MemorySegment m = arena.allocate(256);
            // shorter than their fixed headers
            assertTrue(raw.amBcopy(AmId.EAGER_FIRST, new RawAm.Bytes(m.asSlice(0, 20))) >= 0);
            assertTrue(raw.amBcopy(AmId.EAGER_MIDDLE, new RawAm.Bytes(m.asSlice(0, 10))) >= 0);
            // a middle fragment for an unknown endpoint, and one with nothing being reassembled
            m.set(LONG, 0, 424242);
            assertTrue(raw.amBcopy(AmId.EAGER_MIDDLE, new RawAm.Bytes(m.asSlice(0, 24))) >= 0);
            m.set(LONG, 0, ab.remoteId);
            m.set(LONG, 8, 0);
            assertTrue(raw.amBcopy(AmId.EAGER_MIDDLE, new RawAm.Bytes(m.asSlice(0, 24))) >= 0);
            RawAm.progressUntil(a, b, () -> b.tagMalformedCount() >= 4);
            assertEquals(4, b.tagMalformedCount(), "each counted once");

            // a posted receive: the first fragment (16 of 100 bytes), then a middle one at the wrong offset
            final MemorySegment dst = arena.allocate(100).fill((byte) 0x55);
            final Request r = b.recvTag(dst, 0, 100, 9, -1L);
            m.set(LONG, 0, 9);               // tag
            m.set(LONG, 8, ab.remoteId);     // receiver's endpoint
            m.set(LONG, 16, 100);            // total
            m.set(LONG, 24, -1);             // not synchronous
            assertTrue(raw.amBcopy(AmId.EAGER_FIRST,
                new RawAm.Bytes(m.asSlice(0, weft.ucp.wire.EagerFirstHeader.LENGTH + 16))) >= 0);
            m.set(LONG, 0, ab.remoteId);
            m.set(LONG, 8, 60);              // should be 16
            m.asSlice(16, 40).fill((byte) 0x77);
            assertTrue(raw.amBcopy(AmId.EAGER_MIDDLE,
                new RawAm.Bytes(m.asSlice(0, weft.ucp.wire.FragmentHeader.LENGTH + 40))) >= 0);
            RawAm.progressUntil(a, b, r::isCompleted);
            assertEquals(Status.IO_ERROR, r.status(), "a message that cannot be rebuilt fails its receive");
            assertEquals(5, b.tagMalformedCount());
            for (long i = 16; i < 100; i++) {
                assertEquals((byte) 0x55, dst.get(ValueLayout.JAVA_BYTE, i), "nothing written past the first fragment");
            }
            r.release();
            raw.close();

            // normal traffic goes on, a multi-fragment message included
            final MemorySegment src = arena.allocate(64 * 1024);
            for (int i = 0; i < src.byteSize(); i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            final MemorySegment big = arena.allocate(64 * 1024);
            final Request q = b.recvTag(big, 0, big.byteSize(), 10, -1L);
            final Request s = ab.sendTag(10, src, 0, src.byteSize());
            RawAm.progressUntil(a, b, () -> q.isCompleted() && s.isCompleted());
            assertEquals(Status.OK, q.status());
            assertEquals(-1L, big.mismatch(src));
            assertEquals(5, b.tagMalformedCount(), "nothing more dropped");
        }
    }
}
