import weft.shmem.Shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The Weft side of bench/shmem/compare.sh: the measurements of shmem_bench.c (the OSHMEM side), the same
 * operations, counts and order, on weft.shmem. 2 PEs: PE 0 issues, PE 1 waits in a barrier (progressing).
 * A first pass warms up (the JIT), the second reports. Output (PE 0): "test bytes value unit" per line.
 * Run: ./weft run -n 2 bench/shmem/ShmemBench.java
 */
public class ShmemBench {
    private static final int MAX = 1 << 20;
    private static final int WINDOW = 64;
    /** Warm-up calls before each timed collective loop (OSU skips 200-1000), as the C side does. */
    private static final int COLL_SKIP = 1000;
    private static final int[] SIZES = {8, 64, 512, 4096, 32768, 262144, 1048576};

    private static int iters(final int bytes) {
        return bytes <= 4096 ? 10000 : bytes <= 262144 ? 1000 : 200;
    }

    private static double us(final long t0) {
        return (System.nanoTime() - t0) / 1e3;
    }

    public static void main(final String[] args) {
        final Shmem shmem = Shmem.init();
        final int me = shmem.myPe();
        final MemorySegment sym = shmem.malloc(MAX);
        final MemorySegment local = Arena.global().allocate(MAX, 64);
        final MemorySegment word = shmem.calloc(8, 8);
        final MemorySegment redSrc = shmem.calloc(1, 8);
        final MemorySegment redDst = shmem.calloc(1, 8);
        final MemorySegment collDst = shmem.calloc(16, 8);
        local.fill((byte) 1);
        shmem.barrierAll();
        for (int pass = 0; pass < 2; pass++) {
            final boolean report = pass == 1 && me == 0;
            for (final int b : SIZES) {
                final int n = iters(b);
                if (me == 0) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        shmem.putmem(sym, local, b, 1);
                    }
                    shmem.quiet();
                    print(report, "put", b, us(t0) / n, "us");
                    t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        shmem.getmem(local, sym, b, 1);
                    }
                    print(report, "get", b, us(t0) / n, "us");
                }
                shmem.barrierAll();
            }
            if (me == 0) {
                final int n = 10000;
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    shmem.putmem(sym, local, 8, 1);
                    shmem.quiet();
                }
                print(report, "put+quiet", 8, us(t0) / n, "us");
                t0 = System.nanoTime();
                for (int i = 0; i < n; i += WINDOW) {
                    for (int j = 0; j < WINDOW; j++) {
                        shmem.putmemNbi(sym.asSlice(8L * j), local, 8, 1);
                    }
                    shmem.quiet();
                }
                print(report, "put_rate", 8, n / us(t0), "Mops");
                t0 = System.nanoTime();
                for (int i = 0; i < n; i += WINDOW) {
                    for (int j = 0; j < WINDOW; j++) {
                        shmem.getmemNbi(local.asSlice(8L * j), sym, 8, 1);
                    }
                    shmem.quiet();
                }
                print(report, "get_rate", 8, n / us(t0), "Mops");
                t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    shmem.longAtomicFetchAdd(word, 1, 1);
                }
                print(report, "fetch_add", 8, us(t0) / n, "us");
                t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    shmem.longAtomicAdd(word, 1, 1);
                }
                shmem.quiet();
                print(report, "add", 8, us(t0) / n, "us");
                t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    shmem.longAtomicSwap(word, i, 1);
                }
                print(report, "swap", 8, us(t0) / n, "us");
                t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    shmem.longAtomicCompareSwap(word, i, i + 1, 1);
                }
                print(report, "cswap", 8, us(t0) / n, "us");
            }
            shmem.barrierAll();
            final int n = 10000;
            final int skip = COLL_SKIP; // OSU's warm-up iterations, the same on both sides
            for (int i = 0; i < skip; i++) {
                shmem.barrierAll();
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                shmem.barrierAll();
            }
            print(report, "barrier", 0, us(t0) / n, "us");
            for (int i = 0; i < skip; i++) {
                shmem.longBroadcast(Shmem.TEAM_WORLD, collDst, redSrc, 1, 0);
            }
            t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                shmem.longBroadcast(Shmem.TEAM_WORLD, collDst, redSrc, 1, 0);
            }
            print(report, "broadcast", 8, us(t0) / n, "us");
            for (int i = 0; i < skip; i++) {
                shmem.longSumReduce(Shmem.TEAM_WORLD, redDst, redSrc, 1);
            }
            t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                shmem.longSumReduce(Shmem.TEAM_WORLD, redDst, redSrc, 1);
            }
            print(report, "reduce", 8, us(t0) / n, "us");
            for (int i = 0; i < skip; i++) {
                shmem.longFcollect(Shmem.TEAM_WORLD, collDst, redSrc, 1);
            }
            t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                shmem.longFcollect(Shmem.TEAM_WORLD, collDst, redSrc, 1);
            }
            print(report, "fcollect", 8, us(t0) / n, "us");
            shmem.barrierAll();
        }
        System.out.flush();
        shmem.close();
    }

    private static void print(final boolean report, final String test, final int bytes, final double v,
                              final String unit) {
        if (report) {
            System.out.printf("%s %d %.3f %s%n", test, bytes, v, unit);
        }
    }
}
