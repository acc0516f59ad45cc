package weft.uct.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * Sockets broken in the middle of a stream ({@code shutdown(SHUT_RDWR)} on every socket of one
 * side, as a network fault would break them) while active messages, puts, gets and atomics flow:
 * the connection comes back on a new socket and everything arrives exactly once and in order; a
 * fault longer than {@code WEFT_FAULT_TIMEOUT}, or a peer that is gone, fails the endpoint with
 * everything outstanding completed with an error.
 */
@Timeout(120)
class TcpResumeTest extends TcpInterfaceFixture {
    private static final int AM_ID = TcpAmStream.AM_ID;
    private static final long WAIT_MS = 20_000;
    private TcpInterface open() {
        return open(Config.global());
    }

    /** {@code len} bytes registered with the tcp domain, deregistered after the test. */
    private MemoryHandle region(final long len) {
        final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
        final MemoryHandle h = md.allocate(len);
        toClose.add(() -> md.deregister(h));
        return h;
    }

    private static RemoteKey keyOf(final MemoryHandle h) {
        final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
        return md.unpackRkey(md.packRkey(h));
    }

    private static void progress(final Interface... ifaces) {
        for (final Interface i : ifaces) {
            i.progress();
        }
    }

    /** Connects both ways and waits until both endpoints share one socket (no switch under way). */
    private static Endpoint[] connectBothWays(final TcpInterface a, final TcpInterface b) {
        final Endpoint ab = a.connect(b.deviceAddress(), b.interfaceAddress());
        final Endpoint ba = b.connect(a.deviceAddress(), a.interfaceAddress());
        final MemorySegment none = MemorySegment.NULL;
        assertEquals(Status.OK, ab.amShort(1, 0, none, 0, 0));
        assertEquals(Status.OK, ba.amShort(1, 0, none, 0, 0));
        progressUntil(() -> a.connections() == 1 && b.connections() == 1
            && !((TcpEndpoint) ab).move.active() && !((TcpEndpoint) ba).move.active(), WAIT_MS, "one shared socket", a, b);
        return new Endpoint[] {ab, ba};
    }

    /** Breaks {@code side}'s sockets: shut down (in-flight bytes still arrive) or, every other time, reset (lost). */
    private static int cut(final TcpInterface side, final int n) {
        return side.breakSocketsForTest(n % 4 >= 2);
    }

    private static void until(final BooleanSupplier cond, final String what, final Interface... ifaces) {
        progressUntil(cond, WAIT_MS, what, ifaces);
    }

    @Test
    void activeMessagesBothWaysSurviveRepeatedBreaksExactlyOnceInOrder() {
        final TcpInterface a = open();
        final TcpInterface b = open();
        final TcpAmStream.Receiver atB = new TcpAmStream.Receiver();
        final TcpAmStream.Receiver atA = new TcpAmStream.Receiver();
        b.setAmHandler(AM_ID, (d, o, l, f) -> atB.onReceive(d, o, l));
        a.setAmHandler(AM_ID, (d, o, l, f) -> atA.onReceive(d, o, l));
        a.setAmHandler(1, (d, o, l, f) -> Status.OK);
        b.setAmHandler(1, (d, o, l, f) -> Status.OK);
        final Endpoint[] eps = connectBothWays(a, b);
        final TcpAmStream.Sender toB = new TcpAmStream.Sender(eps[0], arena);
        final TcpAmStream.Sender toA = new TcpAmStream.Sender(eps[1], arena);
        final int total = 3000;
        int breaks = 0;
        while (toB.next < total || toA.next < total) {
            for (int k = 0; k < 8; k++) {
                if (toB.next < total) {
                    toB.trySend();
                }
                if (toA.next < total) {
                    toA.trySend();
                }
            }
            progress(a, b);
            // a break every 250 messages, on one side and then on the other
            if (toB.next / 250 > breaks && a.brokenConnections() == 0 && b.brokenConnections() == 0) {
                breaks++;
                assertEquals(1, cut(breaks % 2 == 0 ? a : b, breaks));
            }
        }
        until(() -> atB.next == total && atA.next == total, "every message", a, b);
        assertEquals(List.of(), atB.problems);
        assertEquals(List.of(), atA.problems);
        assertEquals(List.of(), errors, "no endpoint failed");
        assertTrue(breaks >= 10, "breaks: " + breaks);
        assertTrue(a.resumes() + b.resumes() >= breaks, "resumes " + a.resumes() + "+" + b.resumes());
        assertEquals(1, a.connections());
        assertEquals(1, b.connections());
    }

