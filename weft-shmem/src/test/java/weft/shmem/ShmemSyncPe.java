package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.shmem.PeChecks.check;
import static weft.shmem.PeChecks.pattern;
import static weft.shmem.PeChecks.verify;

/**
 * Point-to-point synchronization and signals ({@link ShmemConformanceTest}): waitUntil, the _all/_any/_some
 * and _vector waits and tests on variables other PEs update, unsigned comparisons, put-with-signal (set and
 * add, blocking and nbi) whose data is visible once the signal is, signalFetch/Add/Set.
 */
final class ShmemSyncPe {
    private ShmemSyncPe() {
    }

    static void run(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final int right = (me + 1) % n;
        final int left = (me + n - 1) % n;
        final MemorySegment ivars = shmem.calloc(n, 8);
        final MemorySegment ints = shmem.calloc(n, 4);
        final MemorySegment sig = shmem.calloc(2, 8);
        final MemorySegment data = shmem.malloc(100_000);
        shmem.barrierAll();
        // every PE writes its slot on every other PE; each waits for all slots but its own
        for (int pe = 0; pe < n; pe++) {
            if (pe != me) {
                shmem.longP(ivars.asSlice(8L * me), me + 1, pe);
                shmem.intAtomicSet(ints.asSlice(4L * me), me + 1, pe);
            }
        }
        final int[] status = new int[n];
        status[me] = 1;
        shmem.longWaitUntilAll(ivars, n, status, Shmem.CMP_NE, 0);
        for (int pe = 0; pe < n; pe++) {
            check(pe == me || ivars.get(ValueLayout.JAVA_LONG, 8L * pe) == pe + 1, "waitUntilAll slot " + pe);
        }
        final int[] expected = new int[n];
        for (int pe = 0; pe < n; pe++) {
            expected[pe] = pe + 1;
        }
        shmem.intWaitUntilAllVector(ints, n, status, Shmem.CMP_EQ, expected);
        check(shmem.longTestAll(ivars, n, status, Shmem.CMP_GT, 0), "testAll after the waits");
        final long any = shmem.longWaitUntilAny(ivars, n, status, Shmem.CMP_GE, 1);
        check(any >= 0 && any < n && any != me, "waitUntilAny index " + any);
        final long[] idx = new long[n];
        final long some = shmem.longWaitUntilSome(ivars, n, idx, status, Shmem.CMP_GE, 1);
        check(some == n - 1, "waitUntilSome found " + some);
        check(shmem.longTestAny(ivars, n, status, Shmem.CMP_GT, 1_000) == -1, "testAny finds none");
        check(shmem.longTestSome(ivars, n, idx, status, Shmem.CMP_LT, 0) == 0, "testSome finds none");
        final long[] vec = new long[n];
        for (int pe = 0; pe < n; pe++) {
            vec[pe] = pe == right ? right + 1 : -7;
        }
        check(shmem.longTestAnyVector(ivars, n, status, Shmem.CMP_EQ, vec) == (right == me ? -1 : right),
            "testAnyVector finds the one matching value");
        check(shmem.longTestSomeVector(ivars, n, idx, status, Shmem.CMP_EQ, vec) == (right == me ? 0 : 1),
            "testSomeVector");
        final int[] all = new int[n];
        all[0] = 1;
        for (int i = 1; i < n; i++) {
            all[i] = 1;
        }
        check(shmem.longWaitUntilAny(ivars, n, all, Shmem.CMP_EQ, 0) == -1, "waitUntilAny with every element excluded");
        // unsigned comparison: 0xFFFFFFFF is greater than 1 as uint, less as int
        ints.set(ValueLayout.JAVA_INT, 0, -1);
        check(shmem.uintTest(ints, Shmem.CMP_GT, 1), "uint compares unsigned");
        check(!shmem.intTest(ints, Shmem.CMP_GT, 1), "int compares signed");
        ivars.set(ValueLayout.JAVA_LONG, 0, -1L);
        check(shmem.uint64Test(ivars, Shmem.CMP_GT, Long.MAX_VALUE), "uint64 compares unsigned");
        shmem.barrierAll();
        // put with signal: the data is there once the signal is
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment src = arena.allocate(100_000, 8);
            for (int round = 1; round <= 10; round++) {
                pattern(src, 100_000, round * 16 + me);
                if (round % 2 == 0) {
                    shmem.putmemSignalNbi(data, src, 100_000, sig, round, Shmem.SIGNAL_SET, right);
                } else {
                    shmem.putmemSignal(data, src, 100_000, sig, round, Shmem.SIGNAL_SET, right);
                }
                check(shmem.signalWaitUntil(sig, Shmem.CMP_EQ, round) == round, "signal value");
                verify(data, 100_000, round * 16 + left, "put-with-signal data, round " + round);
                shmem.quiet();
                shmem.barrierAll();
            }
            // SIGNAL_ADD from every PE onto the second word of PE 0
            final long[] one = {me};
            shmem.longPutSignal(data.asSlice(8L * me), one, 1, sig.asSlice(8), 1, Shmem.SIGNAL_ADD, 0);
            if (me == 0) {
                shmem.signalWaitUntil(sig.asSlice(8), Shmem.CMP_EQ, n);
                for (int pe = 0; pe < n; pe++) {
                    check(data.get(ValueLayout.JAVA_LONG, 8L * pe) == pe, "signal-add data of PE " + pe);
                }
                check(shmem.signalFetch(sig.asSlice(8)) == n, "signalFetch");
            }
            shmem.barrierAll();
            shmem.signalAdd(sig, 5, right);
            shmem.quiet();
            shmem.barrierAll();
            check(shmem.signalFetch(sig) == 15, "signalAdd on the last set value 10: " + shmem.signalFetch(sig));
            shmem.barrierAll();
            shmem.signalSet(sig, 3, right);
            shmem.quiet();
            shmem.barrierAll();
            check(shmem.signalFetch(sig) == 3, "signalSet");
        }
        shmem.barrierAll();
        shmem.free(data);
        shmem.free(sig);
        shmem.free(ints);
        shmem.free(ivars);
    }
}
