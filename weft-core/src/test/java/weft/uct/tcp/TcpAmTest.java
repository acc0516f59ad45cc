package weft.uct.tcp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.stats.Counter;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.IoVector;
import weft.uct.PendingRequest;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/** Active messages between two tcp interfaces of one process. */
@Timeout(60)
class TcpAmTest {
    private UctWorker w1;
    private UctWorker w2;
    private Interface a;
    private Interface b;
    private Endpoint ep;
    private final Arena arena = Arena.ofConfined();
    private final List<byte[]> received = new ArrayList<>();

    @BeforeEach
    void setUp() {
        w1 = new UctWorker();
        w2 = new UctWorker();
        a = TcpTestSupport.open(w1);
        b = TcpTestSupport.open(w2);
        b.setAmHandler(3, (data, off, len, flags) -> {
            received.add(data.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            return Status.OK;
        });
        ep = a.connect(b.deviceAddress(), b.interfaceAddress());
    }

    @AfterEach
    void tearDown() {
        w1.close();
        w2.close();
        arena.close();
    }

    private MemorySegment pattern(final int len, final int seed) {
        final MemorySegment s = arena.allocate(Math.max(1, len));
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    @Test
    void shouldAdvertiseTheTcpCapabilities() {
        final InterfaceAttributes at = a.attributes();
        assertTrue(at.has(Capability.AM_SHORT | Capability.AM_BCOPY | Capability.AM_ZCOPY | Capability.PUT_SHORT
            | Capability.PUT_BCOPY | Capability.PUT_ZCOPY | Capability.GET_BCOPY | Capability.GET_ZCOPY
            | Capability.ATOMIC32 | Capability.ATOMIC64 | Capability.ATOMIC_CPU | Capability.PENDING
            | Capability.CB_SYNC | Capability.CONNECT_TO_IFACE | Capability.EP_CHECK | Capability.EP_KEEPALIVE
            | Capability.ERRHANDLE_PEER_FAILURE | Capability.INTER_NODE | Capability.EVENT_RECV));
        assertTrue(at.amMaxShort() >= 128 && at.amMaxBcopy() == 8192 && at.amMaxZcopy() >= 65536);
        assertTrue(a.isReachable(b.deviceAddress(), b.interfaceAddress()));
        assertTrue(TcpTestSupport.TRANSPORT.devices().stream().anyMatch(d -> d.name().equals("lo")));
        assertTrue(a.eventFd() >= 0);
    }

    @Test
    void shouldDeliverEveryShortSizeUpToTheLimitAndRefuseBeyond() {
        final int max = a.attributes().amMaxShort();
        final int[] sizes = {0, 1, 7, 8, 9, 100, max - 1, max};
        for (final int n : sizes) {
            assertEquals(Status.OK, ep.amShort(3, 0x1122334455667788L + n, pattern(n, n), 0, n));
        }
        assertEquals(Status.INVALID_PARAM, ep.amShort(3, 0, pattern(max + 1, 0), 0, max + 1));
        assertEquals(Status.INVALID_PARAM, ep.amShort(32, 0, pattern(1, 0), 0, 1));
        progressUntil(() -> received.size() == sizes.length, 5000, "short messages", a, b);
        for (int i = 0; i < sizes.length; i++) {
            final byte[] m = received.get(i);
            assertEquals(8 + sizes[i], m.length);
            assertEquals(0x1122334455667788L + sizes[i], MemorySegment.ofArray(m).get(TcpFrame.I64, 0));
            assertArrayEquals(pattern(sizes[i], sizes[i]).asSlice(0, sizes[i]).toArray(ValueLayout.JAVA_BYTE),
                java.util.Arrays.copyOfRange(m, 8, m.length));
        }
    }

    @Test
    void shouldDeliverBcopyUpToSegSize() {
        final int seg = (int) a.attributes().amMaxBcopy();
        final int[] sizes = {0, 1, 4096, seg - 1, seg};
        for (final int n : sizes) {
            final MemorySegment src = pattern(n, 5);
            final long r = ep.amBcopy(3, (dest, off, cap) -> {
                MemorySegment.copy(src, 0, dest, off, n);
                return n;
            });
            assertEquals(n, r);
        }
        assertEquals(Status.INVALID_PARAM.code(), ep.amBcopy(3, (d, o, cap) -> cap + 1));
        progressUntil(() -> received.size() == sizes.length, 5000, "bcopy messages", a, b);
        for (int i = 0; i < sizes.length; i++) {
            assertArrayEquals(pattern(sizes[i], 5).asSlice(0, sizes[i]).toArray(ValueLayout.JAVA_BYTE),
                received.get(i));
        }
    }

    @Test
    void shouldDeliverZcopyWithHeaderAndSeveralIovEntries() {
        final int max = (int) a.attributes().amMaxZcopy();
        final int[] sizes = {0, 1, 1000, 30000, max};
        final Completion c = new Completion();
        int inProgress = 0;
        for (final int n : sizes) {
            final MemorySegment hdr = pattern(16, 1);
            final MemorySegment data = pattern(n, 9);
            final IoVector iov = new IoVector(3).add(data, 0, n / 3).add(data, n / 3, n / 3)
                .add(data, 2 * (n / 3), n - 2 * (n / 3));
            c.expect(1);
            final Status st = ep.amZcopy(3, hdr, 0, 16, iov, c);
            if (st == Status.OK) {
                c.complete(Status.OK);
            } else {
                assertEquals(Status.IN_PROGRESS, st);
                inProgress++;
            }
        }
        assertEquals(Status.INVALID_PARAM, ep.amZcopy(3, pattern(1, 0), 0, 1,
            IoVector.of(pattern(max + 1, 0), 0, max + 1), c));
        progressUntil(() -> received.size() == sizes.length && c.isDone(), 5000, "zcopy messages", a, b);
        assertEquals(Status.OK, c.status());
        for (int i = 0; i < sizes.length; i++) {
            final byte[] m = received.get(i);
            assertEquals(16 + sizes[i], m.length);
            assertArrayEquals(pattern(sizes[i], 9).asSlice(0, sizes[i]).toArray(ValueLayout.JAVA_BYTE),
                java.util.Arrays.copyOfRange(m, 16, m.length), "zcopy of " + sizes[i]);
        }
        assertTrue(inProgress >= 0);
    }

    @Test
    void shouldDeliverBackToBackLargeMessagesThatStraddleTheReceiveBuffer() {
        // large frames queued faster than they are read, mixed with small ones: reads end inside
        // frames, partial frames are moved to the buffer start, reads stop at frame ends
        final int max = (int) a.attributes().amMaxZcopy();
        final int[] sizes = {max, 17_000, 40_000, max - 100, 30_001, 16_383, 65_000};
        final int n = 160;
        final MemorySegment one = pattern(8, 0);
        final long deadline = System.nanoTime() + 20_000_000_000L;
        int refused = 0;
        for (int i = 0; i < n; i++) {
            final MemorySegment h = arena.allocate(8);
            h.set(TcpFrame.I64, 0, i);
            final int len = sizes[i % sizes.length];
            final MemorySegment data = pattern(len, i);
            while (true) {
                assertTrue(System.nanoTime() < deadline, "sending stalled at " + i);
                final Status st = i % 4 == 3 ? ep.amShort(3, i, one, 0, 8)
                    : ep.amZcopy(3, h, 0, 8, IoVector.of(data, 0, len), null);
                if (st == Status.OK || st == Status.IN_PROGRESS) {
                    break;
                }
                assertEquals(Status.NO_RESOURCE, st);
                a.progress(); // mostly the sender: the receiver's socket fills up
                if (i % 2 == 0 || ++refused % 64 == 0) {
                    b.progress(); // (now and then: a sender held at the replay window waits for the receiver's ACK)
                }
            }
        }
        progressUntil(() -> received.size() == n, 20000, "large messages", a, b);
        for (int i = 0; i < n; i++) {
            final byte[] m = received.get(i);
            assertEquals(i, MemorySegment.ofArray(m).get(TcpFrame.I64, 0), "message " + i + " order");
            if (i % 4 != 3) {
                final int len = sizes[i % sizes.length];
                assertEquals(8 + len, m.length, "length of message " + i);
                assertArrayEquals(pattern(len, i).asSlice(0, len).toArray(ValueLayout.JAVA_BYTE),
                    java.util.Arrays.copyOfRange(m, 8, m.length), "payload of message " + i);
            }
        }
    }

    @Test
    void shouldKeepOrderAcrossMixedSendKinds() {
        final int n = 3000;
        final MemorySegment one = pattern(8, 0);
        int sent = 0;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (sent < n) {
            assertTrue(System.nanoTime() < deadline, "sending stalled");
            final int k = sent;
            final Status st;
            switch (k % 3) {
                case 0 -> st = ep.amShort(3, k, one, 0, 8);
                case 1 -> st = Status.ofLength(ep.amBcopy(3, (d, o, cap) -> {
                    d.set(TcpFrame.I64, o, k);
                    return 8 + 1000;
                }));
                default -> {
                    final MemorySegment h = arena.allocate(8);
                    h.set(TcpFrame.I64, 0, k);
                    final Status z = ep.amZcopy(3, h, 0, 8, IoVector.of(pattern(2000, 1), 0, 2000), null);
                    st = z == Status.IN_PROGRESS ? Status.OK : z;
                }
            }
            if (st == Status.OK) {
                sent++;
            } else {
                assertEquals(Status.NO_RESOURCE, st);
                b.progress();
                a.progress();
            }
        }
        progressUntil(() -> received.size() == n, 10000, "all messages", a, b);
        for (int i = 0; i < n; i++) {
            assertEquals(i, MemorySegment.ofArray(received.get(i)).get(TcpFrame.I64, 0), "message " + i + " order");
        }
    }

    @Test
    void shouldReturnNoResourceWhenTheReceiverStallsAndDispatchPendingLater() {
        final MemorySegment src = pattern(8192, 3);
        long sent = 0;
        Status st;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            assertTrue(System.nanoTime() < deadline, "never got NO_RESOURCE");
            final long seq = sent;
            final long r = ep.amBcopy(3, (d, o, cap) -> {
                MemorySegment.copy(src, 0, d, o, 8192);
                d.set(TcpFrame.I64, o, seq);
                return 8192;
            });
            if (r == Status.NO_RESOURCE.code()) {
                break;
            }
            assertEquals(8192, r);
            sent++;
            a.progress(); // the sender progresses, the receiver does not
        }
        // bounded: what we buffered is at most the tx buffer plus the kernel's socket buffers
        assertTrue(sent * 8192 < 64L << 20, "sent " + sent + " messages without back pressure");
        assertTrue(a.counters().get(Counter.NO_RESOURCE) > 0);
        final int[] dispatched = {0};
        final long[] total = {sent};
        final PendingRequest req = new PendingRequest() {
            @Override
            public Status dispatch() {
                final long seq = total[0];
                final long r = ep.amBcopy(3, (d, o, cap) -> {
                    d.set(TcpFrame.I64, o, seq);
                    return 8;
                });
                if (r >= 0) {
                    dispatched[0]++;
                    total[0]++;
                    return Status.OK;
                }
                return Status.ofLength(r);
            }
        };
        assertEquals(Status.OK, ep.pendingAdd(req));
        assertEquals(Status.NO_RESOURCE, ep.flush(Interface.FLUSH_LOCAL, new Completion()));
        TcpTestSupport.progressFor(50, a);
        assertEquals(0, dispatched[0], "dispatched while the receiver is stalled");
        progressUntil(() -> dispatched[0] == 1 && received.size() == total[0], 20000, "drain", a, b);
        for (int i = 0; i < received.size(); i++) {
            assertEquals(i, MemorySegment.ofArray(received.get(i)).get(TcpFrame.I64, 0));
        }
        assertFalse(req.isQueued());
    }

    @Test
    void shouldConnectAnInterfaceToItselfAndBufferOperationsIssuedBeforeTheConnectionIsUp() {
        final int[] got = {0};
        b.setAmHandler(5, (data, off, len, flags) -> {
            got[0] += (int) data.get(TcpFrame.I64, off);
            return Status.OK;
        });
        final Endpoint self = b.connect(b.deviceAddress(), b.interfaceAddress());
        for (int i = 1; i <= 10; i++) { // nothing progressed yet: the connection is not even accepted
            assertEquals(Status.OK, self.amShort(5, i, MemorySegment.NULL, 0, 0));
        }
        progressUntil(() -> got[0] == 55, 5000, "messages to self", b);
    }
}
