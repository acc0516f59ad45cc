package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static weft.shmem.PeChecks.check;

/**
 * Atomics under contention from every PE ({@link ShmemConformanceTest}): fetch-adds whose old values must be
 * a permutation, adds and incs from every PE (the owner's own included), bitwise or/xor/and on bits each PE
 * owns, compare-and-swap increments, swaps that conserve tokens, set/fetch of every type family, and the
 * nbi fetching forms completed by quiet.
 */
final class ShmemAmoPe {
    private static final int K = 200;

    private ShmemAmoPe() {
    }

    static void run(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final MemorySegment w = shmem.calloc(16, 8);
        final MemorySegment olds = shmem.malloc(8L * K * n);
        shmem.barrierAll();
        // fetch-add on PE 0's word from everyone: the old values are exactly 0 .. n*K-1
        final long[] mine = new long[K];
        for (int i = 0; i < K; i++) {
            mine[i] = shmem.longAtomicFetchAdd(w, 1, 0);
            for (int pe = 0; pe < n; pe++) {
                shmem.longAtomicAdd(w.asSlice(8), 2, pe);
                shmem.intAtomicInc(w.asSlice(16), pe);
                shmem.ulongAtomicOr(w.asSlice(24), 1L << me, pe);
                shmem.int64AtomicXor(w.asSlice(32), (long) i << (8 * me), pe);
            }
        }
        shmem.longFcollect(Shmem.TEAM_WORLD, olds, MemorySegment.ofArray(mine), K);
        shmem.barrierAll();
        final long[] all = olds.toArray(ValueLayout.JAVA_LONG);
        Arrays.sort(all);
        for (int i = 0; i < all.length; i++) {
            check(all[i] == i, "fetch-add old values are a permutation: position " + i + " holds " + all[i]);
        }
        if (me == 0) {
            check(w.get(ValueLayout.JAVA_LONG, 0) == (long) n * K, "fetch-add total");
        }
        check(w.get(ValueLayout.JAVA_LONG, 8) == 2L * n * K, "add total");
        check(w.get(ValueLayout.JAVA_INT, 16) == n * K, "inc total");
        check(w.get(ValueLayout.JAVA_LONG, 24) == (1L << n) - 1, "or of every PE's bit");
        long xor = 0;
        for (int pe = 0; pe < n; pe++) {
            for (int i = 0; i < K; i++) {
                xor ^= (long) i << (8 * pe);
            }
        }
        check(w.get(ValueLayout.JAVA_LONG, 32) == xor, "xor of every PE's values");
        shmem.barrierAll();
        // and: every PE clears its bit on everyone; fetch forms return the word before
        for (int pe = 0; pe < n; pe++) {
            final long before = shmem.uint64AtomicFetchAnd(w.asSlice(24), ~(1L << me), pe);
            check((before & (1L << me)) != 0, "my bit was set before my fetch-and");
        }
        shmem.barrierAll();
        check(w.get(ValueLayout.JAVA_LONG, 24) == 0, "and cleared every bit");
        // compare-and-swap increments of PE 0's word, 32 and 64 bit
        for (int i = 0; i < K / 4; i++) {
            long v = shmem.longAtomicFetch(w.asSlice(40), 0);
            while (true) {
                final long old = shmem.longAtomicCompareSwap(w.asSlice(40), v, v + 1, 0);
                if (old == v) {
                    break;
                }
                v = old;
            }
            int iv = shmem.intAtomicFetch(w.asSlice(48), 0);
            while (true) {
                final int old = shmem.intAtomicCompareSwap(w.asSlice(48), iv, iv + 1, 0);
                if (old == iv) {
                    break;
                }
                iv = old;
            }
        }
        // swaps conserve tokens: each PE swaps its token into PE 0's word and keeps what it got
        if (me == 0) {
            w.set(ValueLayout.JAVA_LONG, 56, 1000);
        }
        shmem.barrierAll();
        final long got = shmem.longAtomicSwap(w.asSlice(56), 1001 + me, 0);
        final MemorySegment tokens = shmem.malloc(8L * (n + 1));
        shmem.longFcollect(Shmem.TEAM_WORLD, tokens, MemorySegment.ofArray(new long[] {got}), 1);
        shmem.barrierAll();
        final long[] t = tokens.asSlice(0, 8L * n).toArray(ValueLayout.JAVA_LONG);
        final long last = shmem.longAtomicFetch(w.asSlice(56), 0);
        final long[] tokensAll = Arrays.copyOf(t, n + 1);
        tokensAll[n] = last;
        Arrays.sort(tokensAll);
        for (int i = 0; i <= n; i++) {
            check(tokensAll[i] == 1000 + i, "swap tokens conserved: " + Arrays.toString(tokensAll));
        }
        if (me == 0) {
            check(w.get(ValueLayout.JAVA_LONG, 40) == (long) n * (K / 4), "64-bit cswap increments");
            check(w.get(ValueLayout.JAVA_INT, 48) == n * (K / 4), "32-bit cswap increments");
        }
        shmem.barrierAll();
        // set/fetch/swap of the extended types, and nbi fetches
        final int right = (me + 1) % n;
        shmem.doubleAtomicSet(w.asSlice(64), me + 0.5, right);
        shmem.floatAtomicSet(w.asSlice(72), me + 0.25f, right);
        shmem.uint32AtomicSet(w.asSlice(76), 0xFFFF_FFF0 | me, right);
        shmem.quiet();
        shmem.barrierAll();
        final int left = (me + n - 1) % n;
        check(shmem.doubleAtomicFetch(w.asSlice(64), me) == left + 0.5, "double set/fetch");
        check(shmem.floatAtomicSwap(w.asSlice(72), 9f, me) == left + 0.25f, "float swap returns the old value");
        check(shmem.uint32AtomicFetch(w.asSlice(76), me) == (0xFFFF_FFF0 | left), "uint32 set/fetch");
        shmem.barrierAll();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment fetched = arena.allocate(8L * n, 8);
            for (int pe = 0; pe < n; pe++) {
                shmem.longAtomicFetchAddNbi(fetched.asSlice(8L * pe, 8), w.asSlice(80), 1, pe);
            }
            shmem.quiet();
            for (int pe = 0; pe < n; pe++) {
                final long v = fetched.get(ValueLayout.JAVA_LONG, 8L * pe);
                check(v >= 0 && v < n, "nbi fetch-add old value " + v + " from PE " + pe);
            }
            shmem.intAtomicCompareSwapNbi(fetched, w.asSlice(88), 0, 5, right);
            shmem.quiet();
        }
        shmem.barrierAll();
        check(w.get(ValueLayout.JAVA_LONG, 80) == n, "nbi fetch-adds all performed");
        check(w.get(ValueLayout.JAVA_INT, 88) == 5, "nbi cswap performed");
        shmem.barrierAll();
        shmem.free(tokens);
        shmem.free(olds);
        shmem.free(w);
    }
}
