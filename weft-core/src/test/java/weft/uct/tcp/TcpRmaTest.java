package weft.uct.tcp;

import weft.uct.AbstractMemoryDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryAtomics;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/** Put, get and atomics served by the target's progress, between two interfaces of one process. */
@Timeout(60)
class TcpRmaTest {
    private static final int REGION = 5 << 20;
    private UctWorker w1;
    private UctWorker w2;
    private Interface a;
    private Interface b;
    private Endpoint ep;
    private final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
    private MemoryHandle target;
    private RemoteKey rkey;
    private final Arena arena = Arena.ofShared();

    @BeforeEach
    void setUp() {
        w1 = new UctWorker();
        w2 = new UctWorker();
        a = TcpTestSupport.open(w1);
        b = TcpTestSupport.open(w2);
        ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        target = md.allocate(REGION);
        rkey = md.unpackRkey(md.packRkey(target));
    }

    @AfterEach
    void tearDown() {
        w1.close();
        w2.close();
        md.deregister(target);
        arena.close();
    }

    private MemorySegment pattern(final long len, final int seed) {
        final MemorySegment s = arena.allocate(Math.max(1, len), 8);
        for (long i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + seed));
        }
        return s;
    }

    private Status await(final Completion c, final Status st) {
        return TcpTestSupport.await(c, st, a, b);
    }

    private void flush() {
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, await(c, ep.flush(Interface.FLUSH_REMOTE, c)));
    }

    @Test
    void shouldPutAndGetEverySizeUpToFourMegabytes() {
        final long base = target.address();
        final long[] sizes = {0, 1, 7, 8, 255, 256, 4096, 8192, 65536, 100_000, 1 << 20, 4 << 20};
        for (final long n : sizes) {
            final MemorySegment src = pattern(n, (int) n);
            final long at = base + (n % 64);
            final Completion c = new Completion().reset(1);
            assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(src, 0, n), at, rkey, c)), "put " + n);
            assertArrayEquals(src.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE),
                target.segment().asSlice(n % 64, n).toArray(ValueLayout.JAVA_BYTE), "target after put " + n);
            final MemorySegment dst = arena.allocate(Math.max(1, n), 8);
            final IoVector iov = new IoVector(2).add(dst, 0, n / 2).add(dst, n / 2, n - n / 2);
            final Completion g = new Completion().reset(1);
            assertEquals(Status.OK, await(g, ep.getZcopy(iov, at, rkey, g)), "get " + n);
            assertEquals(-1, src.asSlice(0, n).mismatch(dst.asSlice(0, n)), "get data of " + n);
        }
    }

    @Test
    void shouldServeALargeGetBeforeAPutIssuedAfterIt() {
        final long n = REGION; // more than the sender socket buffer (4 MiB max) plus the receive window
        final MemorySegment t = target.segment();
        t.asSlice(0, n).fill((byte) 0x11);
        final MemorySegment dst = arena.allocate(n, 8);
        // a small receive window so that the target cannot write the whole reply at once
        weft.ucs.sys.LibC.check(weft.ucs.sys.LibC.setsockoptInt(((TcpEndpoint) ep).ch.fd, weft.ucs.sys.LibC.SOL_SOCKET,
            weft.ucs.sys.LibC.SO_RCVBUF, 256 << 10), "SO_RCVBUF");
        final Completion g = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, ep.getZcopy(IoVector.of(dst, 0, n), target.address(), rkey, g));
        final MemorySegment y = pattern(8, 0x77);
        for (long off = 0; off < n; off += n / 8) {
            assertEquals(Status.OK, ep.putShort(y, 0, 8, target.address() + off, rkey)); // after the get
        }
        flush();
        assertTrue(g.isDone());
        assertEquals(Status.OK, g.status());
        for (long off = 0; off < n; off += 4096) {
            assertEquals(0x11, dst.get(ValueLayout.JAVA_BYTE, off), "get saw a later put at " + off);
        }
        assertEquals(y.get(ValueLayout.JAVA_LONG, 0), t.get(ValueLayout.JAVA_LONG, n / 2));
    }

    @Test
    void shouldPutShortAndBcopyAndGetBcopy() {
        final long base = target.address();
        final MemorySegment src = pattern(256, 1);
        assertEquals(Status.OK, ep.putShort(src, 0, 256, base + 8, rkey));
        assertEquals(8000, ep.putBcopy((d, o, cap) -> {
            MemorySegment.copy(pattern(8000, 2), 0, d, o, 8000);
            return 8000;
        }, base + 10_000, rkey));
        flush(); // put_short/bcopy are done when acknowledged: flush waits for the acks
        assertEquals(-1, src.asSlice(0, 256).mismatch(target.segment().asSlice(8, 256)));
        assertEquals(-1, pattern(8000, 2).asSlice(0, 8000).mismatch(target.segment().asSlice(10_000, 8000)));
        final byte[][] got = new byte[1][];
        final Completion g = new Completion().reset(1);
        assertEquals(Status.OK, await(g, ep.getBcopy((s, o, l) -> got[0] = s.asSlice(o, l)
            .toArray(ValueLayout.JAVA_BYTE), 8000, base + 10_000, rkey, g)));
        assertArrayEquals(pattern(8000, 2).asSlice(0, 8000).toArray(ValueLayout.JAVA_BYTE), got[0]);
    }

    @Test
    void shouldRunEveryAtomicOpWithExactResults() {
        final MemorySegment t = target.segment();
        final long base = target.address();
        final MemorySegment res = arena.allocate(8, 8);
        final Completion c = new Completion();
        t.set(ValueLayout.JAVA_LONG, 0, 0xF0L);
        assertEquals(Status.OK, ep.atomic64Post(AtomicOp.ADD, 0x0F, base, rkey));
        assertEquals(Status.OK, ep.atomic64Post(AtomicOp.AND, 0xFC, base, rkey));
        assertEquals(Status.OK, ep.atomic64Post(AtomicOp.OR, 0x100, base, rkey));
        assertEquals(Status.OK, ep.atomic64Post(AtomicOp.XOR, 0x1, base, rkey));
        assertEquals(Status.INVALID_PARAM, ep.atomic64Post(AtomicOp.CSWAP, 1, base, rkey));
        flush();
        assertEquals(((0xF0L + 0x0F) & 0xFC | 0x100) ^ 1, t.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(Status.OK, ep.atomic64Post(AtomicOp.SWAP, -3, base, rkey)); // a posted set, no reply
        assertEquals(Status.OK, ep.atomic32Post(AtomicOp.SWAP, 77, base + 8, rkey));
        flush();
        assertEquals(-3, t.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(77, t.get(ValueLayout.JAVA_INT, 8));
        t.set(ValueLayout.JAVA_LONG, 0, 10);
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic64Fetch(AtomicOp.ADD, 5, res, 0, base, rkey, c)));
        assertEquals(10, res.get(ValueLayout.JAVA_LONG, 0));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic64Fetch(AtomicOp.SWAP, -7, res, 0, base, rkey, c)));
        assertEquals(15, res.get(ValueLayout.JAVA_LONG, 0));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic64Cswap(-7, 99, res, 0, base, rkey, c)));
        assertEquals(-7, res.get(ValueLayout.JAVA_LONG, 0));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic64Cswap(1, 5, res, 0, base, rkey, c)));
        assertEquals(99, res.get(ValueLayout.JAVA_LONG, 0)); // failed compare: unchanged
        assertEquals(99, t.get(ValueLayout.JAVA_LONG, 0));
        for (final AtomicOp op : new AtomicOp[] {AtomicOp.AND, AtomicOp.OR, AtomicOp.XOR}) {
            c.reset(1);
            final long before = t.get(ValueLayout.JAVA_LONG, 0);
            assertEquals(Status.OK, await(c, ep.atomic64Fetch(op, 0x3C, res, 0, base, rkey, c)));
            assertEquals(before, res.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(op.apply64(before, 0x3C), t.get(ValueLayout.JAVA_LONG, 0));
        }
        // 32-bit, next to a 64-bit neighbour that must stay untouched
        t.set(ValueLayout.JAVA_LONG, 8, 0);
        t.set(ValueLayout.JAVA_INT, 16, 0x7FFFFFFF);
        t.set(ValueLayout.JAVA_INT, 20, 0x5A5A5A5A);
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic32Fetch(AtomicOp.ADD, 1, res, 0, base + 16, rkey, c)));
        assertEquals(0x7FFFFFFF, res.get(ValueLayout.JAVA_INT, 0));
        assertEquals(Integer.MIN_VALUE, t.get(ValueLayout.JAVA_INT, 16));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic32Cswap(Integer.MIN_VALUE, 3, res, 0, base + 16, rkey, c)));
        assertEquals(3, t.get(ValueLayout.JAVA_INT, 16));
        assertEquals(Status.OK, ep.atomic32Post(AtomicOp.XOR, 0xF, base + 16, rkey));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic32Fetch(AtomicOp.SWAP, 42, res, 0, base + 16, rkey, c)));
        assertEquals(3 ^ 0xF, res.get(ValueLayout.JAVA_INT, 0));
        assertEquals(42, t.get(ValueLayout.JAVA_INT, 16));
        assertEquals(0x5A5A5A5A, t.get(ValueLayout.JAVA_INT, 20));
        assertEquals(Status.INVALID_PARAM, ep.atomic64Post(AtomicOp.ADD, 1, base + 4, rkey)); // misaligned
    }

    @Test
    void shouldCountExactlyWithConcurrentRemoteAndLocalContenders() throws Exception {
        final int threads = 3;
        final int perThread = 1000;
        final MemorySegment t = target.segment();
        t.set(ValueLayout.JAVA_LONG, 64, 0);
        t.set(ValueLayout.JAVA_INT, 128, 0);
        final byte[] packed = md.packRkey(target);
        final byte[] dev = b.deviceAddress();
        final byte[] ifa = b.interfaceAddress();
        final AtomicReference<Throwable> err = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        final Thread[] ts = new Thread[threads];
        for (int k = 0; k < threads; k++) {
            ts[k] = new Thread(() -> {
                try (UctWorker w = new UctWorker(); Arena ar = Arena.ofConfined()) {
                    final Interface i = TcpTestSupport.open(w);
                    final Endpoint e = i.connect(dev, ifa);
                    final RemoteKey k2 = md.unpackRkey(packed);
                    final MemorySegment res = ar.allocate(8, 8);
                    final Completion c = new Completion();
                    long sumOld = 0;
                    for (int n = 0; n < perThread; n++) {
                        c.reset(1);
                        Status st = e.atomic64Fetch(AtomicOp.ADD, 1, res, 0, target.address() + 64, k2, c);
                        while (st == Status.NO_RESOURCE) {
                            i.progress();
                            st = e.atomic64Fetch(AtomicOp.ADD, 1, res, 0, target.address() + 64, k2, c);
                        }
                        final long dl = System.nanoTime() + 20_000_000_000L;
                        while (!c.isDone()) {
                            if (System.nanoTime() > dl) {
                                throw new AssertionError("fetch-add timed out");
                            }
                            i.progress();
                        }
                        assertEquals(Status.OK, c.status());
                        sumOld += res.get(ValueLayout.JAVA_LONG, 0);
                        // 32-bit: cswap loop increments
                        while (true) {
                            c.reset(1);
                            final Completion g = c;
                            Status s2 = e.atomic32Fetch(AtomicOp.ADD, 0, res, 0, target.address() + 128, k2, g);
                            while (!g.isDone()) {
                                i.progress();
                            }
                            final int cur = res.get(ValueLayout.JAVA_INT, 0);
                            c.reset(1);
                            s2 = e.atomic32Cswap(cur, cur + 1, res, 0, target.address() + 128, k2, c);
                            while (!c.isDone()) {
                                i.progress();
                            }
                            if (res.get(ValueLayout.JAVA_INT, 0) == cur) {
                                break;
                            }
                            assertEquals(Status.IN_PROGRESS, s2);
                        }
                    }
                    assertTrue(sumOld >= 0);
                } catch (final Throwable x) {
                    err.compareAndSet(null, x);
                } finally {
                    done.incrementAndGet();
                }
            });
            ts[k].start();
        }
        // the target progresses and competes with local CPU atomics on the same words
        int local = 0;
        final long dl = System.nanoTime() + 50_000_000_000L;
        while (done.get() < threads) {
            assertTrue(System.nanoTime() < dl, "contenders did not finish");
            b.progress();
            if (local < perThread) {
                MemoryAtomics.fetch64(AtomicOp.ADD, t, 64, 1);
                int cur;
                do {
                    cur = t.get(ValueLayout.JAVA_INT, 128);
                } while (MemoryAtomics.cswap32(t, 128, cur, cur + 1) != cur);
                local++;
            }
        }
        for (final Thread th : ts) {
            th.join(10_000);
        }
        if (err.get() != null) {
            throw new AssertionError("contender failed", err.get());
        }
        while (local < perThread) {
            MemoryAtomics.fetch64(AtomicOp.ADD, t, 64, 1);
            MemoryAtomics.fetch32(AtomicOp.ADD, t, 128, 1);
            local++;
        }
        assertEquals((long) (threads + 1) * perThread, t.get(ValueLayout.JAVA_LONG, 64));
        assertEquals((threads + 1) * perThread, t.get(ValueLayout.JAVA_INT, 128));
    }

    @Test
    void shouldAnswerBadKeysAndRangesWithAnErrorAndTouchNothing() {
        final MemorySegment t = target.segment();
        final long base = target.address();
        final MemorySegment src = pattern(64, 4);
        final MemorySegment res = arena.allocate(8, 8);
        // the local range check: nothing is sent
        assertEquals(Status.OUT_OF_RANGE, ep.putShort(src, 0, 16, base + REGION - 8, rkey));
        assertEquals(Status.OUT_OF_RANGE, ep.atomic64Post(AtomicOp.ADD, 1, base - 8, rkey));
        // a forged key that claims a larger region: the target refuses
        final RemoteKey forged = md.unpackRkey(RkeyCodec.pack("tcp", ByteBuffer.allocate(32)
            .order(ByteOrder.LITTLE_ENDIAN).putLong(TcpMemoryDomain.INCARNATION)
            .putLong(((AbstractMemoryDomain.Handle<?>) target).region().id()).putLong(base).putLong(REGION * 2L).array()));
        final MemorySegment before = arena.allocate(64);
        MemorySegment.copy(t, REGION - 64, before, 0, 64);
        assertEquals(Status.OK, ep.putShort(src, 0, 64, base + REGION + 8, rkey == null ? null : forged));
        Completion c = new Completion().reset(1);
        assertEquals(Status.OUT_OF_RANGE, await(c, ep.flush(Interface.FLUSH_REMOTE, c)));
        c.reset(1);
        assertEquals(Status.OUT_OF_RANGE, await(c, ep.putZcopy(IoVector.of(src, 0, 64), base + REGION - 32,
            forged, c)));
        c.reset(1);
        assertEquals(Status.OUT_OF_RANGE, await(c, ep.getZcopy(IoVector.of(res, 0, 8), base + REGION, forged, c)));
        c.reset(1);
        assertEquals(Status.OUT_OF_RANGE, await(c, ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, base + REGION,
            forged, c)));
        assertEquals(-1, before.mismatch(t.asSlice(REGION - 64, 64)), "target memory changed");
        // a key of another process incarnation and a key of a deregistered region: INVALID_RKEY
        final RemoteKey foreign = md.unpackRkey(RkeyCodec.pack("tcp", ByteBuffer.allocate(32)
            .order(ByteOrder.LITTLE_ENDIAN).putLong(TcpMemoryDomain.INCARNATION + 2)
            .putLong(((AbstractMemoryDomain.Handle<?>) target).region().id()).putLong(base).putLong(REGION).array()));
        c.reset(1);
        assertEquals(Status.INVALID_RKEY, await(c, ep.getZcopy(IoVector.of(res, 0, 8), base, foreign, c)));
        final MemoryHandle gone = md.allocate(4096);
        final RemoteKey goneKey = md.unpackRkey(md.packRkey(gone));
        md.deregister(gone);
        c.reset(1);
        assertEquals(Status.INVALID_RKEY, await(c, ep.atomic64Cswap(0, 1, res, 0, goneKey.base(), goneKey, c)));
        // a large put refused by the target is drained and the connection keeps working
        final MemorySegment big = pattern(1 << 20, 6);
        c.reset(1);
        assertEquals(Status.OUT_OF_RANGE, await(c, ep.putZcopy(IoVector.of(big, 0, 1 << 20), base + REGION - 4096,
            forged, c)));
        assertEquals(-1, before.mismatch(t.asSlice(REGION - 64, 64)), "target memory changed");
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(src, 0, 64), base, rkey, c)));
        assertEquals(-1, src.asSlice(0, 64).mismatch(t.asSlice(0, 64)));
        // garbage keys never unpack
        assertEquals(Status.INVALID_RKEY, assertThrowsStatus(() -> md.unpackRkey(new byte[] {1, 2, 3})));
        assertEquals(Status.INVALID_RKEY, assertThrowsStatus(() -> md.unpackRkey(RkeyCodec.pack("tcp",
            new byte[31]))));
    }

    private static Status assertThrowsStatus(final Runnable r) {
        try {
            r.run();
        } catch (final weft.ucs.WeftException e) {
            return e.status();
        }
        throw new AssertionError("no exception");
    }

    @Test
    void shouldFlushOnlyWhenPutsAreAcknowledged() {
        final MemorySegment src = pattern(8, 9);
        final long base = target.address();
        assertEquals(Status.OK, ep.flush(Interface.FLUSH_LOCAL, null), "nothing outstanding");
        assertEquals(Status.OK, ep.putShort(src, 0, 8, base + 1024, rkey));
        final Completion c = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, ep.flush(Interface.FLUSH_LOCAL, c));
        TcpTestSupport.progressFor(20, a); // the target does not progress: no ack, no completion
        assertTrue(!c.isDone());
        progressUntil(c::isDone, 5000, "flush", a, b);
        assertEquals(Status.OK, c.status());
        assertEquals(src.get(ValueLayout.JAVA_LONG, 0), target.segment().get(ValueLayout.JAVA_LONG, 1024));
        final Completion ic = new Completion().reset(1);
        assertEquals(Status.OK, ep.putShort(src, 0, 8, base + 2048, rkey));
        assertEquals(Status.OK, await(ic, a.flush(Interface.FLUSH_REMOTE, ic)));
        assertEquals(src.get(ValueLayout.JAVA_LONG, 0), target.segment().get(ValueLayout.JAVA_LONG, 2048));
    }

    @Test
    @org.junit.jupiter.api.Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
    void shouldNotAllocateOnShortMessagesAndSmallRma() {
        final MemorySegment src = arena.allocate(8, 8);
        final MemorySegment res = arena.allocate(8, 8);
        final IoVector iov = IoVector.of(res, 0, 8);
        final long base = target.address();
        final long[] got = {0};
        b.setAmHandler(4, (d, o, l, f) -> {
            got[0]++;
            return Status.OK;
        });
        final Completion c = new Completion();
        final long[] sent = {0};
        final Runnable round = () -> {
            while (ep.amShort(4, 1, src, 0, 8) != Status.OK) {
                a.progress();
            }
            sent[0]++;
            assertEquals(Status.OK, ep.putShort(src, 0, 8, base, rkey));
            c.reset(2);
            assertEquals(Status.IN_PROGRESS, ep.getZcopy(iov, base, rkey, c));
            assertEquals(Status.IN_PROGRESS, ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, base + 8, rkey, c));
            assertEquals(Status.OK, ep.atomic64Post(AtomicOp.ADD, 1, base + 16, rkey));
            long spins = 0;
            while (!c.isDone()) {
                a.progress();
                b.progress();
                if (++spins > 50_000_000L) {
                    throw new AssertionError("round did not complete");
                }
            }
        };
        weft.uct.AllocationMeter.fewestBytes("10k rounds of am short, put short, get zcopy and atomics", () -> {
            for (int i = 0; i < 10_000; i++) {
                round.run();
            }
        }, 512, 30_000);
        progressUntil(() -> got[0] == sent[0], 5000, "all AMs", a, b);
    }
}
