package weft.uct.tcp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.IoVector;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * What a connection costs in memory grows with what it carries, not with the worst case (issue 17: at most
 * 16 KiB of private memory per connected peer): a connection that carried a few small messages keeps its
 * write queue and replay log at their first sizes, and a queue that fills grows and still delivers in order.
 */
@Timeout(60)
class TcpFootprintTest {
    private static final int AM = 7;
    private UctWorker w1;
    private UctWorker w2;
    private TcpInterface a;
    private TcpInterface b;
    private final Arena arena = Arena.ofShared();
    private final List<Long> got = new ArrayList<>();

    @BeforeEach
    void setUp() {
        w1 = new UctWorker();
        w2 = new UctWorker();
        a = (TcpInterface) TcpTestSupport.open(w1, Config.global(), (ep, st) -> { });
        b = (TcpInterface) TcpTestSupport.open(w2, Config.global(), (ep, st) -> { });
        b.setAmHandler(AM, (d, o, l, f) -> {
            got.add(d.get(TcpFrame.I64, o));
            return Status.OK;
        });
    }

    @AfterEach
    void tearDown() {
        w1.close();
        w2.close();
        arena.close();
    }

    private TcpEndpoint connected() {
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final TcpEndpoint t = (TcpEndpoint) ep;
        progressUntil(() -> t.ch.connected && t.ch.log != null, 20000, "the handshake", a, b);
        return t;
    }

    @Test
    void aConnectionThatCarriedSmallMessagesKeepsItsFirstSizes() {
        final TcpEndpoint ep = connected();
        for (long i = 0; i < 10; i++) {
            final long seq = i;
            progressUntil(() -> ep.amShort(AM, seq, MemorySegment.NULL, 0, 0) == Status.OK, 20000, "room", a, b);
        }
        // a bcopy AM (how a wireup goes) takes only the room it needs
        assertEquals(100L, ep.amBcopy(AM, (d, o, cap) -> {
            d.set(TcpFrame.I64, o, 10L);
            return 100;
        }));
        progressUntil(() -> got.size() == 11, 20000, "11 messages", a, b);
        assertEquals(10L, got.get(10));
        assertEquals(TcpWriteQueue.INIT, ep.ch.iovCapacity(), "write queue entries");
        assertTrue(ep.ch.log.capacity() <= TcpReplayLog.FIRST_CAP, "replay ring " + ep.ch.log.capacity() + " B");
        assertEquals(TcpReplayLog.FIRST_ENTRIES, ep.ch.log.entryCapacity(), "replay log entries");
        assertTrue(16L * ep.ch.iovCapacity() + ep.ch.log.capacity() <= 2048,
            "the queue and the log of a quiet connection fit in 2 KiB");
        assertEquals(TcpChannel.FIRST_BUF, ep.ch.txCap, "tx buffer");
        final TcpChannel served = served();
        assertEquals(TcpChannel.FIRST_BUF, served.rxCap, "the peer's rx buffer");
        assertEquals(TcpChannel.FIRST_BUF, served.txCap, "the peer's tx buffer");
    }

    /** The channel of b's only connection (the one a opened). */
    private TcpChannel served() {
        final List<TcpConnection> conns = b.connectionsForTest();
        assertEquals(1, conns.size(), "b's connections");
        return conns.get(0).ch;
    }

    @Test
    void theBuffersGrowForALargeFrameAndABurstAndKeepTheStreamIntact() {
        final TcpEndpoint ep = connected();
        final int big = 3 * TcpChannel.FIRST_BUF; // an AM larger than both first buffers
        final MemorySegment payload = arena.allocate(big);
        payload.set(TcpFrame.I64, 0, 1000);
        final List<Long> sent = new ArrayList<>();
        // small messages queued behind a held socket, then the large one, then more small ones: the
        // tx ring grows while the first one still holds queued frames
        ep.ch.held = true;
        for (long i = 0; i < 40; i++) {
            final long seq = i;
            assertEquals(Status.OK, ep.amShort(AM, seq, MemorySegment.NULL, 0, 0), "queued " + i);
            sent.add(seq);
        }
        assertEquals(TcpChannel.FIRST_BUF, ep.ch.txCap, "40 small frames fit the first ring");
        assertEquals(big, ep.amBcopy(AM, (d, o, cap) -> {
            MemorySegment.copy(payload, 0, d, o, big);
            return big;
        }), "the large frame");
        sent.add(1000L);
        for (long i = 40; i < 80; i++) {
            assertEquals(Status.OK, ep.amShort(AM, i, MemorySegment.NULL, 0, 0), "queued " + i);
            sent.add(i);
        }
        assertTrue(ep.ch.txCap > TcpChannel.FIRST_BUF, "the tx ring grew");
        ep.ch.held = false;
        ep.ch.owner.onWritable();
        progressUntil(() -> got.size() == sent.size(), 20000, sent.size() + " messages", a, b);
        assertEquals(sent, got, "every message once, in order");
        assertTrue(served().rxCap > TcpChannel.FIRST_BUF, "the peer's rx buffer grew for the large frame");
    }

    @Test
    void aReadThatFillsTheFirstRxBufferGrowsIt() {
        final TcpEndpoint ep = connected();
        ep.ch.held = true; // 100 small frames (2,400 bytes) leave in one write: the peer's first read fills 1 KiB
        for (long i = 0; i < 100; i++) {
            assertEquals(Status.OK, ep.amShort(AM, i, MemorySegment.NULL, 0, 0), "queued " + i);
        }
        ep.ch.held = false;
        ep.ch.owner.onWritable();
        progressUntil(() -> got.size() == 100, 20000, "100 messages", a, b);
        for (int i = 0; i < 100; i++) {
            assertEquals(i, got.get(i), "message " + i);
        }
        assertTrue(served().rxCap > TcpChannel.FIRST_BUF, "a busy connection reads into its full buffer");
    }

    @Test
    void aWriteQueueThatFillsGrowsAndDeliversInOrder() {
        final TcpEndpoint ep = connected();
        final int n = 60; // a header entry and a payload entry each: 120 entries, past 16, 32 and 64
        final MemorySegment hdr = arena.allocate(8);
        final MemorySegment data = arena.allocate(8L * n);
        final Completion c = new Completion();
        ep.ch.held = true; // queue, do not write: the queue fills as behind a slow socket
        for (int i = 0; i < n; i++) {
            hdr.set(TcpFrame.I64, 0, i);
            data.set(TcpFrame.I64, 8L * i, i);
            c.expect(1);
            final Status st = ep.amZcopy(AM, hdr, 0, 8, new IoVector(1).add(data, 8L * i, 8), c);
            assertEquals(Status.IN_PROGRESS, st, "queued while held");
        }
        assertTrue(ep.ch.iovCapacity() >= 2 * n && ep.ch.iovCapacity() <= TcpWriteQueue.CAP,
            "grown to " + ep.ch.iovCapacity());
        ep.ch.held = false;
        ep.ch.owner.onWritable(); // as when epoll reports the socket writable
        progressUntil(() -> got.size() == n && c.isDone(), 20000, n + " messages", a, b);
        assertEquals(Status.OK, c.status());
        for (int i = 0; i < n; i++) {
            assertEquals(i, got.get(i), "message " + i + " (its header)");
        }
    }
}
