package weft.shmem;

import weft.uct.AtomicOp;

import java.lang.foreign.MemorySegment;

/**
 * OpenSHMEM locks as ticket locks on PE 0's copy of the symmetric lock word: the low 32 bits hand out
 * tickets (one fetch-add each), the high 32 bits say which ticket is served, so PEs get the lock in the
 * order they asked for it (FIFO). A waiting PE polls the served half with atomic reads.
 */
final class Locks {
    private static final int HOME = 0;

    private final OneSided ops;
    private final PointSync sync;

    Locks(final OneSided ops, final PointSync sync) {
        this.ops = ops;
        this.sync = sync;
    }

    private MemorySegment check(final MemorySegment lock) {
        ops.heap().offsetOf(lock, 8, "the lock");
        if ((lock.address() & 7) != 0) {
            throw new IllegalArgumentException("the lock 0x" + Long.toHexString(lock.address()) + " is not 8-byte aligned");
        }
        return lock;
    }

    void set(final MemorySegment lock) {
        check(lock);
        final int ticket = (int) ops.amo(AtomicOp.ADD, lock, 1, 4, HOME, true);
        final MemorySegment served = lock.asSlice(4, 4);
        final long start = System.nanoTime();
        int round = 0;
        while ((int) ops.fetch(served, 4, HOME) != ticket) {
            round = sync.pause(round, start);
        }
    }

    boolean test(final MemorySegment lock) {
        check(lock);
        ops.progress(); // a PE polling its own lock (PE 0) must still serve the holder's atomics over tcp
        final long v = ops.fetch(lock, 8, HOME);
        final int ticket = (int) v;
        if (ticket != (int) (v >>> 32)) {
            return false;
        }
        final long taken = (v & 0xFFFF_FFFF_0000_0000L) | ((ticket + 1) & 0xFFFF_FFFFL);
        return ops.cswap(lock, v, taken, 8, HOME) == v;
    }

    void clear(final MemorySegment lock) {
        check(lock);
        ops.quiet(); // what was done under the lock is complete before the next holder gets it
        ops.amo(AtomicOp.ADD, lock.asSlice(4, 4), 1, 4, HOME, true); // fetching: done at PE 0 when it returns
    }
}
