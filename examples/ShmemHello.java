import weft.shmem.Shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run with: ./weft run -n 4 examples/ShmemHello.java — every PE writes its number into its right
 * neighbour's symmetric variable; after the barrier each PE prints what its left neighbour wrote.
 */
public class ShmemHello {
    public static void main(String[] args) {
        try (Shmem shmem = Shmem.init()) {
            int me = shmem.myPe(), n = shmem.nPes();
            MemorySegment x = shmem.malloc(8);
            shmem.longP(x, me, (me + 1) % n);
            shmem.barrierAll();
            System.out.printf("Hello from PE %d of %d: my left neighbour wrote %d%n", me, n,
                x.get(ValueLayout.JAVA_LONG, 0));
            shmem.free(x);
        }
    }
}
