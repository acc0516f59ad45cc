import weft.shmem.Shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run with: ./weft run -n 4 examples/ShmemCounter.java — a distributed counter: every PE takes 1000 tickets
 * from a counter on PE 0 with atomic fetch-and-increment (each ticket is unique), and adds its tickets' sum to
 * a total on PE 0 with an atomic add. PE 0 checks that the tickets were 0 .. N*1000-1.
 */
public class ShmemCounter {
    public static void main(String[] args) {
        final int k = 1000;
        try (Shmem shmem = Shmem.init()) {
            int me = shmem.myPe(), n = shmem.nPes();
            MemorySegment counter = shmem.calloc(2, 8);
            MemorySegment total = counter.asSlice(8, 8);
            shmem.barrierAll();
            long sum = 0;
            for (int i = 0; i < k; i++) {
                sum += shmem.longAtomicFetchInc(counter, 0);
            }
            shmem.longAtomicAdd(total, sum, 0);
            shmem.barrierAll();
            if (me == 0) {
                long tickets = counter.get(ValueLayout.JAVA_LONG, 0);
                long expect = (long) n * k * (n * k - 1) / 2;
                System.out.printf("%d PEs took %d tickets; their sum %d (expected %d)%n", n, tickets,
                    total.get(ValueLayout.JAVA_LONG, 0), expect);
                if (tickets != (long) n * k || total.get(ValueLayout.JAVA_LONG, 0) != expect) {
                    throw new IllegalStateException("an atomic update was lost");
                }
            }
            shmem.free(counter);
        }
    }
}
