package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.uct.RkeyCodec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MemoryMap in one JVM: query, unmap semantics (local use and a peer's access afterwards), FIXED maps,
 * symmetric-key flags, registration sharing, and Rkey pack/unpack/compare round trips and bad keys. Two
 * workers of one context, one thread progressing both. Equality of symmetric keys across processes
 * and the dedup count are in {@link SymmetricRkeyAcrossProcessesTest}.
 */
@Timeout(60)
class MemoryMapTest {
    /** A reserved range for this test's context-chosen FIXED maps, away from other tests' defaults. */
    private static final long FIXED_BASE = 0x2A00_0000_0000L;

    private static Context context(final String tls) {
        return Context.builder().features(Feature.values()).transports(tls.split(","))
            .config(Config.global().with("MEM_FIXED_BASE", Long.toString(FIXED_BASE))).build();
    }

    /** Worker a, worker b and a wired endpoint a -> b. */
    private record Pair(Context ctx, Worker a, Worker b, Endpoint ab, Arena arena) implements AutoCloseable {
        static Pair open(final String tls) {
            final Context ctx = context(tls);
            final Worker a = ctx.newWorker();
            final Worker b = ctx.newWorker();
            final Arena arena = Arena.ofShared();
            final Endpoint ab = a.connect(b.address());
            final MemorySegment one = arena.allocate(8);
            final Request r = b.recvTag(one, 0, 8, 1, -1L);
            final Request s = ab.sendTagSync(1, one, 0, 8);
            final Pair p = new Pair(ctx, a, b, ab, arena);
            p.await(() -> r.isCompleted() && s.isCompleted(), "wireup");
            r.release();
            s.release();
            return p;
        }

        void await(final Supplier<Boolean> cond, final String what) {
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!cond.get()) {
                a.progress();
                b.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(what + " did not complete in 10 s");
                }
            }
        }

        Status await(final Request r) {
            await(r::isCompleted, "request");
            final Status st = r.status();
            r.release();
            return st;
        }

        Status put(final long value, final long address, final Rkey k) {
            final MemorySegment src = arena.allocate(8, 8);
            src.set(ValueLayout.JAVA_LONG, 0, value);
            final Status st = await(ab.put(src, 0, 8, address, k));
            // put completes locally; the target's verdict (and the data) arrive by the flush
            return st.isError() ? st : await(ab.flush());
        }

        long get(final long address, final Rkey k) {
            final MemorySegment dst = arena.allocate(8, 8);
            assertEquals(Status.OK, await(ab.get(dst, 0, 8, address, k)));
            return dst.get(ValueLayout.JAVA_LONG, 0);
        }

        @Override
        public void close() {
            ctx.close();
            arena.close();
        }
    }

    private static void assertStatus(final Status want, final Runnable r) {
        final WeftException e = assertThrows(WeftException.class, r::run);
        assertEquals(want, e.status(), e.getMessage());
    }

    @Test
    void shouldAnswerQueriesAndFailClearlyAfterUnmap() {
        try (Pair p = Pair.open("tcp")) {
            final MemoryMap plain = p.ctx().memMap(4096, 0);
            assertEquals(4096, plain.length());
            assertEquals(plain.segment().address(), plain.address());
            assertEquals(List.of("tcp"), plain.memoryDomains());
            assertEquals("process", plain.allocatedBy());
            assertEquals(List.of(), plain.symmetricDomains(), "not asked for");
            assertTrue(plain.isMapped());
            final Rkey k = p.ab().unpackRkey(plain.packRkey());
            assertEquals(Status.OK, p.put(5, plain.address() + 8, k));
            plain.close();
            assertFalse(plain.isMapped());
            for (final Runnable use : List.<Runnable>of(plain::segment, plain::packRkey, plain::address,
                plain::length, plain::memoryDomains, plain::symmetricDomains)) {
                final WeftException e = assertThrows(WeftException.class, use::run);
                assertEquals(Status.CLOSED, e.status());
                assertTrue(e.getMessage().contains("unmapped"), e.getMessage());
            }
            plain.close(); // idempotent
            // the peer's key is revoked: a clear error, no crash
            assertEquals(Status.INVALID_RKEY, p.put(6, k.base() + 8, k));
            final MemorySegment dst = p.arena().allocate(8);
            assertEquals(Status.INVALID_RKEY, p.await(p.ab().get(dst, 0, 8, k.base(), k)));
            k.close();
            try (MemoryMap sym = p.ctx().memMap(4096, MemoryMap.SYMMETRIC_RKEY)) {
                assertEquals(List.of("tcp"), sym.symmetricDomains());
            }
        }
        try (Pair p = Pair.open("shm,cma,self"); MemoryMap m = p.ctx().memMap(4096, MemoryMap.SYMMETRIC_RKEY)) {
            assertEquals("shm", m.allocatedBy());
            assertEquals(List.of("shm", "cma", "self"), m.memoryDomains());
            assertEquals(List.of(), m.symmetricDomains(), "shm, cma and self keys name one process's memory");
        }
    }

    @Test
    void shouldRevokeShmKeysWhenTheOwnerUnmaps() {
        try (Pair p = Pair.open("shm")) {
            final MemoryMap m = p.ctx().memMap(4096, 0);
            final byte[] packed = m.packRkey();
            final Rkey k = p.ab().unpackRkey(packed);
            assertTrue(k.describe().contains("shm"), k.describe());
            assertEquals(Status.OK, p.put(3, m.address(), k));
            assertEquals(3, m.segment().get(ValueLayout.JAVA_LONG, 0));
            assertEquals(3, k.ptr(m.address(), 8).get(ValueLayout.JAVA_LONG, 0));
            m.close();
            // the peer keeps its mapping (no crash) but every access through the key fails clearly
            assertEquals(Status.INVALID_RKEY, p.put(4, k.base(), k));
            final MemorySegment dst = p.arena().allocate(8);
            assertEquals(Status.INVALID_RKEY, p.await(p.ab().get(dst, 0, 8, k.base(), k)));
            final MemorySegment res = p.arena().allocate(8, 8);
            assertEquals(Status.INVALID_RKEY, p.await(p.ab().atomicFetch(weft.uct.AtomicOp.ADD, 1, res, 0, k.base(), k)));
            assertStatus(Status.INVALID_RKEY, () -> k.ptr(k.base(), 8));
            final WeftException stale = assertThrows(WeftException.class, () -> p.ab().unpackRkey(packed));
            assertTrue(stale.status() == Status.INVALID_RKEY || stale.status() == Status.UNREACHABLE, stale.getMessage());
            k.close();
        }
    }

    @Test
    void shouldMapFixedAtTheGivenOrTheContextsAddressAndRefuseATakenRange() {
        try (Pair p = Pair.open("shm,cma,self")) {
            final long at = FIXED_BASE + (64L << 20);
            try (MemoryMap m = p.ctx().memMap(at, 1 << 20, 0)) {
                assertEquals(at, m.address());
                assertEquals("shm", m.allocatedBy(), "same-node peers can map a fixed heap");
                assertTrue((m.flags() & MemoryMap.FIXED) != 0);
                m.segment().set(ValueLayout.JAVA_LONG, 0, 77);
                final Rkey k = p.ab().unpackRkey(m.packRkey());
                assertEquals(at, k.base(), "remote address == local address");
                assertEquals(77, k.ptr(at, 8).get(ValueLayout.JAVA_LONG, 0));
                k.close();
                final WeftException taken = assertThrows(WeftException.class,
                    () -> p.ctx().memMap(at + 4096, 4096, 0));
                assertEquals(Status.INVALID_ADDRESS, taken.status());
                assertTrue(taken.getMessage().contains("in use"), taken.getMessage());
            }
            // unmapped: the range is free again
            try (MemoryMap again = p.ctx().memMap(at, 4096, 0)) {
                assertEquals(at, again.address());
            }
            // the context's reserved range, in 2 MiB steps
            try (MemoryMap m1 = p.ctx().memMap(100, MemoryMap.FIXED);
                 MemoryMap m2 = p.ctx().memMap(3 << 20, MemoryMap.FIXED);
                 MemoryMap m3 = p.ctx().memMap(100, MemoryMap.FIXED)) {
                assertEquals(FIXED_BASE, m1.address());
                assertEquals(FIXED_BASE + (2 << 20), m2.address());
                assertEquals(FIXED_BASE + (6 << 20), m3.address());
            }
            assertStatus(Status.INVALID_PARAM, () -> p.ctx().memMap(FIXED_BASE + 1, 4096, 0));
            assertStatus(Status.INVALID_PARAM, () -> p.ctx().memMap(p.arena().allocate(4096), MemoryMap.FIXED));
            assertStatus(Status.INVALID_PARAM, () -> p.ctx().memMap(1L << 50, 4096, 0));
        }
        // no shared domain: private anonymous memory at the address, registered with tcp
        try (Pair p = Pair.open("tcp"); MemoryMap m = p.ctx().memMap(FIXED_BASE + (96L << 20), 8192,
            MemoryMap.SYMMETRIC_RKEY)) {
            assertEquals(FIXED_BASE + (96L << 20), m.address());
            assertTrue(m.allocatedBy().startsWith("process"), m.allocatedBy());
            final Rkey k = p.ab().unpackRkey(m.packRkey());
            assertEquals(Status.OK, p.put(0x1234, m.address() + 16, k));
            assertEquals(0x1234, m.segment().get(ValueLayout.JAVA_LONG, 16));
            assertEquals(0x1234, p.get(m.address() + 16, k));
            k.close();
        }
    }

    @Test
    void shouldShareRegistrationsOfTheSameMemoryAndUnpackedKeysOfTheSameBytes() {
        try (Pair p = Pair.open("tcp")) {
            final MemorySegment mem = p.arena().allocate(1 << 16, 4096);
            final MemoryMap m1 = p.ctx().memMap(mem, 0);
            final MemoryMap m2 = p.ctx().memMap(mem, 0);
            assertEquals(regionId(m1.packRkey()), regionId(m2.packRkey()), "second registration was a cache hit");
            assertEquals("caller", m1.allocatedBy());
            final Rkey k1 = p.ab().unpackRkey(m1.packRkey());
            final Rkey k1b = p.ab().unpackRkey(m1.packRkey());
            assertEquals(0, Rkey.compare(k1, k1b));
            final int shared = p.a().sharedRemoteKeyCount();
            final Rkey k1c = p.ab().unpackRkey(m1.packRkey());
            assertEquals(shared, p.a().sharedRemoteKeyCount(), "byte-equal tcp keys are unpacked once");
            k1c.close();
            m1.close();
            assertEquals(Status.OK, p.put(9, mem.address(), k1), "m2 still registers the memory");
            m2.close();
            assertEquals(Status.INVALID_RKEY, p.put(10, mem.address(), k1b), "both unmapped: revoked");
            k1.close();
            // a closed Rkey fails even while another Rkey holds the shared key
            assertStatus(Status.INVALID_RKEY, () -> p.put(11, mem.address(), k1));
            k1b.close();
            assertEquals(0, p.a().sharedRemoteKeyCount(), "last user closed: nothing held");
        }
    }

    private static long regionId(final byte[] packed) {
        final MemoryMap.Packed pk = MemoryMap.Packed.parse(packed);
        return RkeyCodec.open("tcp", pk.keys().get(pk.transports().indexOf("tcp"))).getLong(8);
    }

    @Test
    void shouldRoundTripKeysInATotalOrderAndRejectBadOnes() {
        try (Pair p = Pair.open("tcp,self")) {
            final List<MemoryMap> maps = new ArrayList<>();
            final List<Rkey> keys = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    final MemoryMap m = p.ctx().memMap(4096 * (1 + i % 3), i % 2 == 0 ? MemoryMap.SYMMETRIC_RKEY : 0);
                    maps.add(m);
                    final Rkey k = p.ab().unpackRkey(m.packRkey());
                    assertEquals(m.address(), k.base());
                    assertEquals(m.length(), k.length());
                    assertEquals(Status.OK, p.put(i, m.address() + 8, k));
                    assertEquals(i, p.get(m.address() + 8, k));
                    keys.add(k);
                    keys.add(p.ab().unpackRkey(m.packRkey())); // a duplicate
                }
                for (final Rkey x : keys) {
                    for (final Rkey y : keys) {
                        final int c = Rkey.compare(x, y);
                        assertTrue(c >= -1 && c <= 1);
                        assertEquals(-c, Rkey.compare(y, x), "antisymmetric");
                        assertEquals(c == 0, x.base() == y.base(), "equal exactly for the same memory");
                        for (final Rkey z : keys) {
                            if (c <= 0 && Rkey.compare(y, z) <= 0) {
                                assertTrue(Rkey.compare(x, z) <= 0, "transitive");
                            }
                        }
                    }
                }
                final List<Rkey> sorted = new ArrayList<>(keys);
                sorted.sort(Rkey::compare);
                int distinct = 1;
                for (int i = 1; i < sorted.size(); i++) {
                    distinct += Rkey.compare(sorted.get(i - 1), sorted.get(i)) == 0 ? 0 : 1;
                }
                assertEquals(maps.size(), distinct, "a sorted store finds the duplicates");
                final byte[] a = maps.get(0).packRkey();
                final byte[] b = maps.get(1).packRkey();
                assertEquals(0, Rkey.compare(a, a.clone()));
                assertNotEquals(0, Rkey.compare(a, b));
                assertEquals(-Rkey.compare(a, b), Rkey.compare(b, a));
                // bad keys: a clear INVALID_RKEY, nothing else lost
                final byte[] good = maps.get(0).packRkey();
                final byte[] badMagic = good.clone();
                badMagic[0] ^= 0x55;
                final byte[] badVersion = good.clone();
                badVersion[4] = 99;
                final byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
                final byte[] badInner = good.clone();
                badInner[good.length - 33] ^= 0x7F; // inside the last transport key's envelope or body
                for (final byte[] bad : List.of(new byte[0], new byte[]{1, 2, 3},
                    java.util.Arrays.copyOf(good, good.length - 5), badMagic, badVersion, trailing)) {
                    final WeftException e = assertThrows(WeftException.class, () -> p.ab().unpackRkey(bad));
                    assertEquals(Status.INVALID_RKEY, e.status(), e.getMessage());
                }
                try {
                    p.ab().unpackRkey(badInner).close();
                } catch (final WeftException e) {
                    assertTrue(e.status() == Status.INVALID_RKEY || e.status() == Status.UNREACHABLE, e.getMessage());
                }
                assertEquals(Status.OK, p.put(99, maps.get(0).address(), keys.get(0)), "still works");
            } finally {
                keys.forEach(Rkey::close);
                maps.forEach(MemoryMap::close);
            }
        }
    }

    @Test
    void shouldPackSymmetricTcpKeysThatCarryNoProcessRandomness() {
        try (Pair p = Pair.open("tcp"); MemoryMap sym = p.ctx().memMap(8192, MemoryMap.SYMMETRIC_RKEY);
             MemoryMap priv = p.ctx().memMap(8192, 0)) {
            final long symStamp = tcpBody(sym.packRkey()).getLong(0);
            final long privStamp = tcpBody(priv.packRkey()).getLong(0);
            assertEquals(0, symStamp & 1, "symmetric: the job's stamp");
            assertEquals(1, privStamp & 1, "private: the process incarnation");
            assertArrayEquals(sym.packRkey(), sym.packRkey());
        }
    }

    private static ByteBuffer tcpBody(final byte[] packed) {
        final MemoryMap.Packed pk = MemoryMap.Packed.parse(packed);
        return RkeyCodec.open("tcp", pk.keys().get(pk.transports().indexOf("tcp"))).order(ByteOrder.LITTLE_ENDIAN);
    }
}
