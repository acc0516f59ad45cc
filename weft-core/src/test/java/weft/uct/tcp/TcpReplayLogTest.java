package weft.uct.tcp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The replay log alone: positions, acks, what may be sent again, growth and its limit. */
class TcpReplayLogTest {
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment iovs = arena.allocate(16 * 64, 16);

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private MemorySegment bytes(final int n, final int seed) {
        final MemorySegment s = arena.allocate(n);
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + seed));
        }
        return s;
    }

    /** The bytes the log would send again for [from, to), gathered from its iovecs. */
    private byte[] replay(final TcpReplayLog log, final long from, final long to) {
        final int n = log.fill(from, to, iovs.address(), 64);
        final byte[] out = new byte[(int) log.filled];
        int at = 0;
        for (int i = 0; i < n; i++) {
            final long base = iovs.get(ValueLayout.JAVA_LONG, 16L * i);
            final long len = iovs.get(ValueLayout.JAVA_LONG, 16L * i + 8);
            MemorySegment.copy(TcpInterface.ALL, ValueLayout.JAVA_BYTE, base, out, at, (int) len);
            at += (int) len;
        }
        return out;
    }

    @Test
    void keepsCopiesAndReferencesInStreamOrderUntilAcknowledged() {
        final TcpReplayLog log = new TcpReplayLog(1000, 1 << 20);
        final MemorySegment a = bytes(100, 1);
        final MemorySegment user = bytes(300, 2);
        final MemorySegment b = bytes(50, 3);
        log.copy(a, 0, 100);
        log.reference(user.address(), 300);
        log.copy(b, 0, 50);
        a.fill((byte) 0); // the tx ring reuses its room: the log has its own copy
        assertEquals(1450, log.end());
        assertTrue(log.replayable(1000, 1450));
        final byte[] all = replay(log, 1000, 1450);
        assertEquals(450, all.length);
        assertEquals((byte) (5 * 7 + 1), all[5]);
        assertEquals(user.get(ValueLayout.JAVA_BYTE, 17), all[117]);
        assertEquals(b.get(ValueLayout.JAVA_BYTE, 49), all[449]);
        final byte[] tail = replay(log, 1120, 1450);
        assertEquals(user.get(ValueLayout.JAVA_BYTE, 20), tail[0]);
        log.ack(1120);
        assertEquals(1120, log.start());
        assertFalse(log.replayable(1100, 1450), "below the acknowledged position");
        assertTrue(log.replayable(1120, 1450));
        assertEquals(user.get(ValueLayout.JAVA_BYTE, 20), replay(log, 1120, 1450)[0]);
        log.ack(1450);
        assertEquals(0, log.copiedBytes());
        assertTrue(log.replayable(1450, 1450));
        log.close();
    }

    @Test
    void refusesBytesNeverSentOrAVolatileReplyWhoseRegionWasDeregistered() {
        final TcpReplayLog log = new TcpReplayLog(0, 1 << 20);
        final TcpMemoryDomain.Region region = new TcpMemoryDomain.Region(1, 1, bytes(100, 2));
        log.copy(bytes(10, 1), 0, 10);
        log.referenceVolatile(region.address(), 100, region);
        log.copy(bytes(10, 3), 0, 10);
        assertTrue(log.holdsVolatile());
        assertTrue(log.replayable(0, 120), "the region is still registered: it can be read again");
        assertFalse(log.replayable(0, 121), "beyond what was logged");
        region.revoke();
        assertFalse(log.replayable(0, 120), "the region is gone");
        assertFalse(log.replayable(50, 120));
        assertTrue(log.replayable(110, 120), "after it");
        assertTrue(log.replayable(5, 10), "before it");
        assertFalse(log.settleForReplay(120));
        log.settleBeforeChange(); // cannot copy a dead region: its bytes are lost
        assertFalse(log.replayable(5, 10), "bytes before lost ones cannot be replayed alone");
        assertTrue(log.replayable(110, 120));
        log.close();
    }

    @Test
    void aVolatileReplySettledBeforeAChangeReplaysTheBytesTheReplyHad() {
        final TcpReplayLog log = new TcpReplayLog(0, 1 << 20);
        final MemorySegment user = bytes(200_000, 4);
        final TcpMemoryDomain.Region region = new TcpMemoryDomain.Region(1, 1, user);
        final byte[] expect = new byte[10 + 150_000 + 10 + 30_000];
        log.copy(bytes(10, 1), 0, 10);
        log.referenceVolatile(user.address() + 1000, 150_000, region);
        log.copy(bytes(10, 3), 0, 10);
        log.referenceVolatile(user.address(), 30_000, region);
        MemorySegment.copy(bytes(10, 1), ValueLayout.JAVA_BYTE, 0, expect, 0, 10);
        MemorySegment.copy(user, ValueLayout.JAVA_BYTE, 1000, expect, 10, 150_000);
        MemorySegment.copy(bytes(10, 3), ValueLayout.JAVA_BYTE, 0, expect, 150_010, 10);
        MemorySegment.copy(user, ValueLayout.JAVA_BYTE, 0, expect, 150_020, 30_000);
        log.ack(5_000); // the peer consumed part of the first reply
        log.settleBeforeChange();
        assertFalse(log.holdsVolatile());
        assertTrue(log.settledCapacity() >= 175_000, "settled ring " + log.settledCapacity());
        user.fill((byte) 0x55); // a later put changes the region
        region.revoke(); // and it may even go: the settled bytes do not need it
        assertTrue(log.replayable(5_000, 180_020));
        final byte[] got = replay(log, 5_000, 180_020);
        assertArrayEquals(Arrays.copyOfRange(expect, 5_000, 180_020), got);
        log.ack(180_020);
        assertEquals(0, log.copiedBytes());
        log.close();
    }

    @Test
    void settlingForAReplayCopiesOnlyWhatTheReplayNeeds() {
        final TcpReplayLog log = new TcpReplayLog(0, 1 << 20);
        final MemorySegment user = bytes(8192, 6);
        final TcpMemoryDomain.Region region = new TcpMemoryDomain.Region(1, 1, user);
        log.referenceVolatile(user.address(), 4096, region);
        log.referenceVolatile(user.address() + 4096, 4096, region); // queued, not written yet
        assertTrue(log.settleForReplay(4096));
        assertTrue(log.holdsVolatile(), "the unwritten reply is still read from its region");
        user.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        assertEquals((byte) 6, replay(log, 0, 1)[0], "the replay reads the copy");
        log.close();
    }

    @Test
    void growsAfterEverythingWasAcknowledged() {
        final TcpReplayLog log = new TcpReplayLog(0, 1 << 20);
        log.copy(bytes(100, 1), 0, 100);
        log.ack(100);
        log.copy(bytes(2000, 2), 0, 2000); // larger than the first ring, which is empty
        assertTrue(log.capacity() >= 2000);
        assertEquals((byte) (1999 * 7 + 2), replay(log, 100, 2100)[1999]);
        log.close();
    }

    @Test
    void growsAsNeededThenForgetsTheOldestAtItsLimit() {
        final TcpReplayLog log = new TcpReplayLog(0, 256 * 1024);
        final MemorySegment chunk = bytes(30_000, 5);
        for (int i = 0; i < 8; i++) { // 240 KB: grows from 64 KiB, nothing forgotten
            log.copy(chunk, 0, 30_000);
        }
        assertTrue(log.replayable(0, 240_000));
        assertEquals((byte) (29_999 * 7 + 5), replay(log, 239_999, 240_000)[0]);
        for (int i = 0; i < 8; i++) { // beyond 256 KiB: the oldest go
            log.copy(chunk, 0, 30_000);
        }
        assertFalse(log.replayable(0, 480_000), "the oldest were forgotten");
        assertTrue(log.start() > 0);
        assertTrue(log.replayable(log.start(), 480_000));
        assertEquals(480_000 - log.start(), replay(log, log.start(), 480_000).length);
        log.ack(480_000);
        assertEquals(0, log.copiedBytes());
        log.close();
    }

    @Test
    void framesAskForAnAckOnceTheCopiesReachTheMarkOneAskAtATime() {
        final TcpReplayLog log = new TcpReplayLog(0, 1 << 20);
        final int frame = 32;
        final MemorySegment tx = arena.allocate(frame, 8);
        long pos = 0;
        int firstAsk = -1;
        for (int i = 0; i < 2 * TcpReplayLog.ASK_AT / frame; i++) {
            TcpFrame.header(tx, 0, TcpFrame.AM, 1, 0, frame - TcpFrame.HEADER);
            log.copyFrames(tx, 0, frame);
            final boolean asked = TcpFrame.asks(tx.get(TcpFrame.I64, 0));
            assertEquals(asked, TcpFrame.asks(header(replay(log, pos, pos + frame))),
                "the copy kept carries the ask as sent");
            if (asked) {
                assertEquals(-1, firstAsk, "one ask until an ACK comes (frame " + i + ")");
                firstAsk = i;
            }
            pos += frame;
        }
        assertEquals(TcpReplayLog.ASK_AT / frame, firstAsk, "the first frame logged at the mark asks");
        assertEquals(TcpReplayLog.BUSY_CAP, log.capacity(), "the first ring grew to the busy size at once");
        log.ack(pos - frame); // an ACK: the next frame may ask again, if the copies kept are still at the mark
        TcpFrame.header(tx, 0, TcpFrame.AM, 1, 0, frame - TcpFrame.HEADER);
        log.copyFrames(tx, 0, frame);
        assertFalse(TcpFrame.asks(tx.get(TcpFrame.I64, 0)), "below the mark after the ACK");
        log.close();
    }

    /** The first 8 bytes of {@code b} as a frame header (little endian). */
    private static long header(final byte[] b) {
        return MemorySegment.ofArray(b).get(TcpFrame.I64, 0);
    }
}
