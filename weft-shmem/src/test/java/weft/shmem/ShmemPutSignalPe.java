package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static weft.shmem.PeChecks.check;
import static weft.shmem.PeChecks.pattern;
import static weft.shmem.PeChecks.verify;

/**
 * A PE of {@link ShmemPutSignalTest}: put-with-signal (SIGNAL_ADD and SIGNAL_SET, each one transport operation
 * where the lane fuses it) to the right neighbour, blocking and nbi, sizes 0, 1, odd, 4 KiB (a copied put on
 * tcp), 64 KiB and 1 MiB: the PE spinning on its signal finds every byte of that round's data once the signal
 * arrives, and a blocking call's source overwritten right after it returns never reaches the target. Then a
 * put, a fence and {@code signalSet} (a posted swap), and {@code longAtomicSet}, each seen by the spinning PE.
 * Prints {@code ok put-signal}.
 */
public final class ShmemPutSignalPe {
    private static final long[] SIZES = {0, 1, 61, 4 << 10, 64 << 10, 1 << 20};
    private static final int ROUNDS = 8;

    private ShmemPutSignalPe() {
    }

    public static void main(final String[] args) {
        final Shmem shmem = Shmem.init();
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final int right = (me + 1) % n;
        final int left = (me + n - 1) % n;
        final long max = SIZES[SIZES.length - 1];
        final MemorySegment data = shmem.malloc(max);
        final MemorySegment sig = shmem.calloc(1, 8);
        final MemorySegment src = Arena.ofAuto().allocate(max, 8);
        shmem.barrierAll();
        long signals = 0;
        for (final long size : SIZES) {
            for (int round = 0; round < ROUNDS; round++) {
                final boolean nbi = round % 2 == 1;
                final boolean set = round % 4 >= 2; // SIGNAL_SET to the count the target waits for
                final String what = size + " bytes, round " + round + (nbi ? " (nbi)" : "") + (set ? " set" : " add");
                pattern(src, size, (int) (size + round * 16 + me));
                final int op = set ? Shmem.SIGNAL_SET : Shmem.SIGNAL_ADD;
                final long value = set ? signals + 1 : 1;
                if (nbi) {
                    shmem.putmemSignalNbi(data, src, size, sig, value, op, right);
                } else {
                    shmem.putmemSignal(data, src, size, sig, value, op, right);
                    src.asSlice(0, size).fill((byte) 0x5a); // reusable once the call returned
                }
                signals++;
                check(shmem.signalWaitUntil(sig, Shmem.CMP_GE, signals) == signals, "one signal per call: " + what);
                verify(data, size, (int) (size + round * 16 + left), "put-with-signal data, " + what);
                shmem.quiet(); // an nbi call's source is the next round's
                shmem.barrierAll(); // the target checked this round's data before the next one lands
            }
        }
        for (int round = 1; round <= ROUNDS; round++) {
            final long size = 61L * round;
            pattern(src, size, round + me);
            shmem.putmem(data, src, size, right);
            shmem.fence();
            shmem.signalSet(sig, -round, right);
            check(shmem.signalWaitUntil(sig, Shmem.CMP_EQ, -round) == -round, "signalSet, round " + round);
            verify(data, size, round + left, "the put before a fence and signalSet, round " + round);
            shmem.barrierAll(); // every PE saw its -round before the set below overwrites it
            shmem.longAtomicSet(sig, round, right);
            check(shmem.signalWaitUntil(sig, Shmem.CMP_EQ, round) == round, "longAtomicSet, round " + round);
            shmem.quiet();
            shmem.barrierAll();
        }
        shmem.free(data);
        shmem.free(sig);
        System.out.println("ok put-signal");
        shmem.close();
    }
}
