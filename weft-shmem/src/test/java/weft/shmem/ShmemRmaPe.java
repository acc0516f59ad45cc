package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.shmem.PeChecks.check;
import static weft.shmem.PeChecks.pattern;
import static weft.shmem.PeChecks.verify;

/**
 * RMA checks run by every PE of a job ({@link ShmemConformanceTest}): contiguous put/get (blocking, nbi,
 * arrays, sized, typed) at sizes 0, 1, odd, page-crossing and 1 MiB to the right neighbour; p/g of every Java
 * element type; strided iput/iget; fence ordering seen by a spinning reader; ptr for same-node PEs.
 */
final class ShmemRmaPe {
    private static final long[] SIZES = {0, 1, 7, 4097, 1 << 20};

    private ShmemRmaPe() {
    }

    static void run(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final int right = (me + 1) % n;
        final int left = (me + n - 1) % n;
        final MemorySegment dest = shmem.malloc(1 << 20);
        final MemorySegment sym = shmem.malloc(1 << 20);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment local = arena.allocate(1 << 20, 64);
            for (final long size : SIZES) {
                for (int mode = 0; mode < 3; mode++) {
                    final int seed = me * 10 + mode;
                    pattern(local, size, seed);
                    switch (mode) {
                        case 0 -> shmem.putmem(dest, local, size, right);
                        case 1 -> shmem.putmemNbi(dest, local, size, right);
                        default -> shmem.put8(dest, MemorySegment.ofArray(local.asSlice(0, size).toArray(
                            ValueLayout.JAVA_BYTE)), size, right);
                    }
                    shmem.barrierAll();
                    verify(dest, size, left * 10 + mode, "put mode " + mode + " size " + size + " from PE " + left);
                    shmem.barrierAll();
                }
                pattern(sym, size, 100 + me);
                shmem.barrierAll();
                shmem.getmem(local, sym, size, right);
                verify(local, size, 100 + right, "getmem size " + size);
                local.fill((byte) 0);
                shmem.getmemNbi(local, sym, size, right);
                shmem.quiet();
                verify(local, size, 100 + right, "getmemNbi size " + size);
                final byte[] arr = new byte[(int) size];
                shmem.charGet(arr, sym, size, right);
                verify(MemorySegment.ofArray(arr), size, 100 + right, "charGet array size " + size);
                shmem.barrierAll();
            }
            typed(shmem, dest, me, right, left);
            strided(shmem, dest, me, right, left);
            fenceOrdering(shmem, dest, me, right, left);
            ptr(shmem, dest, me, right, left);
        }
        shmem.free(sym);
        shmem.free(dest);
    }

    private static void typed(final Shmem shmem, final MemorySegment d, final int me, final int right, final int left) {
        final long[] longs = new long[1000];
        for (int i = 0; i < longs.length; i++) {
            longs[i] = (long) me << 40 | i;
        }
        shmem.longPut(d, longs, longs.length, right);
        final int[] ints = {me, -me, Integer.MAX_VALUE};
        shmem.intPutNbi(d.asSlice(8000), ints, 3, right);
        shmem.quiet();
        shmem.barrierAll();
        for (int i = 0; i < longs.length; i++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, i) == ((long) left << 40 | i), "longPut element " + i);
        }
        check(d.get(ValueLayout.JAVA_INT, 8000) == left && d.get(ValueLayout.JAVA_INT, 8004) == -left, "intPutNbi");
        final long[] back = new long[1000];
        shmem.barrierAll();
        shmem.longGet(back, d, back.length, right);
        check(back[999] == ((long) me << 40 | 999), "longGet array from right (it holds mine)");
        shmem.barrierAll();
        // p/g of every Java element type, each to its own slot
        shmem.longP(d, -5L * me, right);
        shmem.doubleP(d.asSlice(8), me + 0.25, right);
        shmem.floatP(d.asSlice(16), me + 0.5f, right);
        shmem.intP(d.asSlice(20), 7 * me, right);
        shmem.shortP(d.asSlice(24), (short) (-3 * me), right);
        shmem.charP(d.asSlice(26), (byte) (me + 1), right);
        shmem.uint64P(d.asSlice(32), -1L, right);
        shmem.barrierAll();
        check(shmem.longG(d, me) == -5L * left, "longP/longG on self");
        check(shmem.doubleG(d.asSlice(8), right) == me + 0.25, "doubleG from right");
        check(shmem.floatG(d.asSlice(16), right) == me + 0.5f, "floatG");
        check(shmem.intG(d.asSlice(20), right) == 7 * me, "intG");
        check(shmem.shortG(d.asSlice(24), right) == (short) (-3 * me), "shortG");
        check(shmem.charG(d.asSlice(26), right) == (byte) (me + 1), "charG");
        check(shmem.uint64G(d.asSlice(32), right) == -1L, "uint64G");
        shmem.barrierAll();
    }

    private static void strided(final Shmem shmem, final MemorySegment d, final int me, final int right,
                                final int left) {
        d.fill((byte) 0);
        shmem.barrierAll();
        final long[] src = new long[30];
        for (int i = 0; i < src.length; i++) {
            src[i] = me * 1000L + i;
        }
        shmem.longIput(d, src, 2, 3, 10, right); // dest[2i] = src[3i]
        shmem.barrierAll();
        for (int i = 0; i < 10; i++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, 2L * i) == left * 1000L + 3L * i, "iput element " + i);
            check(d.getAtIndex(ValueLayout.JAVA_LONG, 2L * i + 1) == 0, "iput gap " + i);
        }
        final long[] got = new long[20];
        shmem.longIget(got, d, 2, 2, 10, right); // got[2i] = right.d[2i] = me*1000 + 3i
        for (int i = 0; i < 10; i++) {
            check(got[2 * i] == me * 1000L + 3L * i, "iget element " + i);
        }
        final int[] ints = {1, 2, 3, 4, 5, 6};
        shmem.barrierAll();
        shmem.iput32(d, MemorySegment.ofArray(ints), 1, 2, 3, right);
        shmem.barrierAll();
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == 1 && d.getAtIndex(ValueLayout.JAVA_INT, 2) == 5, "iput32");
        shmem.barrierAll();
        // blocked strides (1.6): 3 blocks of 2 longs, source stride 5, destination stride 4
        d.fill((byte) 0);
        shmem.barrierAll();
        shmem.longIbput(d, MemorySegment.ofArray(src), 4, 5, 2, 3, right);
        shmem.barrierAll();
        for (int b = 0; b < 3; b++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, 4L * b) == left * 1000L + 5L * b
                && d.getAtIndex(ValueLayout.JAVA_LONG, 4L * b + 1) == left * 1000L + 5L * b + 1
                && d.getAtIndex(ValueLayout.JAVA_LONG, 4L * b + 2) == 0, "ibput block " + b);
        }
        final long[] blocks = new long[9];
        shmem.longIbget(MemorySegment.ofArray(blocks), d, 3, 4, 2, 3, right); // blocks[3b..] = right.d[4b..]
        check(blocks[6] == me * 1000L + 10 && blocks[7] == me * 1000L + 11 && blocks[8] == 0, "ibget");
        shmem.barrierAll();
    }

    /** PE me writes 64 KiB then (after a fence) a flag into the right PE; the right PE spins on the flag. */
    private static void fenceOrdering(final Shmem shmem, final MemorySegment d, final int me, final int right,
                                      final int left) {
        final MemorySegment flag = shmem.calloc(1, 8);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment data = arena.allocate(64 << 10, 8);
            for (int round = 1; round <= 20; round++) {
                data.fill((byte) (round + me));
                shmem.putmemNbi(d, data, data.byteSize(), right);
                shmem.fence();
                shmem.longP(flag, round, right);
                shmem.longWaitUntil(flag, Shmem.CMP_EQ, round);
                check(d.get(ValueLayout.JAVA_BYTE, 0) == (byte) (round + left)
                    && d.get(ValueLayout.JAVA_BYTE, (64 << 10) - 1) == (byte) (round + left),
                    "the data before the fence is visible with the flag after it, round " + round);
                shmem.barrierAll();
            }
        }
        shmem.free(flag);
    }

    private static void ptr(final Shmem shmem, final MemorySegment d, final int me, final int right, final int left) {
        final MemorySegment p = shmem.ptr(d, right);
        final boolean shared = System.getenv().getOrDefault("WEFT_TLS", "shm").startsWith("shm");
        check((p != null) == shared, "ptr to the right PE is " + (p == null ? "null" : "mapped") + " over "
            + System.getenv("WEFT_TLS"));
        check(shmem.ptr(d, me) != null && shmem.ptr(d, me).address() == d.address(), "ptr to myself is the address");
        if (p != null) {
            p.set(ValueLayout.JAVA_LONG, 0, 4242L + me);
        } else {
            shmem.longP(d, 4242L + me, right);
        }
        shmem.barrierAll();
        check(d.get(ValueLayout.JAVA_LONG, 0) == 4242L + left, "a store through ptr reached the peer");
        shmem.barrierAll();
    }
}
