import weft.shmem.Shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run with: ./weft run -n 4 examples/ShmemRing.java — a token of 1024 longs goes around the ring of PEs ten
 * times; each hop is one put-with-signal (the receiver that sees the signal sees the data), and each PE adds
 * its number to every element before passing the token on. PE 0 checks the total at the end.
 */
public class ShmemRing {
    public static void main(String[] args) {
        final int laps = 10, len = 1024;
        try (Shmem shmem = Shmem.init()) {
            int me = shmem.myPe(), n = shmem.nPes();
            MemorySegment token = shmem.calloc(len, 8);
            MemorySegment signal = shmem.calloc(1, 8);
            long[] buf = new long[len];
            for (int hop = 1; hop <= laps * n; hop++) {
                int holder = (hop - 1) % n; // PE 0 holds the token first
                if (me == holder) {
                    if (hop > 1) {
                        shmem.signalWaitUntil(signal, Shmem.CMP_GE, hop - 1);
                    }
                    MemorySegment.copy(token, ValueLayout.JAVA_LONG, 0, buf, 0, len);
                    for (int i = 0; i < len; i++) {
                        buf[i] += me;
                    }
                    shmem.longPutSignal(token, buf, len, signal, hop, Shmem.SIGNAL_SET, (me + 1) % n);
                }
            }
            if (me == 0) {
                shmem.signalWaitUntil(signal, Shmem.CMP_GE, (long) laps * n);
                long perLap = (long) n * (n - 1) / 2;
                long got = token.get(ValueLayout.JAVA_LONG, 8L * (len - 1));
                System.out.printf("ring of %d PEs, %d laps: every element is %d (expected %d)%n", n, laps, got,
                    laps * perLap);
                if (got != laps * perLap) {
                    throw new IllegalStateException("the token lost an update");
                }
            }
            shmem.barrierAll();
        }
    }
}
