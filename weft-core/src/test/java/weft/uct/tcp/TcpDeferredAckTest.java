package weft.uct.tcp;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
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
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressFor;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * The target defers its OK put acks: puts and post atomics that nobody flushes cost it no send, a flush
 * asks for the ack (a KEEPALIVE, answered after it), a zero-copy put asks at once ({@link TcpFrame#FLAG_ACK}),
 * and a put stream that is never flushed still gets an ack every {@link TcpServerConnection#ACK_DEFER_MAX}.
 */
@Timeout(60)
class TcpDeferredAckTest extends TcpInterfaceFixture {
    private Interface a;
    private Interface b;
    private TcpEndpoint ep;
    private final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
    private MemoryHandle target;
    private RemoteKey rkey;

    @BeforeEach
    void setUp() {
        a = open(Config.global());
        b = open(Config.global());
        ep = (TcpEndpoint) a.connect(b.deviceAddress(), b.interfaceAddress());
        final MemoryHandle t = md.allocate(1 << 20);
        target = t;
        toClose.add(() -> md.deregister(t));
        rkey = md.unpackRkey(md.packRkey(target));
    }

    @Test
    void putsAreAcknowledgedWhenAFlushAsks() {
        final MemorySegment src = arena.allocate(8, 8);
        final long base = target.address();
        for (int i = 0; i < 10; i++) {
            src.set(ValueLayout.JAVA_LONG, 0, 100 + i);
            assertEquals(Status.OK, ep.putShort(src, 0, 8, base + 8L * i, rkey));
        }
        assertEquals(Status.OK, ep.atomic64Post(AtomicOp.ADD, 5, base + 128, rkey));
        final MemorySegment mem = target.segment();
        progressUntil(() -> mem.get(ValueLayout.JAVA_LONG, 128) == 5, 20000, "the puts and the add served", a, b);
        progressFor(50, a, b);
        assertEquals(11, ep.putSeq);
        assertEquals(0, ep.ackedSeq, "served, but no ack sent before a flush asks");
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, TcpTestSupport.await(c, ep.flush(Interface.FLUSH_REMOTE, c), a, b));
        assertEquals(11, ep.ackedSeq);
        for (int i = 0; i < 10; i++) {
            assertEquals(100 + i, mem.get(ValueLayout.JAVA_LONG, 8L * i));
        }
        final Completion again = new Completion().reset(1);
        assertEquals(Status.OK, ep.flush(Interface.FLUSH_REMOTE, again), "nothing left to ask for");
    }

    @Test
    void aPutStreamNeverFlushedStillGetsAcks() {
        final MemorySegment src = arena.allocate(8, 8);
        final int n = 3 * TcpServerConnection.ACK_DEFER_MAX;
        for (int i = 0; i < n; i++) {
            final int at = i;
            progressUntil(() -> ep.putShort(src, 0, 8, target.address() + 8L * (at % 64), rkey) == Status.OK, 20000,
                "room for put " + i, a, b);
        }
        progressUntil(() -> ep.ackedSeq >= n - TcpServerConnection.ACK_DEFER_MAX + 1, 20000,
            "acks for all but the last deferred puts", a, b);
        assertTrue(ep.ackedSeq <= n);
        assertTrue(errors.isEmpty(), errors.toString());
    }

    @Test
    void aZeroCopyPutIsAcknowledgedWithoutAFlush() {
        final MemorySegment small = arena.allocate(8, 8);
        assertEquals(Status.OK, ep.putShort(small, 0, 8, target.address(), rkey));
        final int len = 256 << 10;
        final MemorySegment src = arena.allocate(len, 64);
        src.fill((byte) 7);
        final IoVector iov = new IoVector(1).add(src, 0, len);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, TcpTestSupport.await(c, ep.putZcopy(iov, target.address() + 4096, rkey, c), a, b));
        assertEquals(ep.putSeq, ep.ackedSeq, "the zero-copy put's ack covers the short put before it");
        assertEquals(7, target.segment().get(ValueLayout.JAVA_BYTE, 4096 + len - 1));
    }
}
