import weft.shmem.Shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The Weft side of bench/shmem/compare.sh: the measurements of shmem_bench.c (the OSHMEM side), the same
 * operations, counts and order, on weft.shmem. 2 PEs: PE 0 issues, PE 1 waits in a barrier (progressing).
 * Warm-up passes (the JIT), then one that reports; each measured loop is a method of its own, so that the JIT
 * compiles it as a method (not one on-stack replacement of a large main, whose code a later row's profile
 * throws out). Output (PE 0): "test bytes value unit" per line.
 * Run: ./weft run -n 2 bench/shmem/ShmemBench.java
 */
public class ShmemBench {
    private static final int MAX = 1 << 20;
    private static final int WINDOW = 64;
    /** Warm-up calls before each timed collective loop (OSU skips 200-1000), as the C side does. */
    private static final int COLL_SKIP = 1000;
    /** Passes before the reported one (the C side makes one; more warm-up than the anchor is allowed). */
    private static final int WARM_PASSES = 2;
    private static final int[] SIZES = {8, 64, 512, 4096, 32768, 262144, 1048576};

    private static Shmem shmem;
    private static MemorySegment sym;
    private static MemorySegment local;
    private static MemorySegment word;
    private static MemorySegment redSrc;
    private static MemorySegment redDst;
    private static MemorySegment collDst;

    private static int iters(final int bytes) {
        return bytes <= 4096 ? 10000 : bytes <= 262144 ? 1000 : 200;
    }

    private static double us(final long t0) {
        return (System.nanoTime() - t0) / 1e3;
    }

    public static void main(final String[] args) {
        shmem = Shmem.init();
        final int me = shmem.myPe();
        sym = shmem.malloc(MAX);
        local = Arena.global().allocate(MAX, 64);
        word = shmem.calloc(8, 8);
        redSrc = shmem.calloc(1, 8);
        redDst = shmem.calloc(1, 8);
        collDst = shmem.calloc(16, 8);
        local.fill((byte) 1);
        shmem.barrierAll();
        for (int pass = 0; pass <= WARM_PASSES; pass++) {
            final boolean report = pass == WARM_PASSES && me == 0;
            for (final int b : SIZES) {
                if (me == 0) {
                    print(report, "put", b, put(b, iters(b)), "us");
                    print(report, "get", b, get(b, iters(b)), "us");
                }
                shmem.barrierAll();
            }
            if (me == 0) {
                final int n = 10000;
                print(report, "put+quiet", 8, putQuiet(n), "us");
                print(report, "put_rate", 8, putRate(n), "Mops");
                print(report, "get_rate", 8, getRate(n), "Mops");
                print(report, "fetch_add", 8, fetchAdd(n), "us");
                print(report, "add", 8, add(n), "us");
                print(report, "swap", 8, swap(n), "us");
                print(report, "cswap", 8, cswap(n), "us");
            }
            shmem.barrierAll();
            final int n = 10000;
            barrier(COLL_SKIP); // OSU's warm-up iterations, the same on both sides
            print(report, "barrier", 0, barrier(n), "us");
            broadcast(COLL_SKIP);
            print(report, "broadcast", 8, broadcast(n), "us");
            reduce(COLL_SKIP);
            print(report, "reduce", 8, reduce(n), "us");
            fcollect(COLL_SKIP);
            print(report, "fcollect", 8, fcollect(n), "us");
            shmem.barrierAll();
        }
        System.out.flush();
        shmem.close();
    }

    private static double put(final int b, final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.putmem(sym, local, b, 1);
        }
        shmem.quiet();
        return us(t0) / n;
    }

    private static double get(final int b, final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.getmem(local, sym, b, 1);
        }
        return us(t0) / n;
    }

    private static double putQuiet(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.putmem(sym, local, 8, 1);
            shmem.quiet();
        }
        return us(t0) / n;
    }

    private static double putRate(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i += WINDOW) {
            for (int j = 0; j < WINDOW; j++) {
                shmem.putmemNbi(sym.asSlice(8L * j), local, 8, 1);
            }
            shmem.quiet();
        }
        return n / us(t0);
    }

    private static double getRate(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i += WINDOW) {
            for (int j = 0; j < WINDOW; j++) {
                shmem.getmemNbi(local.asSlice(8L * j), sym, 8, 1);
            }
            shmem.quiet();
        }
        return n / us(t0);
    }

    private static double fetchAdd(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.longAtomicFetchAdd(word, 1, 1);
        }
        return us(t0) / n;
    }

    private static double add(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.longAtomicAdd(word, 1, 1);
        }
        shmem.quiet();
        return us(t0) / n;
    }

    private static double swap(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.longAtomicSwap(word, i, 1);
        }
        return us(t0) / n;
    }

    private static double cswap(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.longAtomicCompareSwap(word, i, i + 1, 1);
        }
        return us(t0) / n;
    }

    private static double barrier(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.barrierAll();
        }
        return us(t0) / n;
    }

    private static double broadcast(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.longBroadcast(Shmem.TEAM_WORLD, collDst, redSrc, 1, 0);
        }
        return us(t0) / n;
    }

    private static double reduce(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.longSumReduce(Shmem.TEAM_WORLD, redDst, redSrc, 1);
        }
        return us(t0) / n;
    }

    private static double fcollect(final int n) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            shmem.longFcollect(Shmem.TEAM_WORLD, collDst, redSrc, 1);
        }
        return us(t0) / n;
    }

    private static void print(final boolean report, final String test, final int bytes, final double v,
                              final String unit) {
        if (report) {
            System.out.printf("%s %d %.3f %s%n", test, bytes, v, unit);
        }
    }
}
