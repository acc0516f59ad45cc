package weft.uct.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RkeyCodec;
import weft.uct.Transport;
import weft.uct.Transports;

/**
 * Generic error cases: bad remote keys, out-of-range remote addresses, unsupported operations,
 * a peer killed with SIGKILL and a peer that closes its interface. Each must give a clear status
 * or exception, lose nothing else, and never hang.
 */
@Timeout(60)
class ErrorConformanceTest {
    /** How long a survivor may take to notice a dead or closed peer. */
    static final long DETECT_MS = 5_000;

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#all")
    void badRemoteKeysAreRejectedAtUnpack(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final byte[] good = f.peer.packedRkey();
            final Map<String, byte[]> bad = new LinkedHashMap<>();
            final Random rnd = new Random(c.toString().hashCode());
            final byte[] garbage = new byte[Math.max(16, good.length)];
            rnd.nextBytes(garbage);
            bad.put("random garbage", garbage);
            bad.put("empty", new byte[0]);
            bad.put("first 5 bytes", Arrays.copyOf(good, 5));
            bad.put("half", Arrays.copyOf(good, good.length / 2));
            bad.put("last byte missing", Arrays.copyOf(good, good.length - 1));
            bad.put("one byte too many", Arrays.copyOf(good, good.length + 1));
            final byte[] version = good.clone();
            version[4] ^= 0x7F;
            bad.put("unknown version", version);
            bad.put("envelope of another transport name",
                RkeyCodec.pack("not-" + f.transport.name(), Arrays.copyOfRange(good, 8 + f.transport.name().length(),
                    good.length)));
            for (final Transport other : Transports.all()) {
                if (!other.name().equals(f.transport.name()) && !other.devices().isEmpty()) {
                    final byte[] k = foreignKey(other);
                    if (k != null) {
                        bad.put("key of transport " + other.name(), k);
                    }
                }
            }
            for (final Map.Entry<String, byte[]> e : bad.entrySet()) {
                final WeftException ex = assertThrows(WeftException.class, () -> f.md.unpackRkey(e.getValue()).close(),
                    e.getKey() + " must be rejected by " + c);
                assertEquals(Status.INVALID_RKEY, ex.status(), e.getKey() + " on " + c + ": " + ex.getMessage());
            }
            assertThrows(WeftException.class, () -> f.md.unpackRkey(null), "null key on " + c);
        }
    }

    private static byte[] foreignKey(final Transport other) {
        final MemoryDomain md = other.memoryDomain();
        final MemoryHandle h;
        java.lang.foreign.Arena arena = null;
        if (md.attributes().has(MemoryDomainAttributes.ALLOC)) {
            h = md.allocate(4096);
        } else if (md.attributes().has(MemoryDomainAttributes.REG)) {
            arena = java.lang.foreign.Arena.ofConfined();
            h = md.register(arena.allocate(4096, 64));
        } else {
            return null;
        }
        try {
            return md.packRkey(h);
        } finally {
            md.deregister(h);
            if (arena != null) {
                arena.close();
            }
        }
    }

    /** One remote operation at an address, returning its final status (direct or through the completion). */
    private record Op(String name, long capability, int size, Function<Long, Status> run) {
    }

    private static List<Op> ops(final Fixture f) {
        final MemorySegment buf = f.local(64);
        final List<Op> l = new ArrayList<>();
        l.add(new Op("putShort", Capability.PUT_SHORT, 8, a -> f.ep.putShort(buf, 0, 8, a, f.rkey)));
        l.add(new Op("putBcopy", Capability.PUT_BCOPY, 8, a -> {
            final long[] capSeen = {-1};
            final long r = f.ep.putBcopy((d, o, cap) -> {
                capSeen[0] = cap;
                final long n = Math.min(8, cap); // a packer never writes past its capacity
                MemorySegment.copy(buf, 0, d, o, n);
                return n;
            }, a, f.rkey);
            if (r >= 0 && capSeen[0] >= 0 && capSeen[0] < 8) {
                throw new AssertionError("putBcopy at region end + " + (a - f.peer.regionAddress() - f.peer.regionLength())
                    + " on " + f.kase + " gave the packer a capacity of " + capSeen[0] + " (< 8 <= putMaxBcopy "
                    + f.attrs.putMaxBcopy() + ") and returned " + r + ": an out-of-range put is silently truncated"
                    + " instead of answering OUT_OF_RANGE");
            }
            return Status.ofLength(r);
        }));
        l.add(new Op("putZcopy", Capability.PUT_ZCOPY, 8, a -> f.complete(cp -> f.ep.putZcopy(IoVector.of(buf, 0, 8),
            a, f.rkey, cp), "putZcopy")));
        l.add(new Op("getBcopy", Capability.GET_BCOPY, 8, a -> f.complete(cp -> f.ep.getBcopy((s, o, n) -> { },
            8, a, f.rkey, cp), "getBcopy")));
        l.add(new Op("getZcopy", Capability.GET_ZCOPY, 8, a -> f.complete(cp -> f.ep.getZcopy(IoVector.of(buf, 8, 8),
            a, f.rkey, cp), "getZcopy")));
        l.add(new Op("atomic64Post ADD", Capability.ATOMIC64, 8, a -> f.ep.atomic64Post(AtomicOp.ADD, 1, a, f.rkey)));
        l.add(new Op("atomic64Fetch ADD", Capability.ATOMIC64, 8, a -> f.complete(cp -> f.ep.atomic64Fetch(AtomicOp.ADD,
            1, buf, 16, a, f.rkey, cp), "atomic64Fetch")));
        l.add(new Op("atomic64Cswap", Capability.ATOMIC64, 8, a -> f.complete(cp -> f.ep.atomic64Cswap(0, 1, buf, 16,
            a, f.rkey, cp), "atomic64Cswap")));
        l.add(new Op("atomic32Post ADD", Capability.ATOMIC32, 4, a -> f.ep.atomic32Post(AtomicOp.ADD, 1, a, f.rkey)));
        l.add(new Op("atomic32Fetch ADD", Capability.ATOMIC32, 4, a -> f.complete(cp -> f.ep.atomic32Fetch(AtomicOp.ADD,
            1, buf, 24, a, f.rkey, cp), "atomic32Fetch")));
        l.add(new Op("atomic32Cswap", Capability.ATOMIC32, 4, a -> f.complete(cp -> f.ep.atomic32Cswap(0, 1, buf, 24,
            a, f.rkey, cp), "atomic32Cswap")));
        return l;
    }

    private static boolean opSupported(final Fixture f, final Op op) {
        if (!f.attrs.has(op.capability)) {
            return false;
        }
        final String n = op.name;
        final int bits = n.startsWith("atomic32") ? f.attrs.atomic32Ops() : f.attrs.atomic64Ops();
        if (n.endsWith("ADD")) {
            return (bits & AtomicOp.ADD.bit()) != 0;
        }
        if (n.endsWith("Cswap")) {
            return (bits & AtomicOp.CSWAP.bit()) != 0;
        }
        return true;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#all")
    void outOfRangeAccessesFailAndTouchNothing(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final long len = f.peer.regionLength();
            final byte[] tail = Patterns.bytes(64, 9);
            final byte[] head = Patterns.bytes(64, 10);
            f.peer.write(len - 64, tail);
            f.peer.write(0, head);
            int checked = 0;
            for (final Op op : ops(f)) {
                if (!opSupported(f, op)) {
                    continue;
                }
                final long base = f.peer.regionAddress();
                final long[] addrs = {base + len, base + len - op.size / 2, base - 8, base + len + (1L << 30),
                    base + len + 4096};
                for (final long a : addrs) {
                    if (op.name.startsWith("atomic") && (a & (op.size - 1)) != 0) {
                        continue; // misaligned atomics may fail for alignment instead
                    }
                    final Status st;
                    try {
                        st = op.run.apply(a);
                    } catch (final RuntimeException e) {
                        throw new AssertionError(op.name + " at region end + " + (a - base - len) + " on " + c
                            + " threw instead of answering OUT_OF_RANGE", e);
                    }
                    assertEquals(Status.OUT_OF_RANGE, st, op.name + " at region end + " + (a - base - len) + " on " + c);
                    checked++;
                }
            }
            Assumptions.assumeTrue(checked > 0, c + " advertises no remote memory operation");
            f.flush(Interface.FLUSH_REMOTE);
            assertArrayEquals(tail, f.peer.read(len - 64, 64), "the last 64 bytes of the region changed on " + c);
            assertArrayEquals(head, f.peer.read(0, 64), "the first 64 bytes of the region changed on " + c);
            // the endpoint still works: nothing else was lost
            for (final Op op : ops(f)) {
                if (opSupported(f, op) && op.name.startsWith("put")) {
                    assertEquals(Status.OK, op.run.apply(base(f) + 128), op.name + " in range after the errors on " + c);
                }
            }
            assertTrue(f.errors.isEmpty(), () -> "out-of-range accesses must not fail the endpoint: " + f.errors);
        }
    }

    private static long base(final Fixture f) {
        return f.peer.regionAddress();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#all")
    void unadvertisedOperationsAnswerUnsupported(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final List<String> checked = new ArrayList<>();
            final long addr = f.raddr(Peer.ATOMIC_BASE + 8192);
            for (final Op op : ops(f)) {
                if (!opSupported(f, op)) {
                    assertEquals(Status.UNSUPPORTED, op.run.apply(addr), op.name + " is not advertised by " + c);
                    checked.add(op.name);
                }
            }
            final MemorySegment buf = f.local(64);
            if (!f.attrs.has(Capability.AM_SHORT)) {
                assertEquals(Status.UNSUPPORTED, f.ep.amShort(1, 0, buf, 0, 0), "amShort on " + c);
                checked.add("amShort");
            }
            if (!f.attrs.has(Capability.AM_BCOPY)) {
                assertEquals(Status.UNSUPPORTED.code(), f.ep.amBcopy(1, (d, o, cap) -> 0), "amBcopy on " + c);
                checked.add("amBcopy");
            }
            if (!f.attrs.has(Capability.AM_ZCOPY)) {
                assertEquals(Status.UNSUPPORTED, f.ep.amZcopy(1, buf, 0, 0, IoVector.of(buf, 0, 1), new Completion()),
                    "amZcopy on " + c);
                checked.add("amZcopy");
            }
            // ops whose bit is missing from the advertised sets
            for (final int width : new int[] {32, 64}) {
                final int bits = width == 32 ? f.attrs.atomic32Ops() : f.attrs.atomic64Ops();
                for (final AtomicOp op : List.of(AtomicOp.AND, AtomicOp.OR, AtomicOp.XOR)) {
                    if ((bits & op.bit()) == 0) {
                        assertEquals(Status.UNSUPPORTED, width == 32 ? f.ep.atomic32Post(op, 1, addr, f.rkey)
                            : f.ep.atomic64Post(op, 1, addr, f.rkey), width + "-bit post " + op + " on " + c);
                        checked.add(width + "-bit " + op);
                    }
                }
            }
            // CSWAP is no post operation (it needs a compare value): always an error, never a silent success
            final Status cswapPost64 = f.ep.atomic64Post(AtomicOp.CSWAP, 1, addr, f.rkey);
            assertTrue(cswapPost64.isError(), "atomic64Post(CSWAP) must fail on " + c + ", got " + cswapPost64);
            final Status cswapPost = f.ep.atomic32Post(AtomicOp.CSWAP, 1, addr, f.rkey);
            assertTrue(cswapPost.isError(), "atomic32Post(CSWAP) must fail on " + c + ", got " + cswapPost);
            System.out.println(c + ": unadvertised operations checked: " + checked);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#crossProcessWithFailureDetection") // an in-JVM peer cannot be killed
    void killedPeerIsReportedWithoutHanging(final Case c) {
        try (Fixture f = Fixture.open(c, true)) {
            roundTrip(f);
            f.killPeer();
            final String how = awaitFailureReport(f, "the peer was killed (SIGKILL)");
            System.out.println(c + ": killed peer reported " + how);
            flushEnds(f, "the peer was killed");
        }
    }

    @ParameterizedTest(name = "{0}")
    // AM only: with one-sided operations alone a closed peer interface is not observable while the peer
    // process and its registered memory live; and the peer must be another interface, not the test's own
    @MethodSource("weft.uct.conformance.Case#withAmToAnotherInterface")
    void peerClosingItsInterfaceIsReported(final Case c) {
        try (Fixture f = Fixture.open(c, true)) {
            assumeFailureDetection(f);
            roundTrip(f);
            f.closePeerInterface();
            final String how = awaitFailureReport(f, "the peer closed its interface");
            System.out.println(c + ": closed peer interface reported " + how);
            flushEnds(f, "the peer closed its interface");
        }
    }

    /** After a peer failure, a flush must still end (any status), never hang. */
    private static void flushEnds(final Fixture f, final String what) {
        final Completion c = new Completion();
        final long deadline = System.nanoTime() + DETECT_MS * 1_000_000L;
        Status st;
        while ((st = f.ep.flush(Interface.FLUSH_LOCAL, c.reset(1))) == Status.NO_RESOURCE) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(f.kase + ": flush after " + what + " stays NO_RESOURCE for " + DETECT_MS + " ms");
            }
            f.progress();
        }
        if (st == Status.IN_PROGRESS) {
            Waits.until(c::isDone, f::progress, DETECT_MS, () -> "flush completion after " + what + " on " + f.kase);
        }
    }

    private static void assumeFailureDetection(final Fixture f) {
        Assumptions.assumeTrue(f.attrs.has(Capability.ERRHANDLE_PEER_FAILURE) || f.attrs.has(Capability.EP_CHECK),
            f.kase + " advertises neither ERRHANDLE_PEER_FAILURE nor EP_CHECK");
    }

    /** Makes sure the connection is fully up before breaking it. */
    private static void roundTrip(final Fixture f) {
        if (f.attrs.has(Capability.AM_SHORT) || f.attrs.has(Capability.AM_BCOPY)) {
            AmTraffic.send(f, f.attrs.has(Capability.AM_SHORT) ? AmTraffic.Kind.SHORT : AmTraffic.Kind.BCOPY, 3, 8, 0,
                1, 42, new Completion());
            f.awaitMessages(1, "round trip before breaking the peer");
        } else if (!RmaConformanceTest.putClasses(f.attrs, 8).isEmpty()) {
            f.flush(Interface.FLUSH_REMOTE);
        }
    }

    /**
     * Keeps using the endpoint until the failure shows as an error status, a completion error,
     * check() or the error handler; fails after {@link #DETECT_MS}. Returns the time taken.
     */
    private static String awaitFailureReport(final Fixture f, final String what) {
        final long start = System.nanoTime();
        final MemorySegment buf = f.local(64);
        final Completion get = new Completion();
        boolean getPosted = false;
        final List<String> seen = new ArrayList<>();
        while (true) {
            if (!f.errors.isEmpty()) {
                seen.add("error handler: " + f.errors);
                break;
            }
            if (f.attrs.has(Capability.EP_CHECK)) {
                final Status st = f.ep.check();
                if (st.isError()) {
                    seen.add("check(): " + st);
                    break;
                }
            }
            Status st = Status.OK;
            if (f.attrs.has(Capability.AM_SHORT)) {
                st = f.ep.amShort(3, 0, buf, 0, 8);
            } else if (f.attrs.has(Capability.AM_BCOPY)) {
                st = Status.ofLength(f.ep.amBcopy(3, (d, o, cap) -> 0));
            } else if (f.attrs.has(Capability.PUT_SHORT)) {
                st = f.ep.putShort(buf, 0, 8, f.raddr(0), f.rkey);
            }
            if (st.isError()) {
                seen.add("operation status: " + st);
                break;
            }
            if (!getPosted && f.attrs.has(Capability.GET_ZCOPY)) {
                final Status g = f.ep.getZcopy(IoVector.of(buf, 8, 8), f.raddr(0), f.rkey, get.reset(1));
                if (g.isError()) {
                    seen.add("get status: " + g);
                    break;
                }
                getPosted = g == Status.IN_PROGRESS;
            }
            if (getPosted && get.isDone() && get.status().isError()) {
                seen.add("completion: " + get.status());
                break;
            }
            if (System.nanoTime() - start > DETECT_MS * 1_000_000L) {
                throw new AssertionError(f.kase + ": " + what + " but nothing reported an error within " + DETECT_MS
                    + " ms (no error status, completion, check() or error handler call)");
            }
            Waits.backoff(f.progress(), 1000);
        }
        return "by " + seen + " after " + (System.nanoTime() - start) / 1_000_000 + " ms";
    }
}
