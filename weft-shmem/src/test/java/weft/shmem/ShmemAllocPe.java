package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

/**
 * Bytes allocated per small operation ({@link ShmemAllocationTest}): every PE runs each operation against its
 * right neighbour, warms it up, then measures windows of it with the thread's allocation counter and prints
 * {@code alloc NAME BYTES} for the window (20000 operations, 2000 barriers; a tenth over tcp) that
 * allocated least (a stray allocation of the JVM, e.g. a
 * compilation's, lands in one window, a per-operation allocation in all).
 */
final class ShmemAllocPe {
    // tcp: every operation is a round trip through the peer's progress, 10x fewer keep the job short
    private static final int SCALE = "tcp".equals(System.getenv("WEFT_TLS")) ? 10 : 1;
    private static final int WARM = 30_000 / SCALE;
    private static final int WINDOW = 20_000 / SCALE;

    private ShmemAllocPe() {
    }

    static void run(final Shmem shmem) {
        final int right = (shmem.myPe() + 1) % shmem.nPes();
        final MemorySegment sym = shmem.calloc(64, 8);
        final MemorySegment word = sym.asSlice(8, 8);
        final MemorySegment flag = sym.asSlice(16, 8);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment local = arena.allocate(8, 8);
            measure(shmem, "longP", () -> shmem.longP(sym, 1, right));
            measure(shmem, "longG", () -> shmem.longG(sym, right));
            measure(shmem, "putmem8", () -> shmem.putmem(sym, local, 8, right));
            measure(shmem, "getmem8", () -> shmem.getmem(local, sym, 8, right));
            measure(shmem, "longAtomicFetchAdd", () -> shmem.longAtomicFetchAdd(word, 1, right));
            final int[] posts = {0};
            measure(shmem, "longAtomicAdd", () -> { // posted atomics are completed by a quiet now and then
                shmem.longAtomicAdd(word, 1, right);
                if (++posts[0] % 64 == 0) {
                    shmem.quiet();
                }
            });
            measure(shmem, "quiet", shmem::quiet);
            measure(shmem, "longTest", () -> shmem.longTest(flag, Shmem.CMP_EQ, 0));
            measure(shmem, "barrierAll", shmem::barrierAll, WARM / 10, WINDOW / 10);
        }
        shmem.free(sym);
    }

    private static void measure(final Shmem shmem, final String name, final Runnable op) {
        measure(shmem, name, op, WARM, WINDOW);
    }

    private static void measure(final Shmem shmem, final String name, final Runnable op, final int warm,
                                final int window) {
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long tid = Thread.currentThread().threadId();
        for (int i = 0; i < warm; i++) {
            op.run();
        }
        long least = Long.MAX_VALUE;
        for (int w = 0; w < 5; w++) {
            final long b0 = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < window; i++) {
                op.run();
            }
            least = Math.min(least, mx.getThreadAllocatedBytes(tid) - b0);
        }
        shmem.quiet();
        shmem.barrierAll();
        System.out.println("alloc " + name + " " + least);
    }
}