    @Test
    void putsGetsAndAtomicsSurviveBreaksWithEveryFetchAddResultUnique() {
        final TcpInterface a = open();
        final TcpInterface b = open();
        final int region = 4 << 20;
        final MemoryHandle target = region(region);
        final RemoteKey key = keyOf(target);
        final MemorySegment mem = target.segment();
        final long base = key.base();
        // [0, 8): fetch-add counter; [8, 16): post-add counter; [4096, 1 MiB): get source;
        // [1 MiB, 4 MiB): put slots
        final long getSrc = 4096;
        final long putArea = 1 << 20;
        for (long i = getSrc; i < putArea; i++) {
            mem.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 5 + 3));
        }
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final int ops = 4000;
        final MemorySegment results = arena.allocate(8L * ops, 8);
        final MemorySegment src = arena.allocate(128 * 1024, 8);
        for (long i = 0; i < src.byteSize(); i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 11 + 1));
        }
        final MemorySegment getDst = arena.allocate(4096L * 64, 8);
        final List<long[]> gets = new ArrayList<>(); // {dst offset, remote offset, length}
        final List<Completion> pending = new ArrayList<>();
        final List<long[]> puts = new ArrayList<>(); // {remote offset, src offset, length}
        long putCursor = putArea;
        int fetches = 0;
        int posts = 0;
        int breaks = 0;
        int getSlot = 0;
        for (int i = 0; i < ops; i++) {
            final int kind = i % 5;
            Status st;
            while (true) {
                final Completion c = new Completion().reset(1);
                switch (kind) {
                    case 0 -> st = ep.atomic64Fetch(AtomicOp.ADD, 1, results, 8L * fetches, base, key, c);
                    case 1 -> st = ep.atomic64Post(AtomicOp.ADD, 3, base + 8, key);
                    case 2 -> {
                        final long len = 1 + i * 37L % 4096; // copied replies: replayable
                        final long remote = getSrc + i * 101L % (putArea - getSrc - 4096);
                        st = ep.getZcopy(IoVector.of(getDst, 4096L * (getSlot % 64), len), base + remote, key, c);
                        if (st == Status.IN_PROGRESS) {
                            gets.add(new long[] {4096L * (getSlot % 64), remote, len, pending.size()});
                        }
                    }
                    case 3 -> {
                        final int len = 1 + i % 64;
                        st = ep.putShort(src, i % 1000, len, base + putCursor, key);
                        if (st == Status.OK) {
                            puts.add(new long[] {putCursor, i % 1000, len});
                        }
                    }
                    default -> {
                        final long len = i % 2 == 0 ? 100 * 1024 : 1 + i * 13L % 20000; // spliced or copied
                        st = ep.putZcopy(IoVector.of(src, 0, len), base + putCursor, key, c);
                        if (st == Status.OK || st == Status.IN_PROGRESS) {
                            puts.add(new long[] {putCursor, 0, len});
                        }
                    }
                }
                if (st != Status.NO_RESOURCE) {
                    if (st == Status.IN_PROGRESS) {
                        pending.add(c);
                    }
                    break;
                }
                progress(a, b);
            }
            assertTrue(st == Status.OK || st == Status.IN_PROGRESS, "operation " + i + ": " + st);
            if (kind == 0) {
                fetches++;
            } else if (kind == 1) {
                posts++;
            } else if (kind == 2) {
                getSlot++;
                if (getSlot % 64 == 0) { // the get buffers are reused: check and wait for the round
                    checkGets(gets, pending, getDst, mem, a, b);
                }
            } else if (kind >= 3) {
                putCursor += puts.get(puts.size() - 1)[2];
                if (putCursor > region - 128 * 1024) {
                    putCursor = putArea; // later puts overwrite earlier ones: only the last count
                }
            }
            if (i % 8 == 0) {
                progress(a, b);
            }
            if (i / 300 > breaks && a.brokenConnections() == 0 && b.brokenConnections() == 0) {
                breaks++;
                assertEquals(1, cut(breaks % 2 == 0 ? a : b, breaks));
            }
        }
        checkGets(gets, pending, getDst, mem, a, b);
        final Completion f = new Completion().reset(1);
        assertEquals(Status.OK, TcpTestSupport.await(f, ep.flush(Interface.FLUSH_REMOTE, f), a, b));
        for (final Completion c : pending) {
            assertEquals(Status.OK, c.status());
        }
        assertEquals(fetches, mem.get(ValueLayout.JAVA_LONG, 0), "every fetch-add applied once");
        assertEquals(3L * posts, mem.get(ValueLayout.JAVA_LONG, 8), "every post-add applied once");
        final BitSet seen = new BitSet(fetches);
        for (int i = 0; i < fetches; i++) {
            final long v = results.get(ValueLayout.JAVA_LONG, 8L * i);
            assertTrue(v >= 0 && v < fetches && !seen.get((int) v), "fetch-add result " + v + " repeated or out of range");
            seen.set((int) v);
        }
        // the last write of each byte wins: replay it in order and compare
        final byte[] expect = new byte[region];
        final byte[] written = new byte[region];
        for (final long[] p : puts) {
            for (long k = 0; k < p[2]; k++) {
                expect[(int) (p[0] + k)] = src.get(ValueLayout.JAVA_BYTE, p[1] + k);
                written[(int) (p[0] + k)] = 1;
            }
        }
        for (int k = (int) putArea; k < region; k++) {
            if (written[k] == 1 && mem.get(ValueLayout.JAVA_BYTE, k) != expect[k]) {
                throw new AssertionError("put data differs at region offset " + k);
            }
        }
        assertEquals(List.of(), errors, "no endpoint failed");
        assertTrue(breaks >= 10, "breaks: " + breaks);
        assertTrue(a.resumes() + b.resumes() >= breaks, "resumes " + a.resumes() + "+" + b.resumes());
    }

    @Test
    void aPutPayloadStreamingIntoMemoryWhenTheSocketBreaksGoesOnFromTheOffsetReached() {
        final TcpInterface a = open();
        final TcpInterface b = open();
        final int len = 16 << 20;
        final MemoryHandle target = region(len);
        final RemoteKey key = keyOf(target);
        final MemorySegment mem = target.segment();
        mem.fill((byte) 0);
        final MemorySegment src = arena.allocate(len, 4096);
        for (long i = 0; i < len; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (1 + i % 251)); // never 0
        }
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final Completion c = new Completion().reset(1);
        final Status st = ep.putZcopy(IoVector.of(src, 0, len), key.base(), key, c);
        assertTrue(st == Status.IN_PROGRESS, st.toString());
        // break while the payload streams into b's memory: part of it there, not all
        until(() -> mem.get(ValueLayout.JAVA_BYTE, 1 << 20) != 0, "the first MiB", a, b);
        final boolean midway = mem.get(ValueLayout.JAVA_BYTE, len - 1) == 0;
        assertEquals(1, a.breakSocketsForTest(false));
        assertEquals(Status.OK, TcpTestSupport.await(c, Status.IN_PROGRESS, a, b));
        assertEquals(-1, mem.mismatch(src), "the put's bytes");
        assertTrue(midway, "the socket broke before the payload was all in (else the test proved nothing)");
        assertEquals(List.of(), errors);
        assertEquals(1, a.resumes());
    }

    @Test
    void aGetReplyStreamingIntoMemoryWhenTheSocketIsResetIsSentAgainFromWhereThePeerStopped() {
        final TcpInterface a = open();
        final TcpInterface b = open();
        final int len = 32 << 20;
        final MemoryHandle target = region(len);
        final RemoteKey key = keyOf(target);
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final MemorySegment dst = arena.allocate(len, 4096);
        dst.fill((byte) 0);
        final MemorySegment mem = target.segment();
        for (long i = 0; i < len; i += 8) {
            mem.set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L | 1);
        }
        final Completion c = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, ep.getZcopy(IoVector.of(dst, 0, len), key.base(), key, c));
        until(() -> dst.get(ValueLayout.JAVA_BYTE, 1 << 20) != 0, "the first MiB", a, b);
        assertTrue(dst.get(ValueLayout.JAVA_BYTE, len - 8) == 0, "the reply is still streaming");
        assertEquals(1, a.breakSocketsForTest(true));
        until(c::isDone, "the get", a, b);
        assertEquals(Status.OK, c.status());
        assertEquals(-1, dst.mismatch(mem), "the get's bytes");
        assertEquals(List.of(), errors);
        assertTrue(a.resumes() + b.resumes() >= 1, "resumed");
    }

    @Test
    void largeGetRepliesFollowedByPutsToTheSameBytesReplayWhatTheGetsRead() {
        final TcpInterface a = open();
        final TcpInterface b = open();
        final int slot = 192 * 1024; // above the copied-reply limit: replies are read from the region
        final int slots = 8;
        final MemoryHandle target = region((long) slot * slots);
        final RemoteKey key = keyOf(target);
        final MemorySegment mem = target.segment();
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final int rounds = 160;
        // generation g of slot s holds bytes pattern(g, s, i); round r reads slot r % slots (generation
        // r / slots) and at once puts generation r / slots + 1 over it: the get must see the older one
        for (int s = 0; s < slots; s++) {
            fill(mem, (long) s * slot, slot, 0, s);
        }
        final MemorySegment src = arena.allocate((long) slot * slots, 4096);
        final MemorySegment dst = arena.allocate((long) slot * rounds, 4096);
        final List<Completion> gets = new ArrayList<>();
        final List<Completion> puts = new ArrayList<>();
        int breaks = 0;
        for (int r = 0; r < rounds; r++) {
            final int s = r % slots;
            final int gen = r / slots;
            final long off = (long) s * slot;
            final Completion g = new Completion().reset(1);
            final IoVector into = IoVector.of(dst, (long) r * slot, slot);
            final Status gs = issue(() -> ep.getZcopy(into, key.base() + off, key, g), a, b);
            assertEquals(Status.IN_PROGRESS, gs, "get " + r);
            gets.add(g);
            if (r >= slots) {
                until(puts.get(r - slots)::isDone, "the slot's previous put", a, b); // its source is rewritten now
            }
            fill(src, off, slot, gen + 1, s);
            final Completion p = new Completion().reset(1);
            final Status ps = issue(() -> ep.putZcopy(IoVector.of(src, off, slot), key.base() + off, key, p), a, b);
            assertTrue(ps == Status.IN_PROGRESS || ps == Status.OK, "put " + r + ": " + ps);
            puts.add(ps == Status.OK ? new Completion().reset(0) : p);
            if (r % 4 == 1) {
                progress(a, b); // some replies leave, some are still in flight when the socket breaks
            }
            if (r % 16 == 7 && a.brokenConnections() == 0 && b.brokenConnections() == 0) {
                breaks++;
                assertEquals(1, cut(breaks % 2 == 0 ? a : b, breaks));
            }
        }
        for (int r = 0; r < rounds; r++) {
            until(gets.get(r)::isDone, "get " + r, a, b);
            assertEquals(Status.OK, gets.get(r).status(), "get " + r);
            final int s = r % slots;
            final int gen = r / slots;
            for (long i = 0; i < slot; i += 4099) {
                if (dst.get(ValueLayout.JAVA_BYTE, (long) r * slot + i) != pattern(gen, s, i)) {
                    throw new AssertionError("get " + r + " read other bytes than generation " + gen + " at " + i);
                }
            }
        }
        for (final Completion p : puts) {
            until(p::isDone, "put", a, b);
            assertEquals(Status.OK, p.status());
        }
        assertEquals(List.of(), errors, "no endpoint failed");
        assertTrue(breaks >= 8, "breaks: " + breaks);
        assertTrue(a.resumes() + b.resumes() >= breaks, "resumes " + a.resumes() + "+" + b.resumes());
    }

    private static byte pattern(final int gen, final int s, final long i) {
        return (byte) (i * 31 + gen * 17 + s * 5 + 1);
    }

    private static void fill(final MemorySegment m, final long off, final int n, final int gen, final int s) {
        for (long i = 0; i < n; i++) {
            m.set(ValueLayout.JAVA_BYTE, off + i, pattern(gen, s, i));
        }
    }

    /** Issues an operation, progressing while the transport has no room for it. */
    private static Status issue(final Supplier<Status> op, final Interface a, final Interface b) {
        while (true) {
            final Status st = op.get();
            if (st != Status.NO_RESOURCE) {
                return st;
            }
            progress(a, b);
        }
    }

    private static void checkGets(final List<long[]> gets, final List<Completion> pending, final MemorySegment dst,
                                  final MemorySegment mem, final Interface a, final Interface b) {
        for (final long[] g : gets) {
            final Completion c = pending.get((int) g[3]);
            until(c::isDone, "get", a, b);
            assertEquals(Status.OK, c.status());
            for (long k = 0; k < g[2]; k++) {
                if (dst.get(ValueLayout.JAVA_BYTE, g[0] + k) != mem.get(ValueLayout.JAVA_BYTE, g[1] + k)) {
                    throw new AssertionError("get data differs at byte " + k + " of " + g[2]);
                }
            }
        }
        gets.clear();
    }

    @Test
    void aFaultLongerThanTheLimitFailsTheEndpointAndCompletesEverythingWithAnError() {
        final TcpInterface[] p = pairWithLimit("400ms");
        final TcpInterface a = p[0];
        final TcpInterface b = p[1];
        final MemoryHandle target = region(4096);
        final RemoteKey key = keyOf(target);
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final MemorySegment buf = arena.allocate(4096, 8);
        final Completion first = new Completion().reset(1);
        // a round trip: the handshake is behind (a fault during it fails at once, as before)
        assertEquals(Status.OK, TcpTestSupport.await(first, ep.getZcopy(IoVector.of(buf, 0, 8), key.base(), key, first),
            a, b));
        assertEquals(1, a.breakSocketsForTest(false));
        // b is not progressed: a's resume hellos get no answer, for longer than the limit
        final Completion get = new Completion().reset(1);
        final Completion fetch = new Completion().reset(1);
        final Completion flush = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, ep.getZcopy(IoVector.of(buf, 0, 64), key.base(), key, get));
        assertEquals(Status.IN_PROGRESS, ep.atomic64Fetch(AtomicOp.ADD, 1, buf, 64, key.base(), key, fetch));
        assertEquals(Status.OK, ep.amShort(AM_ID, 2, MemorySegment.NULL, 0, 0));
        assertEquals(Status.IN_PROGRESS, ep.flush(Interface.FLUSH_REMOTE, flush));
        until(() -> !errors.isEmpty(), "the endpoint's failure", a);
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
        assertEquals(Status.CONNECTION_RESET, get.status());
        assertEquals(Status.CONNECTION_RESET, fetch.status());
        assertEquals(Status.CONNECTION_RESET, flush.status());
        assertEquals(Status.CONNECTION_RESET, ep.amShort(AM_ID, 3, MemorySegment.NULL, 0, 0));
        assertEquals(0, a.brokenConnections());
        // the other side gives up too, and nothing is left open
        until(() -> b.connections() == 0 && b.brokenConnections() == 0, "the peer's side to give up", b);
        assertEquals(0, a.connections());
    }

    /** a and b with {@code WEFT_FAULT_TIMEOUT=limit}, a connected to b (one message delivered). */
    private TcpInterface[] pairWithLimit(final String limit) {
        final Config c = Config.global().with("FAULT_TIMEOUT", limit);
        final TcpInterface a = open(c);
        final TcpInterface b = open(c);
        b.setAmHandler(AM_ID, (d, o, l, f) -> Status.OK);
        return new TcpInterface[] {a, b};
    }

    private static Endpoint connected(final TcpInterface a, final TcpInterface b) {
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        assertEquals(Status.OK, ep.amShort(AM_ID, 1, MemorySegment.NULL, 0, 0));
        until(() -> b.serverConnections() == 1, "connection", a, b);
        return ep;
    }

    @Test
    void aPeerThatIsGoneFailsAtOnceInsteadOfWaitingForTheLimit() {
        final TcpInterface[] p = pairWithLimit("60s");
        final TcpInterface a = p[0];
        final TcpInterface b = p[1];
        final Endpoint ep = connected(a, b);
        final Completion flush = new Completion().reset(1);
        assertEquals(Status.OK, ep.amShort(AM_ID, 2, MemorySegment.NULL, 0, 0));
        b.close(); // its listening socket goes: a reconnect is refused
        final Status st = ep.flush(Interface.FLUSH_REMOTE, flush);
        // bounded by the test's timeout, far below the 60 s limit
        until(() -> !errors.isEmpty(), "the endpoint's failure", a);
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
        if (st == Status.IN_PROGRESS) {
            assertEquals(Status.CONNECTION_RESET, flush.status());
        }
        assertEquals(0, a.brokenConnections());
        assertEquals(0, a.connections());
    }

    @Test
    void faultTimeoutZeroFailsAtTheFirstBreakAsBefore() {
        final TcpInterface[] p = pairWithLimit("0");
        final TcpInterface a = p[0];
        final TcpInterface b = p[1];
        connected(a, b);
        assertEquals(1, b.breakSocketsForTest(false));
        until(() -> !errors.isEmpty(), "the endpoint's failure", a, b);
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
        assertEquals(0, a.resumes() + b.resumes());
    }
}
