package weft.uct.tcp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * Large zero-copy puts spliced into the socket (WEFT_TCP_SPLICE_THRESH): the bytes arrive intact
 * and in stream order with the frames around them, in pieces when the pipe is small, and a put
 * completes only once the target holds them, so the sender may reuse its memory at once.
 */
@Timeout(60)
class TcpSpliceTest {
    private static final int REGION = 8 << 20;
    private final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
    private final Arena arena = Arena.ofShared();
    private final List<String> problems = new ArrayList<>();
    private UctWorker w1;
    private UctWorker w2;
    private Interface a;
    private Interface b;
    private Endpoint ep;
    private MemoryHandle target;
    private RemoteKey rkey;

    private void open(final Config cfg) {
        w1 = new UctWorker();
        w2 = new UctWorker();
        a = TcpTestSupport.open(w1, cfg, (e, st) -> problems.add("a: " + st));
        b = TcpTestSupport.open(w2, cfg, (e, st) -> problems.add("b: " + st));
        ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        target = md.allocate(REGION);
        rkey = md.unpackRkey(md.packRkey(target));
    }

    @AfterEach
    void tearDown() {
        if (w1 != null) {
            w1.close();
            w2.close();
            md.deregister(target);
        }
        arena.close();
    }

    private MemorySegment pattern(final long len, final int seed) {
        final MemorySegment s = arena.allocate(Math.max(1, len), 4096);
        for (long i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + (i >> 12) + seed));
        }
        return s;
    }

    private Status await(final Completion c, final Status st) {
        return TcpTestSupport.await(c, st, a, b);
    }

    /** No upper limit: puts larger than the pipe go in several vmsplice/splice rounds. */
    private static Config config(final String thresh, final String pipe) {
        return Config.global().with("TCP_SPLICE_THRESH", thresh).with("TCP_SPLICE_PIPE", pipe)
            .with("TCP_SPLICE_MAX", "inf");
    }

    /**
     * Puts of several sizes from unaligned sources, each followed by an active message whose
     * handler checks that the put's bytes are already in place (the frames after spliced bytes do
     * not overtake them); a 4 KiB pipe makes every large put go in many vmsplice/splice rounds, a
     * 1 MiB pipe takes a whole put while the socket takes only part of it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"4k", "1m"})
    void shouldDeliverSplicedPutsIntactAndInStreamOrder(final String pipe) {
        open(config("64k", pipe));
        // a small send buffer: the socket takes only part of what the pipe holds
        weft.ucs.sys.LibC.check(weft.ucs.sys.LibC.setsockoptInt(((TcpEndpoint) ep).ch.fd,
            weft.ucs.sys.LibC.SOL_SOCKET, weft.ucs.sys.LibC.SO_SNDBUF, 64 << 10), "SO_SNDBUF");
        final long[] sizes = {65535, 65536, 512 << 10, (1 << 20) + 12345, 3 << 20};
        final long[] expectSpliced = {0};
        final MemorySegment[] expect = new MemorySegment[1];
        final long[] at = new long[1];
        final int[] delivered = {0};
        b.setAmHandler(4, (data, off, len, flags) -> {
            final long n = expect[0].byteSize();
            final long mismatch = expect[0].mismatch(target.segment().asSlice(at[0] - target.address(), n));
            if (mismatch != -1) {
                problems.add("put of " + n + " not in place when the message after it arrived (byte " + mismatch + ")");
            }
            delivered[0]++;
            return Status.OK;
        });
        int k = 0;
        for (final long n : sizes) {
            final MemorySegment src = pattern(n + 100, k).asSlice(k * 8 + 3, n); // unaligned start and end
            expect[0] = src;
            at[0] = target.address() + 64L * k + 5;
            final Completion c = new Completion().reset(1);
            final Status st = ep.putZcopy(IoVector.of(src, 0, n), at[0], rkey, c);
            TcpTestSupport.progressFor(5, b); // the target drains the socket; the sender's pipe may still hold bytes
            assertEquals(Status.OK, ep.amShort(4, k, src, 0, 8), "message after put " + n);
            assertEquals(Status.OK, await(c, st), "put " + n);
            progressUntil(() -> delivered[0] > 0, 5000, "message", a, b);
            delivered[0] = 0;
            if (n >= 65536) {
                expectSpliced[0] += n;
            }
            k++;
        }
        assertEquals(List.of(), problems);
        assertEquals(expectSpliced[0], a.counters().get(Counter.TX_SPLICED), "bytes spliced (puts of >= 64 KiB)");
    }

    /** One put whose scatter list mixes entries above and below the threshold: they leave in order. */
    @Test
    void shouldKeepAMixedScatterListInOrder() {
        open(config("64k", "1m"));
        final MemorySegment s1 = pattern(200_000, 1);
        final MemorySegment s2 = pattern(100, 2);
        final MemorySegment s3 = pattern(300_001, 3);
        final MemorySegment s4 = pattern(70_000, 4);
        final IoVector iov = new IoVector(4).add(s1, 0, 200_000).add(s2, 0, 100).add(s3, 1, 300_000)
            .add(s4, 0, 70_000);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, await(c, ep.putZcopy(iov, target.address(), rkey, c)));
        final MemorySegment t = target.segment();
        assertEquals(-1, s1.mismatch(t.asSlice(0, 200_000)));
        assertEquals(-1, s2.mismatch(t.asSlice(200_000, 100)));
        assertEquals(-1, s3.asSlice(1, 300_000).mismatch(t.asSlice(200_100, 300_000)));
        assertEquals(-1, s4.mismatch(t.asSlice(500_100, 70_000)));
        assertEquals(570_000, a.counters().get(Counter.TX_SPLICED), "the three large entries were spliced");
    }

    /**
     * The sender overwrites its memory as soon as a put completes: the target must still end with
     * the bytes of the put (the socket referred to the sender's pages until the target read them;
     * completion waits for the target's acknowledgement).
     */
    @Test
    void shouldLetTheSenderReuseItsMemoryOnceAPutCompletes() {
        open(config("64k", "1m"));
        final long n = 2 << 20;
        final MemorySegment src = pattern(n, 9);
        final MemorySegment copy = arena.allocate(n, 8);
        for (int round = 0; round < 4; round++) {
            MemorySegment.copy(src, 0, copy, 0, n);
            final long at = target.address() + (round & 1) * (3L << 20);
            final Completion c = new Completion().reset(1);
            assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(src, 0, n), at, rkey, c)));
            src.fill((byte) (0x5A + round)); // reused at once
            TcpTestSupport.progressFor(20, a, b);
            assertEquals(-1, copy.mismatch(target.segment().asSlice(at - target.address(), n)), "round " + round);
            MemorySegment.copy(copy, 0, src, 0, n);
            for (long i = 0; i < n; i += 4096) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (round * 3 + i));
            }
        }
        assertTrue(a.counters().get(Counter.TX_SPLICED) >= 4 * n);
    }

    /**
     * The target goes away while the pipe holds part of a put: the put and the next one fail with
     * CONNECTION_RESET, the error handler hears of it once, nothing crashes (no SIGPIPE either).
     */
    @Test
    void shouldFailAPutWhoseTargetGoesAwayWhileSpliced() {
        open(config("64k", "1m"));
        weft.ucs.sys.LibC.check(weft.ucs.sys.LibC.setsockoptInt(((TcpEndpoint) ep).ch.fd,
            weft.ucs.sys.LibC.SOL_SOCKET, weft.ucs.sys.LibC.SO_SNDBUF, 64 << 10), "SO_SNDBUF");
        final long n = 4 << 20;
        final MemorySegment src = pattern(n, 3);
        final Completion first = new Completion().reset(1); // connected, and the pipe is open
        assertEquals(Status.OK, await(first, ep.putZcopy(IoVector.of(src, 0, 1 << 20), target.address(), rkey, first)));
        final long before = a.counters().get(Counter.TX_SPLICED);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, ep.putZcopy(IoVector.of(src, 0, n), target.address(), rkey, c));
        final long spliced = a.counters().get(Counter.TX_SPLICED) - before;
        assertTrue(spliced > 0 && spliced < n, "the socket took part of the put: " + spliced);
        w2.close(); // the target goes away with the put half delivered
        progressUntil(c::isDone, 10000, "failed put", a);
        assertEquals(Status.CONNECTION_RESET, c.status());
        assertEquals(List.of("a: CONNECTION_RESET"), problems);
        assertEquals(Status.CONNECTION_RESET, ep.putZcopy(IoVector.of(src, 0, n), target.address(), rkey,
            new Completion().reset(1)));
    }

    /**
     * WEFT_TCP_SPLICE_MAX: entries above it are copied, those within [threshold, max] spliced, in one
     * put's scatter list as in separate puts; the bytes arrive intact either way.
     */
    @Test
    void shouldCopyPutsAboveTheSpliceMaximum() {
        open(Config.global().with("TCP_SPLICE_THRESH", "64k").with("TCP_SPLICE_PIPE", "1m")
            .with("TCP_SPLICE_MAX", "512k"));
        final long big = (512 << 10) + 1;
        final MemorySegment s1 = pattern(big, 1);
        final MemorySegment s2 = pattern(512 << 10, 2);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(s1, 0, big), target.address(), rkey, c)));
        assertEquals(0, a.counters().get(Counter.TX_SPLICED), "a put above the maximum is copied");
        final IoVector iov = new IoVector(2).add(s1, 0, big).add(s2, 0, 512 << 10);
        final Completion c2 = new Completion().reset(1);
        final long at = target.address() + (2L << 20);
        assertEquals(Status.OK, await(c2, ep.putZcopy(iov, at, rkey, c2)));
        assertEquals(512 << 10, a.counters().get(Counter.TX_SPLICED), "only the entry within the limit was spliced");
        final MemorySegment t = target.segment();
        assertEquals(-1, s1.mismatch(t.asSlice(0, big)));
        assertEquals(-1, s1.mismatch(t.asSlice(2L << 20, big)));
        assertEquals(-1, s2.mismatch(t.asSlice((2L << 20) + big, 512 << 10)));
        assertEquals(List.of(), problems);
    }

    @Test
    void shouldCopyEverythingWhenTheThresholdIsInfinite() {
        open(config("inf", "1m"));
        final long n = 1 << 20;
        final MemorySegment src = pattern(n, 5);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(src, 0, n), target.address(), rkey, c)));
        assertEquals(-1, src.mismatch(target.segment().asSlice(0, n)));
        assertEquals(0, a.counters().get(Counter.TX_SPLICED));
    }

    @Test
    void shouldReleaseTheSplicePipeOnClose() {
        final int before = TcpTestSupport.fdCount();
        open(config("64k", "1m"));
        final long n = 1 << 20;
        final MemorySegment src = pattern(n, 6);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(src, 0, n), target.address(), rkey, c)));
        assertEquals(n, a.counters().get(Counter.TX_SPLICED));
        w1.close();
        w2.close();
        md.deregister(target);
        w1 = null;
        assertEquals(before, TcpTestSupport.fdCount(), "descriptors left open (socket, epoll or splice pipe)");
    }
}
