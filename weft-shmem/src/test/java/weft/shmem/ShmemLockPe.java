package weft.shmem;

import java.lang.foreign.MemorySegment;

import static weft.shmem.PeChecks.check;

/**
 * Locks under contention ({@link ShmemConformanceTest}): every PE increments a counter on PE 0 with a get
 * and a put (not atomic on their own) inside set/clear lock, and with testLock; no increment is lost.
 */
final class ShmemLockPe {
    private static final int K = 40;

    private ShmemLockPe() {
    }

    static void run(final Shmem shmem) {
        final int n = shmem.nPes();
        final MemorySegment lock = shmem.calloc(1, 8);
        final MemorySegment counter = shmem.calloc(1, 8);
        shmem.barrierAll();
        for (int i = 0; i < K; i++) {
            shmem.setLock(lock);
            shmem.longP(counter, shmem.longG(counter, 0) + 1, 0);
            shmem.clearLock(lock);
            while (shmem.testLock(lock) != 0) {
                Thread.onSpinWait();
            }
            shmem.longP(counter, shmem.longG(counter, 0) + 1, 0);
            shmem.clearLock(lock);
        }
        shmem.barrierAll();
        check(shmem.longG(counter, 0) == 2L * n * K, "no increment under the lock was lost: "
            + shmem.longG(counter, 0));
        shmem.barrierAll();
        shmem.free(counter);
        shmem.free(lock);
    }
}
