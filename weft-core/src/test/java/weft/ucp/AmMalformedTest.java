package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Malformed active-message and stream messages (bad lengths, unknown endpoints, a huge claimed size) are
 * counted and dropped; the worker keeps serving; misuse of received messages and of the API fails clearly.
 */
@Timeout(60)
class AmMalformedTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @Test
    void malformedMessagesAreCountedAndDropped() {
        try (Context ctx = RawAm.context();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final long[] seen = new long[1];
            b.setAmHandler(1, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                seen[0]++;
                return Status.OK;
            }, 0);
            final weft.uct.Endpoint raw = RawAm.rawEndpoint(a, b);
            final MemorySegment m = arena.allocate(64);
            // AM_SINGLE: header length larger than the message
            m.set(LONG, 0, 1);
            m.set(LONG, 8, 1000);
            m.set(LONG, 16, -1);
            assertTrue(raw.amBcopy(AmId.AM_SINGLE, new RawAm.Bytes(m.asSlice(0, 30))) >= 0);
            // AM_SINGLE shorter than its fixed header
            assertTrue(raw.amBcopy(AmId.AM_SINGLE, new RawAm.Bytes(m.asSlice(0, 10))) >= 0);
            // AM_FIRST for an endpoint id that does not exist
            m.set(LONG, 8, 0);
            m.set(LONG, 24, 12345);
            m.set(LONG, 32, 100);
            assertTrue(raw.amBcopy(AmId.AM_FIRST, new RawAm.Bytes(m.asSlice(0, 48))) >= 0);
            // AM_MIDDLE with no message being reassembled
            assertTrue(raw.amBcopy(AmId.AM_MIDDLE, new RawAm.Bytes(m.asSlice(0, 20))) >= 0);
            // AM_RTS too short, STREAM_DATA and STREAM_ACK for unknown endpoints
            assertTrue(raw.amBcopy(AmId.AM_RTS, new RawAm.Bytes(m.asSlice(0, 20))) >= 0);
            m.set(LONG, 0, 999);
            assertTrue(raw.amBcopy(AmId.STREAM_DATA, new RawAm.Bytes(m.asSlice(0, 16))) >= 0);
            assertTrue(raw.amBcopy(AmId.STREAM_ACK, new RawAm.Bytes(m.asSlice(0, 16))) >= 0);
            RawAm.progressUntil(a, b, () -> b.amMalformedCount() >= 7);
            assertEquals(7, b.amMalformedCount(), "every malformed message counted once");
            raw.close();

            // a real endpoint: a huge claimed eager size is refused, and normal traffic goes on
            final Endpoint ab = a.connect(b.address());
            RawAm.progressUntil(a, b, () -> ab.remoteId >= 0);
            final weft.uct.Endpoint raw2 = RawAm.rawEndpoint(a, b);
            m.set(LONG, 0, 1);
            m.set(LONG, 8, 0);
            m.set(LONG, 16, -1);
            m.set(LONG, 24, ab.remoteId);
            m.set(LONG, 32, 1L << 45);
            assertTrue(raw2.amBcopy(AmId.AM_FIRST, new RawAm.Bytes(m.asSlice(0, 48))) >= 0);
            RawAm.progressUntil(a, b, () -> b.amMalformedCount() >= 8);
            raw2.close();
            final MemorySegment v = arena.allocate(8);
            final Request q = ab.sendAm(1, v, 0, 8, 0);
            RawAm.progressUntil(a, b, () -> seen[0] == 1 && q.isCompleted());
            assertEquals(Status.OK, q.status());
            q.release();

            // API misuse
            assertThrows(WeftException.class, () -> b.setAmHandler(70_000, null, 0), "id out of range");
            assertThrows(WeftException.class, () -> b.setAmHandler(2, null, 0x80), "bad handler flags");
            assertThrows(WeftException.class, () -> ab.sendAm(1, v, 0, 9, 0), "data range outside the segment");
            assertThrows(WeftException.class, () -> ab.sendAm(1, v, 4, 8, v, 0, 8, 0), "header range");
            assertThrows(WeftException.class, () -> ab.sendAm(1, v, 0, 8, AmFlags.SEND_EAGER | AmFlags.SEND_RNDV),
                "eager and rendezvous at once");
            assertThrows(WeftException.class, () -> ab.recvStream(v, 0, 16, false), "stream receive range");
            // a stream receive can be canceled
            final Request r = ab.recvStream(v, 0, 8, true);
            assertTrue(a.cancel(r), "cancel a waiting stream receive");
            assertEquals(Status.CANCELED, r.status());
            r.release();
        }
    }
}
