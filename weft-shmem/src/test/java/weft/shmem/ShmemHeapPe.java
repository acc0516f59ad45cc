package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static weft.shmem.PeChecks.check;
import static weft.shmem.PeChecks.expect;

/**
 * Symmetric heap management ({@link ShmemConformanceTest}): the same addresses on every PE through loops of
 * malloc/free/realloc/align/calloc, data kept by realloc, exhaustion returning null, a mismatched collective
 * call detected on every PE (and the heap still usable after), bad pointers, and the bad-input rules of
 * the RMA calls (PE out of range, non-symmetric addresses, misaligned atomics, unknown operators).
 */
final class ShmemHeapPe {
    private ShmemHeapPe() {
    }

    static void run(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final long used0 = shmem.heapUsed();
        final MemorySegment addrs = shmem.malloc(8L * n);
        final Random rnd = new Random(42); // the same sequence on every PE
        final List<MemorySegment> live = new ArrayList<>();
        final int rounds = "tcp".equals(System.getenv("WEFT_TLS")) ? 80 : 200; // tcp: each call is round trips
        for (int i = 0; i < rounds; i++) {
            final int what = rnd.nextInt(5);
            if (what <= 1 || live.isEmpty()) {
                final long size = 1 + rnd.nextInt(what == 0 ? 100 : 50_000);
                final MemorySegment m = what == 0 ? shmem.calloc(size, 1) : shmem.malloc(size);
                check(m != null && m.byteSize() == size, "allocation of " + size);
                if (what == 0) {
                    for (long b = 0; b < size; b++) {
                        check(m.get(ValueLayout.JAVA_BYTE, b) == 0, "calloc zeroed");
                    }
                }
                m.fill((byte) (i + me));
                live.add(m);
            } else if (what == 2) {
                final MemorySegment m = shmem.align(4096, 1 + rnd.nextInt(10_000));
                check(m.address() % 4096 == 0, "align 4096");
                live.add(m);
            } else if (what == 3) {
                final int k = rnd.nextInt(live.size());
                final MemorySegment old = live.get(k);
                final long keep = Math.min(old.byteSize(), 64);
                final byte[] before = old.asSlice(0, keep).toArray(ValueLayout.JAVA_BYTE);
                final MemorySegment m = shmem.realloc(old, 1 + rnd.nextInt(80_000));
                check(m != null, "realloc");
                final long kept = Math.min(keep, m.byteSize());
                for (int b = 0; b < kept; b++) {
                    check(m.get(ValueLayout.JAVA_BYTE, b) == before[b], "realloc keeps the contents");
                }
                live.set(k, m);
            } else {
                shmem.free(live.remove(rnd.nextInt(live.size())));
            }
            if (i % 25 == 0) {
                sameAddresses(shmem, addrs, live);
            }
        }
        sameAddresses(shmem, addrs, live);
        for (final MemorySegment m : live) {
            shmem.free(m);
        }
        check(shmem.heapUsed() == used0 + 8L * n + (8L * n % 16 == 0 ? 0 : 16 - 8L * n % 16), "everything freed");
        // exhaustion
        check(shmem.malloc(1L << 40) == null, "an allocation larger than the heap is null");
        check(shmem.malloc(0) == null, "malloc(0) is null");
        // a mismatched collective sequence: every PE learns of it, nothing is left allocated
        final long before = shmem.heapUsed();
        expect(IllegalStateException.class, "mismatched collective memory call", () -> shmem.malloc(me == 0 ? 64 : 128));
        check(shmem.heapUsed() == before, "a mismatched malloc is undone");
        final MemorySegment again = shmem.malloc(64);
        check(again != null, "the heap still works after a mismatch");
        expect(IllegalArgumentException.class, "not the start of a live", () -> shmem.free(again.asSlice(16)));
        shmem.free(again);
        expect(IllegalArgumentException.class, "not the start of a live", () -> shmem.free(again));
        badInput(shmem, addrs);
        shmem.free(addrs);
        shmem.barrierAll();
    }

    /** Every PE's addresses of the live blocks are equal: each checks against PE 0's. */
    private static void sameAddresses(final Shmem shmem, final MemorySegment addrs, final List<MemorySegment> live) {
        long h = 17;
        for (final MemorySegment m : live) {
            h = h * 31 + m.address() * 7 + m.byteSize();
        }
        final MemorySegment mine = shmem.calloc(1, 8);
        mine.set(ValueLayout.JAVA_LONG, 0, h);
        shmem.longFcollect(Shmem.TEAM_WORLD, addrs, mine, 1);
        for (int pe = 0; pe < shmem.nPes(); pe++) {
            check(addrs.getAtIndex(ValueLayout.JAVA_LONG, pe) == h, "PE " + pe + " has the same heap layout");
        }
        shmem.free(mine);
    }

    private static void badInput(final Shmem shmem, final MemorySegment sym) {
        final int n = shmem.nPes();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment local = arena.allocate(64, 8);
            expect(IllegalArgumentException.class, "PE " + n + " is out of range", () -> shmem.longP(sym, 1, n));
            expect(IllegalArgumentException.class, "PE -1 is out of range", () -> shmem.getmem(local, sym, 8, -1));
            expect(IllegalArgumentException.class, "is out of range", () -> shmem.longAtomicAdd(sym, 1, n + 5));
            expect(IllegalArgumentException.class, "not inside the symmetric heap", () -> shmem.putmem(local, local, 8, 0));
            expect(IllegalArgumentException.class, "not Java heap memory",
                () -> shmem.longPut(MemorySegment.ofArray(new long[4]), new long[4], 4, 0));
            expect(IllegalArgumentException.class, "not inside the symmetric heap", () -> shmem.longG(local, 0));
            expect(IllegalArgumentException.class, "not aligned", () -> shmem.longAtomicFetchAdd(sym.asSlice(4), 1, 0));
            expect(IllegalArgumentException.class, "has 8 bytes, the operation needs 16",
                () -> shmem.getmem(local.asSlice(0, 8), sym, 16, 0));
            expect(IllegalArgumentException.class, "unknown comparison", () -> shmem.longTest(sym, 99, 0));
            expect(IllegalArgumentException.class, "unknown signal operator",
                () -> shmem.putmemSignal(sym, local, 8, sym, 1, 7, 0));
            expect(IllegalArgumentException.class, "negative", () -> shmem.longPut(sym, local, -1, 0));
            expect(IllegalArgumentException.class, "strides", () -> shmem.longIput(sym, local, 0, 1, 2, 0));
            expect(IllegalArgumentException.class, "not a valid team", () -> shmem.teamSync(Shmem.TEAM_INVALID));
            check(!shmem.addrAccessible(local, 0) && shmem.addrAccessible(sym, n - 1) && !shmem.peAccessible(n),
                "addrAccessible / peAccessible");
        }
    }
}
