import weft.shmem.Shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run with: ./weft run -n 4 examples/ShmemReduce.java — each PE sums its share of 1..10^6 locally, then one
 * sum reduction over all PEs gives every PE the total; the maximum reduction finds the largest share.
 */
public class ShmemReduce {
    public static void main(String[] args) {
        final long limit = 1_000_000;
        try (Shmem shmem = Shmem.init()) {
            int me = shmem.myPe(), n = shmem.nPes();
            MemorySegment part = shmem.malloc(8);
            MemorySegment result = shmem.malloc(8);
            long mine = 0;
            for (long v = 1 + me; v <= limit; v += n) {
                mine += v;
            }
            part.set(ValueLayout.JAVA_LONG, 0, mine);
            shmem.longSumReduce(Shmem.TEAM_WORLD, result, part, 1);
            long total = result.get(ValueLayout.JAVA_LONG, 0);
            shmem.longMaxReduce(Shmem.TEAM_WORLD, result, part, 1);
            if (me == 0) {
                System.out.printf("sum of 1..%d over %d PEs = %d (expected %d); largest share %d%n", limit, n, total,
                    limit * (limit + 1) / 2, result.get(ValueLayout.JAVA_LONG, 0));
            }
            if (total != limit * (limit + 1) / 2) {
                throw new IllegalStateException("PE " + me + " got a wrong total " + total);
            }
            shmem.free(result);
            shmem.free(part);
        }
    }
}
