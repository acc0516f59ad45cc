package weft.ucp.conformance;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.uct.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One-sided scenarios, run by {@link RmaConformanceTest}. */
public final class RmaScenarios {
    private static final long HEAP = 1 << 20;
    private static final java.lang.invoke.VarHandle LONG_ATOMIC = ValueLayout.JAVA_LONG.varHandle();

    private RmaScenarios() {
    }

    /** Exchanges (address, packed key) with the other PE through tagged messages. */
    static Rkey exchange(final Pe pe, final MemoryMap map, final long tag) {
        final byte[] key = map.packRkey();
        final MemorySegment out = pe.arena().allocate(8 + 4 + key.length);
        out.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, map.address());
        out.set(ValueLayout.JAVA_INT_UNALIGNED, 8, key.length);
        MemorySegment.copy(MemorySegment.ofArray(key), 0, out, 12, key.length);
        final MemorySegment in = pe.arena().allocate(4096);
        final Request r = pe.worker().recvTag(in, 0, 4096, tag, -1L);
        final Request s = pe.ep().sendTag(tag, out, 0, out.byteSize());
        assertEquals(Status.OK, pe.await(s));
        assertEquals(Status.OK, pe.await(r));
        s.release();
        r.release();
        final int kl = in.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
        final Rkey rk = pe.ep().unpackRkey(in.asSlice(12, kl).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(in.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), rk.base());
        return rk;
    }

    /** put/get of every size class and unaligned offsets, flush, then atomics under contention from both PEs. */
    public static final class PutGetAtomics implements Scenario {
        @Override
        public void run(final Pe pe) {
            final var ctx = pe.worker().context();
            try (MemoryMap heap = ctx.memMap(HEAP, 0); Rkey rk = exchange(pe, heap, 0x5001)) {
                heap.segment().fill((byte) 0);
                pe.barrier();
                final long base = rk.base();
                // each PE writes its half of the peer's heap
                final long mine = pe.rank() * (HEAP / 2);
                long at = mine + 64 + 3; // unaligned, clear of the atomic words at 0 and 8
                final long[] sizes = {0, 1, 7, 8, 9, 100, 4095, 4096, 65537, 200_000};
                for (final long n : sizes) {
                    final MemorySegment src = pe.pattern(n, (int) n);
                    final Status st = pe.ep().putNbi(src, 0, n, base + at, rk);
                    assertTrue(st == Status.OK || st == Status.IN_PROGRESS, "putNbi " + n + ": " + st);
                    final Request f = pe.ep().flush();
                    assertEquals(Status.OK, pe.await(f), "flush");
                    f.release();
                    final MemorySegment back = pe.arena().allocate(Math.max(1, n));
                    final Request g = pe.ep().get(back, 0, n, base + at, rk);
                    assertEquals(Status.OK, pe.await(g), "get " + n);
                    g.release();
                    Pe.checkPattern(back, n, (int) n, "get after put of " + n + " over " + rk.describe());
                    at += n + 5;
                }
                // out of range: a clear error, nothing written
                final MemorySegment eight = pe.arena().allocate(8);
                final Request bad = pe.ep().put(eight, 0, 8, base + HEAP - 4, rk);
                assertEquals(Status.OUT_OF_RANGE, pe.await(bad), "put across the end of the region");
                bad.release();
                pe.barrier();
                // atomics: both PEs hammer word 0 (64-bit) and word 8 (32-bit) of BOTH heaps
                final int iters = 500;
                final MemorySegment res = pe.arena().allocate(8);
                final MemorySegment local = heap.segment();
                for (int i = 0; i < iters; i++) {
                    assertTrue(pe.ep().atomicPost(AtomicOp.ADD, 1, base, rk).ordinal() >= 0);
                    final Request fa = pe.ep().atomicFetch(AtomicOp.ADD, 2, res, 0, base, rk);
                    assertEquals(Status.OK, pe.await(fa));
                    fa.release();
                    final Request f32 = pe.ep().atomicFetch32(AtomicOp.ADD, 1, res, 0, base + 8, rk);
                    assertEquals(Status.OK, pe.await(f32));
                    f32.release();
                    // the target's own CPU atomics on the same word must not lose updates
                    LONG_ATOMIC.getAndAdd(local, 0L, 10L);
                    pe.worker().progress();
                }
                final Request f = pe.ep().flush();
                assertEquals(Status.OK, pe.await(f));
                f.release();
                pe.barrier();
                assertEquals(iters * 3L + iters * 10L, local.get(ValueLayout.JAVA_LONG, 0), "64-bit word");
                assertEquals(iters, local.get(ValueLayout.JAVA_INT, 8), "32-bit word");
                // compare-and-swap: only the PE whose compare matches wins
                pe.barrier();
                if (pe.rank() == 0) {
                    final Request c1 = pe.ep().atomicCswap(iters * 13L, 7, res, 0, base, rk);
                    assertEquals(Status.OK, pe.await(c1));
                    c1.release();
                    assertEquals(iters * 13L, res.get(ValueLayout.JAVA_LONG, 0), "cswap returns the old value");
                    final Request c2 = pe.ep().atomicCswap(12345, 99, res, 0, base, rk);
                    assertEquals(Status.OK, pe.await(c2));
                    c2.release();
                    assertEquals(7, res.get(ValueLayout.JAVA_LONG, 0), "failed cswap returns the current value");
                }
                pe.barrier();
                if (pe.rank() == 1) {
                    assertEquals(7, local.get(ValueLayout.JAVA_LONG, 0), "cswap result at the target");
                }
                pe.barrier();
            }
        }
    }

    /** Garbage, truncated and foreign keys give clear errors. */
    public static final class BadKeys implements Scenario {
        @Override
        public void run(final Pe pe) {
            assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
                () -> pe.ep().unpackRkey(new byte[] {1, 2, 3})).status());
            try (MemoryMap heap = pe.worker().context().memMap(4096, 0)) {
                final byte[] k = heap.packRkey();
                assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
                    () -> pe.ep().unpackRkey(java.util.Arrays.copyOf(k, k.length - 3))).status());
                final byte[] garbled = k.clone();
                garbled[0] ^= 0x55;
                assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
                    () -> pe.ep().unpackRkey(garbled)).status());
            }
        }
    }
}
