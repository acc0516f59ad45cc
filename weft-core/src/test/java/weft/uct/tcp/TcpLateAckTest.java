package weft.uct.tcp;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;
import weft.uct.Completion;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * The ACK a frame asks for ({@link TcpFrame#FLAG_ASK}) costs no write of its own when this side writes
 * anyway: 4 KiB get replies fill the target's replay log, so about every other reply asks; the requester
 * queues the ACK after the read that found the ask, and the next get request carries it in the same write
 * (one system call per round trip instead of two on the latency path). When nothing follows, the next
 * progress call writes it alone, and the asking side receives it.
 */
@Timeout(60)
class TcpLateAckTest extends TcpInterfaceFixture {
    private static final int SIZE = 4096;
    private final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
    private TcpInterface a;
    private TcpInterface b;
    private TcpEndpoint ep;
    private RemoteKey rkey;
    private long source;

    @BeforeEach
    void setUp() {
        a = open(Config.global());
        b = open(Config.global());
        ep = (TcpEndpoint) a.connect(b.deviceAddress(), b.interfaceAddress());
        final MemoryHandle h = md.allocate(SIZE);
        toClose.add(() -> md.deregister(h));
        h.segment().fill((byte) 3);
        source = h.address();
        rkey = md.unpackRkey(md.packRkey(h));
        progressUntil(() -> ep.conn.acceptDone && b.connectionsForTest().size() == 1
            && b.connectionsForTest().get(0).helloDone, 20000, "the handshake", a, b);
    }

    /** Issues a 4 KiB get; the completion to wait on. */
    private Completion get() {
        final Completion c = new Completion().reset(1);
        final Status st = ep.getBcopy((s, o, l) -> assertEquals(3, s.get(JAVA_BYTE, o + l - 1)), SIZE, source,
            rkey, c);
        assertTrue(st == Status.OK || st == Status.IN_PROGRESS, st.toString());
        if (st == Status.OK) {
            c.reset(0);
        }
        return c;
    }

    private void complete(final Completion c) {
        progressUntil(() -> c.count() == 0, 20000, "the get's reply", a, b);
        assertEquals(Status.OK, c.status());
    }

    @Test
    void anAskedAckRidesWithTheNextRequest() {
        final TcpChannel ch = ep.ch;
        int ridden = 0;
        for (int i = 0; i < 200 && ridden < 5; i++) {
            final boolean waiting = ch.ackWaiting;
            final long writes = ch.writes;
            final long acks = a.counters().get(Counter.STREAM_ACKS);
            final Completion c = get();
            if (waiting) {
                assertEquals(writes + 1, ch.writes, "the waiting ACK and the get request: one write");
                assertFalse(ch.ackWaiting);
                assertTrue(ch.txEmpty(), "both left");
                assertEquals(acks, a.counters().get(Counter.STREAM_ACKS), "no second ACK");
                ridden++;
            }
            complete(c);
        }
        assertEquals(5, ridden, "4 KiB replies ask for ACKs, which the requests carry");
        assertTrue(errors.isEmpty(), errors.toString());
    }

    @Test
    void anAskedAckRidesWithAZeroCopyMessage() {
        final int[] got = new int[1];
        b.setAmHandler(9, (d, o, l, f) -> {
            got[0]++;
            return Status.OK;
        });
        final TcpChannel ch = ep.ch;
        for (int i = 0; i < 200 && !ch.ackWaiting; i++) {
            complete(get());
        }
        assertTrue(ch.ackWaiting, "some reply asked");
        final long writes = ch.writes;
        final MemorySegment header = arena.allocate(8, 8);
        final MemorySegment data = arena.allocate(SIZE, 64);
        final Completion c = new Completion().reset(1);
        final Status st = ep.amZcopy(9, header, 0, 8, new IoVector(1).add(data, 0, SIZE), c);
        assertTrue(st == Status.OK || st == Status.IN_PROGRESS, st.toString());
        assertEquals(writes + 1, ch.writes, "the waiting ACK, the header and the payload: one writev");
        assertFalse(ch.ackWaiting);
        progressUntil(() -> got[0] == 1, 20000, "the message at b", a, b);
        assertTrue(errors.isEmpty(), errors.toString());
    }

    @Test
    void anAckWithNothingToRideOnLeavesAtTheNextProgress() {
        final TcpChannel ch = ep.ch;
        for (int i = 0; i < 200 && !ch.ackWaiting; i++) {
            complete(get());
        }
        assertTrue(ch.ackWaiting, "some reply asked");
        final long writes = ch.writes;
        final TcpReplayLog targetLog = b.connectionsForTest().get(0).ch.log;
        final long forgotten = targetLog.start();
        a.progress();
        assertFalse(ch.ackWaiting);
        assertEquals(writes + 1, ch.writes, "the ACK alone");
        assertTrue(ch.txEmpty());
        progressUntil(() -> targetLog.start() > forgotten, 20000, "the ACK at the target: it forgets the replies", b);
        assertTrue(errors.isEmpty(), errors.toString());
    }
}
