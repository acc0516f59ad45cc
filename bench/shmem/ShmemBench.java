import weft.shmem.Shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The Weft side of bench/shmem/compare.sh: the measurements of shmem_bench.c (the OSHMEM side), the same
 * operations, counts and order, on weft.shmem. 2 PEs: PE 0 issues, PE 1 waits in a barrier (progressing).
 * Warm-up passes (the JIT), then one that reports; each measured loop is a method of its own, so that the JIT
 * compiles it as a method (not one on-stack replacement of a large main, whose code a later row's profile
 * throws out). In the reported pass each row repeats its measured loop (a window of the C side's count)
 * for at least {@link #MIN_ROW_NS} (the JIT's tiers take that long on a hot loop: two windows that agree
 * early can both be on a C1 plateau) and until two consecutive windows agree within {@link #STEADY} (the
 * steady state differs per JVM and per row; the C side has none to reach), at most {@link #MAX_ROW_NS};
 * the figure is the last window's. Output (PE 0): "test bytes value unit" per row, then
 * "steady test bytes windows" (the windows it took; a negative count: no two agreed within the limits).
 * Run: ./weft run -n 2 bench/shmem/ShmemBench.java (SHMEM_BENCH_ROWS=coll: only the collective rows;
 * SHMEM_BENCH_ROWS=sig: put+quiet and the put-with-signal ping-pong rows alone)
 */
public class ShmemBench {
    private static final int MAX = 1 << 20;
    private static final int WINDOW = 64;
    /** Warm-up calls before each timed collective loop (OSU skips 200-1000), as the C side does. */
    private static final int COLL_SKIP = 1000;
    /** Passes before the reported one (the C side makes one; more warm-up than the anchor is allowed). */
    private static final int WARM_PASSES = 2;
    private static final int[] SIZES = {8, 64, 512, 4096, 32768, 262144, 1048576};
    /** Two consecutive windows within this relative difference: the row is at its steady state. */
    private static final double STEADY = 0.10;
    private static final int MAX_WINDOWS = 1_000_000;
    private static final long MIN_ROW_NS = 300_000_000L;
    private static final long MAX_ROW_NS = 4_000_000_000L;

    /** One measured window of a row (its figure: us per op, or Mops). */
    private interface Window {
        double run();
    }

    private static MemorySegment steadyFlag;

    private static Shmem shmem;
    private static MemorySegment sym;
    private static MemorySegment local;
    private static MemorySegment word;
    private static MemorySegment redSrc;
    private static MemorySegment redDst;
    private static MemorySegment collDst;
    private static MemorySegment pingSig;
    /** The signal value of the last ping-pong round (both PEs count the same rounds). */
    private static long pingSeq;

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
        steadyFlag = shmem.calloc(2, 8);
        pingSig = shmem.calloc(1, 8);
        local.fill((byte) 1);
        shmem.barrierAll();
        // SHMEM_BENCH_ROWS=coll: the collective rows alone (as the C side reads it)
        final String rows = System.getenv("SHMEM_BENCH_ROWS");
        final boolean sig = "sig".equals(rows);
        final boolean p2p = !"coll".equals(rows) && !sig;
        for (int pass = 0; pass <= WARM_PASSES; pass++) {
            final boolean report = pass == WARM_PASSES && me == 0;
            if (sig) {
                if (me == 0) {
                    row(report, false, "put+quiet", 8, "us", () -> putQuiet(10000));
                }
                shmem.barrierAll();
                for (final int b : new int[] {8, 4096}) {
                    row(pass == WARM_PASSES, true, "putsig", b, "us", () -> putSignalPingPong(b, 10000));
                }
                shmem.barrierAll();
                continue;
            }
            for (final int b : p2p ? SIZES : new int[0]) {
                if (me == 0) {
                    row(report, false, "put", b, "us", () -> put(b, iters(b)));
                    row(report, false, "get", b, "us", () -> get(b, iters(b)));
                }
                shmem.barrierAll();
            }
            final int n = 10000;
            if (me == 0 && p2p) {
                row(report, false, "put+quiet", 8, "us", () -> putQuiet(n));
                row(report, false, "put_rate", 8, "Mops", () -> putRate(n));
                row(report, false, "get_rate", 8, "Mops", () -> getRate(n));
                row(report, false, "fetch_add", 8, "us", () -> fetchAdd(n));
                row(report, false, "add", 8, "us", () -> add(n));
                row(report, false, "swap", 8, "us", () -> swap(n));
                row(report, false, "cswap", 8, "us", () -> cswap(n));
            }
            shmem.barrierAll();
            final boolean steady = pass == WARM_PASSES; // every PE takes part in a collective row's windows
            barrier(COLL_SKIP); // OSU's warm-up iterations, the same on both sides
            row(steady, true, "barrier", 0, "us", () -> barrier(n));
            broadcast(COLL_SKIP);
            row(steady, true, "broadcast", 8, "us", () -> broadcast(n));
            reduce(COLL_SKIP);
            row(steady, true, "reduce", 8, "us", () -> reduce(n));
            fcollect(COLL_SKIP);
            row(steady, true, "fcollect", 8, "us", () -> fcollect(n));
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

    /**
     * Half the round trip of a put-with-signal ping-pong (both PEs): PE 0 puts {@code b} bytes with
     * SIGNAL_SET of the round's number, PE 1 waits for it and answers the same way.
     */
    private static double putSignalPingPong(final int b, final int n) {
        final int me = shmem.myPe();
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            final long seq = ++pingSeq;
            if (me == 0) {
                shmem.putmemSignal(sym, local, b, pingSig, seq, Shmem.SIGNAL_SET, 1);
                shmem.signalWaitUntil(pingSig, Shmem.CMP_GE, seq);
            } else {
                shmem.signalWaitUntil(pingSig, Shmem.CMP_GE, seq);
                shmem.putmemSignal(sym, local, b, pingSig, seq, Shmem.SIGNAL_SET, 0);
            }
        }
        return us(t0) / n / 2;
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

    /**
     * One row: a single window in the warm-up passes; in the reported one ({@code report}) windows until two
     * consecutive ones agree within {@link #STEADY}, then the row and its window count. A collective row runs
     * on every PE, which follow PE 0's decision to go on (broadcast between windows, outside them).
     */
    private static void row(final boolean report, final boolean collective, final String test, final int bytes,
                            final String unit, final Window w) {
        double v = w.run();
        if (!report) {
            return;
        }
        final boolean lead = shmem.myPe() == 0;
        final long t0 = System.nanoTime();
        int windows = 1;
        boolean agreed = false;
        while (true) {
            final double prev = v;
            final long spent = System.nanoTime() - t0;
            final boolean more = windows < MAX_WINDOWS && spent < MAX_ROW_NS;
            agreed &= spent >= MIN_ROW_NS;
            if (collective) {
                steadyFlag.set(ValueLayout.JAVA_LONG, 8, agreed || !more ? 0 : 1);
                shmem.longBroadcast(Shmem.TEAM_WORLD, steadyFlag, steadyFlag.asSlice(8), 1, 0);
                if (steadyFlag.get(ValueLayout.JAVA_LONG, 0) == 0) {
                    break;
                }
            } else if (agreed || !more) {
                break;
            }
            v = w.run();
            windows++;
            agreed = Math.abs(v - prev) <= STEADY * Math.max(v, prev);
        }
        if (lead) {
            System.out.printf("%s %d %.3f %s%n", test, bytes, v, unit);
            System.out.printf("steady %s %d %d%n", test, bytes, agreed ? windows : -windows);
        }
    }
}
