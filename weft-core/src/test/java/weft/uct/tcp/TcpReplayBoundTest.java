package weft.uct.tcp;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * A connection's replay log stays small under small-message traffic (issue 17: a flat, small footprint per
 * peer): whatever the pattern, the sender asks for an ACK before its log would outgrow
 * {@link TcpReplayLog#BUSY_CAP}, so at least 1 MiB of 8-byte messages (ping-pong both ways, and a windowed
 * stream one way), of 8-byte puts and of fetch-adds over one connection keep both sides' copy rings within
 * {@link #BOUND}, and the ACK frames this costs stay few (at most one per KiB carried).
 */
@Timeout(180)
class TcpReplayBoundTest extends TcpInterfaceFixture {
    /** The largest copy ring allowed: one doubling past the busy size (an ask answered a window late). */
    private static final int BOUND = 2 * TcpReplayLog.BUSY_CAP;
    private static final int MIB = 1 << 20;
    private static final int WINDOW = 64;
    private static final int PING = 7;
    private static final int PONG = 8;
    private final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
    private TcpInterface a;
    private TcpInterface b;
    /** a's requester and b's, on the one socket of the pair. */
    private TcpEndpoint ab;
    private TcpEndpoint ba;
    private TcpChannel aSide;
    private TcpChannel bSide;
    private MemorySegment payload;
    /** Messages b received from a, and a from b. */
    private final Received pings = new Received();
    private final Received pongs = new Received();

    @BeforeEach
    void setUp() {
        a = open(Config.global());
        b = open(Config.global());
        b.setAmHandler(PING, pings::onReceive);
        a.setAmHandler(PONG, pongs::onReceive);
        ab = (TcpEndpoint) a.connect(b.deviceAddress(), b.interfaceAddress());
        progressUntil(() -> ab.conn.acceptDone && b.connectionsForTest().size() == 1
            && b.connectionsForTest().get(0).helloDone, 20000, "the handshake", a, b);
        ba = (TcpEndpoint) b.connect(a.deviceAddress(), a.interfaceAddress());
        aSide = ab.ch;
        bSide = b.connectionsForTest().get(0).ch;
        assertSame(bSide, ba.ch, "b's requester shares the socket a opened");
        assertTrue(aSide.log != null && bSide.log != null, "resume is on: both directions are logged");
        payload = arena.allocate(8, 8);
    }

    private void send(final TcpEndpoint ep, final int id, final long v) {
        final Interface[] both = {a, b};
        while (ep.amShort(id, v, payload, 0, 8) != Status.OK) {
            for (final Interface i : both) {
                i.progress();
            }
        }
    }

    private void progressUntilPings(final long n) {
        progressUntil(() -> pings.count >= n, 20000, n + " pings", a, b);
    }

    /** Both sides' logs stayed within the bound, and the ACK frames stayed few for the bytes carried. */
    private void assertBounded(final String what) {
        assertTrue(errors.isEmpty(), errors.toString());
        assertTrue(!pings.outOfOrder && !pongs.outOfOrder, "every message once and in order");
        for (final TcpChannel c : new TcpChannel[] {aSide, bSide}) {
            final String side = (c == aSide ? "a" : "b") + "'s replay log after " + what;
            assertTrue(c.log.peakCapacity() <= BOUND, side + ": copy ring grew to " + c.log.peakCapacity()
                + " B (bound " + BOUND + "), held up to " + c.log.peakCopied() + " B unacknowledged");
        }
        final long carried = aSide.bytesQueued + bSide.bytesQueued;
        final long acks = a.counters().get(Counter.STREAM_ACKS) + b.counters().get(Counter.STREAM_ACKS);
        assertTrue(acks <= carried / 1024, acks + " ACK frames for " + carried + " bytes carried");
    }

    @Test
    void pingPongOfEightByteMessagesBothWays() {
        final int n = MIB / 8 / 2; // 1 MiB of payload in all
        for (int i = 0; i < n; i++) {
            send(ab, PING, i);
            final long want = i + 1;
            progressUntilPings(want);
            send(ba, PONG, i);
            progressUntil(() -> pongs.count >= want, 20000, "pong " + i, a, b);
        }
        assertEquals(n, pings.count);
        assertEquals(n, pongs.count);
        assertBounded(n + " round trips");
    }

    @Test
    void aWindowedStreamOfEightByteMessagesOneWay() {
        final int n = MIB / 8;
        for (int i = 0; i < n; i += WINDOW) {
            for (int k = i; k < i + WINDOW; k++) {
                send(ab, PING, k);
            }
            progressUntilPings(i + WINDOW);
        }
        assertEquals(n, pings.count);
        assertBounded(n + " messages");
    }

    @Test
    void eightBytePutsInWindowsWithoutAFlush() {
        final MemoryHandle target = md.allocate(8 * WINDOW);
        toClose.add(() -> md.deregister(target));
        final RemoteKey rkey = md.unpackRkey(md.packRkey(target));
        final MemorySegment mem = target.segment();
        final int n = MIB / 8;
        for (int i = 0; i < n; i += WINDOW) {
            for (int k = 0; k < WINDOW; k++) {
                payload.set(ValueLayout.JAVA_LONG, 0, i + k + 1);
                final long at = target.address() + 8L * k;
                progressUntil(() -> ab.putShort(payload, 0, 8, at, rkey) == Status.OK, 20000, "room for a put", a, b);
            }
            final long last = i + WINDOW;
            progressUntil(() -> mem.get(ValueLayout.JAVA_LONG, 8L * (WINDOW - 1)) == last, 20000,
                "window " + i, a, b);
        }
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, TcpTestSupport.await(c, ab.flush(Interface.FLUSH_REMOTE, c), a, b));
        assertEquals(n, ab.ackedSeq, "every put acknowledged");
        assertBounded(n + " puts");
    }

    @Test
    void fetchAddRoundTrips() {
        final MemoryHandle target = md.allocate(64);
        toClose.add(() -> md.deregister(target));
        final RemoteKey rkey = md.unpackRkey(md.packRkey(target));
        final MemorySegment result = arena.allocate(8, 8);
        final int n = MIB / (TcpFrame.HEADER + TcpFrame.ATOMIC_REQ_LEN) + 1; // 1 MiB of requests
        final Completion c = new Completion();
        for (int i = 0; i < n; i++) {
            c.reset(1);
            final Status st = ab.atomic64Fetch(AtomicOp.ADD, 1, result, 0, target.address(), rkey, c);
            assertEquals(Status.OK, TcpTestSupport.await(c, st, a, b), "fetch-add " + i);
            assertEquals(i, result.get(ValueLayout.JAVA_LONG, 0), "fetch-add " + i + "'s old value");
        }
        assertBounded(n + " fetch-adds");
    }

    /**
     * A sender faster than its receiver: zero-copy AMs of 64 KiB (their payloads copied into the log when queued)
     * sent while the receiver progresses only when the sender is refused. {@link TcpSendGate}'s replay window holds
     * the sender's unacknowledged copies at {@code TCP_REPLAY_WINDOW} (one message over at most), far below
     * {@code TCP_REPLAY_MAX}, and every message still arrives once and in order.
     */
    @Test
    void aBulkStreamOfZeroCopyMessagesWaitsAtTheReplayWindow() {
        final int len = 64 * 1024;
        final MemorySegment data = arena.allocate(len, 8);
        final MemorySegment hdr = arena.allocate(8, 8);
        final int n = 32 * MIB / len;
        long refusedAtWindow = 0;
        for (int i = 0; i < n; i++) {
            hdr.set(ValueLayout.JAVA_LONG, 0, i);
            Status st;
            while ((st = ab.amZcopy(PING, hdr, 0, 8, IoVector.of(data, 0, len), null)) == Status.NO_RESOURCE) {
                if (aSide.log.copiedUnacked() >= a.replayWindow) {
                    refusedAtWindow++;
                }
                b.progress();
                a.progress();
            }
            assertTrue(st == Status.OK || st == Status.IN_PROGRESS, "message " + i + ": " + st);
        }
        progressUntilPings(n);
        assertTrue(errors.isEmpty(), errors.toString());
        assertTrue(!pings.outOfOrder, "every message once and in order");
        assertTrue(refusedAtWindow > 0, "the window closed at least once (" + n + " messages of " + len + " B)");
        final long bound = a.replayWindow + len + 64;
        assertTrue(aSide.log.peakCopied() <= bound, "the sender's log held " + aSide.log.peakCopied()
            + " B unacknowledged (window " + a.replayWindow + " B, bound " + bound + " B)");
    }

    /** The messages of one direction: each carries its number in its header, counted from 0. */
    private static final class Received {
        long count;
        boolean outOfOrder;

        Status onReceive(final MemorySegment d, final long o, final long l, final int f) {
            outOfOrder |= d.get(TcpFrame.I64, o) != count;
            count++;
            return Status.OK;
        }
    }
}
