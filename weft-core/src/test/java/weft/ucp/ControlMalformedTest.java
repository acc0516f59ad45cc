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
 * Protocol messages shorter than their fields (found by WorkerAmFuzzTest: an empty WIREUP threw out of
 * progress(), short control messages read past their end), a request id whose low 32 bits are negative
 * (an ArrayIndexOutOfBoundsException in the in-flight table), an RNDV_RTR_PUT where the endpoint has no
 * put lanes, and an unexpected eager message that claims more than WEFT_UNEXPECTED_BUDGET are dropped,
 * counted, or fail that endpoint; the worker keeps serving.
 */
@Timeout(60)
class ControlMalformedTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private static void roundTrip(final Endpoint ab, final Worker a, final Worker b, final Arena arena) {
        final MemorySegment src = arena.allocate(8).fill((byte) 3);
        final MemorySegment dst = arena.allocate(8);
        final Request r = b.recvTag(dst, 0, 8, 77, -1L);
        final Request s = ab.sendTag(77, src, 0, 8);
        RawAm.progressUntil(a, b, () -> r.isCompleted() && s.isCompleted());
        assertEquals(Status.OK, r.status());
        assertEquals(-1L, dst.mismatch(src));
        r.release();
        s.release();
    }

    @Test
    void aFloodOfMalformedMessagesIsCountedAndTheVictimKeepsServing() {
        // every one counted; the warnings are rate-limited (weft.ucs.LogLimit: the 1st, 2nd, 4th ... only)
        try (Context ctx = RawAm.context();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            RawAm.progressUntil(a, b, () -> ab.remoteId >= 0);
            final weft.uct.Endpoint raw = RawAm.rawEndpoint(a, b);
            final MemorySegment m = arena.allocate(64);
            final long before = b.controlMalformedCount();
            for (int i = 0; i < 1000; i++) {
                while (raw.amBcopy(AmId.SYNC_ACK, new RawAm.Bytes(m.asSlice(0, 3))) < 0) {
                    b.progress(); // the FIFO is full: let the victim drain it
                }
            }
            RawAm.progressUntil(a, b, () -> b.controlMalformedCount() >= before + 1000);
            assertEquals(before + 1000, b.controlMalformedCount(), "every message counted");
            roundTrip(ab, a, b, arena);
        }
    }

    @Test
    void shortAndForgedControlMessagesAreDropped() {
        try (Context ctx = RawAm.context();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            RawAm.progressUntil(a, b, () -> ab.remoteId >= 0);
            final weft.uct.Endpoint raw = RawAm.rawEndpoint(a, b);
            final MemorySegment m = arena.allocate(64);
            final int[] ids = {AmId.WIREUP, AmId.SYNC_ACK, AmId.RNDV_ATS, AmId.RNDV_RTR, AmId.RNDV_DATA,
                AmId.RNDV_ATP, AmId.RNDV_RTR_PUT, AmId.FLOW, AmId.EP_REMOVED, AmId.KEEPALIVE, AmId.SOFT_AMO_REP,
                AmId.SOFT_AMO_NAK, AmId.EAGER_GET_KEY, AmId.EAGER_GET, AmId.EAGER_GET_DONE};
            for (final int id : ids) {
                assertTrue(raw.amBcopy(id, new RawAm.Bytes(m.asSlice(0, 0))) >= 0, "empty message of id " + id);
            }
            RawAm.progressUntil(a, b, () -> b.controlMalformedCount() >= ids.length);
            assertEquals(ids.length, b.controlMalformedCount(), "each counted once");
            final long tagBefore = b.tagMalformedCount();
            assertTrue(raw.amBcopy(AmId.EAGER, new RawAm.Bytes(m.asSlice(0, 3))) >= 0);
            assertTrue(raw.amBcopy(AmId.RNDV_RTS, new RawAm.Bytes(m.asSlice(0, 20))) >= 0);
            RawAm.progressUntil(a, b, () -> b.tagMalformedCount() >= tagBefore + 2);
            final long amBefore = b.amMalformedCount();
            assertTrue(raw.amBcopy(AmId.AM_SHORT, new RawAm.Bytes(m.asSlice(0, 4))) >= 0);
            RawAm.progressUntil(a, b, () -> b.amMalformedCount() >= amBefore + 1);

            // a request id whose low 32 bits are negative names no request
            m.set(LONG, 0, 0xF0F0F0F0L);
            m.set(LONG, 8, 0);
            for (final int id : new int[] {AmId.SYNC_ACK, AmId.RNDV_ATS, AmId.RNDV_RTR, AmId.RNDV_DATA,
                AmId.RNDV_ATP, AmId.SOFT_AMO_REP, AmId.SOFT_AMO_NAK}) {
                assertTrue(raw.amBcopy(id, new RawAm.Bytes(m.asSlice(0, 16))) >= 0);
            }
            roundTrip(ab, a, b, arena);

            // an RTR_PUT for a rendezvous send in flight over an endpoint without put lanes (shm and self
            // use get or AM data): refused, the send fails, nothing is indexed past the lanes
            a.setAmHandler(5, (hd, ho, hl, d, dOff, dLen, msg) -> Status.IN_PROGRESS, 0); // keeps it in flight
            final Endpoint ba = b.epTable.byId(ab.remoteId);
            final MemorySegment big = arena.allocate(64 * 1024);
            final Request send = ba.sendAm(5, big, 0, big.byteSize(), AmFlags.SEND_RNDV);
            RawAm.progressUntil(a, b, () -> send.sendStage == RndvSend.ST_WAIT);
            m.set(LONG, 0, send.id);
            m.set(LONG, 8, 1);
            m.set(LONG, 16, 0);
            m.set(LONG, 24, 100);
            m.set(ValueLayout.JAVA_INT_UNALIGNED, 32, 0); // no keys, as many as the endpoint's (zero) lanes
            assertTrue(raw.amBcopy(AmId.RNDV_RTR_PUT, new RawAm.Bytes(m.asSlice(0, weft.ucp.wire.RtrPutHeader.LENGTH))) >= 0);
            RawAm.progressUntil(a, b, send::isCompleted);
            assertEquals(Status.UNSUPPORTED, send.status());
            send.release();

            // an unexpected eager message claiming more than the budget: that endpoint fails, nothing is
            // allocated for it, and a new pair works
            m.set(LONG, 0, 1);                  // tag
            m.set(LONG, 8, ab.remoteId);        // dst ep
            m.set(LONG, 16, ctx.unexpectedBudget + 1);
            m.set(LONG, 24, -1);
            final long before = b.unexpectedBytes();
            assertTrue(raw.amBcopy(AmId.EAGER_FIRST,
                new RawAm.Bytes(m.asSlice(0, weft.ucp.wire.EagerFirstHeader.LENGTH + 8))) >= 0);
            RawAm.progressUntil(a, b, () -> ba.status() != Status.OK);
            assertEquals(Status.NO_MEMORY, ba.status());
            assertEquals(before, b.unexpectedBytes(), "no buffer for the claimed size");
            raw.close();
            final Endpoint ab2 = a.connect(b.address());
            RawAm.progressUntil(a, b, () -> ab2.remoteId >= 0);
            roundTrip(ab2, a, b, arena);
        }
    }
}
