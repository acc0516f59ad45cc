package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

/**
 * Bytes allocated per small operation ({@link ShmemAllocationTest}): every PE runs each operation against its
 * right neighbour, warms it up, then measures windows of it with the thread's allocation counter and prints
 * {@code alloc NAME BYTES} for the window that allocated least: windows of 20000 operations (a tenth over
 * tcp), shrinking while they exceed {@link #limit}, for up to 20 s; barriers and the small broadcast, fcollect
 * and reduction run five windows of 2000 on every PE alike. A stray allocation of the JVM (a compilation's)
 * lands in some windows, a per-operation one in all.
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
            final MemorySegment sig = sym.asSlice(24, 8);
            final MemorySegment data = sym.asSlice(32, 8);
            measure(shmem, "putmemSignalSet8", () -> { // one fused transport operation, completed by a quiet
                shmem.putmemSignal(data, local, 8, sig, posts[0], Shmem.SIGNAL_SET, right);
                if (++posts[0] % 64 == 0) {
                    shmem.quiet();
                }
            });
            measure(shmem, "signalSet", () -> { // a posted swap
                shmem.signalSet(sig, posts[0], right);
                if (++posts[0] % 64 == 0) {
                    shmem.quiet();
                }
            });
            measure(shmem, "longAtomicSet", () -> {
                shmem.longAtomicSet(sig, posts[0], right);
                if (++posts[0] % 64 == 0) {
                    shmem.quiet();
                }
            });
            measure(shmem, "quiet", shmem::quiet);
            measure(shmem, "longTest", () -> shmem.longTest(flag, Shmem.CMP_EQ, 0));
            measure(shmem, "barrierAll", shmem::barrierAll, WARM / 10, WINDOW / 10, false);
            // back to back into the same destinations: the values do not matter here, only the allocation
            final MemorySegment src = sym.asSlice(24, 8);
            final MemorySegment dest = sym.asSlice(64, 8L * shmem.nPes());
            measure(shmem, "longBroadcast", () -> shmem.longBroadcast(Shmem.TEAM_WORLD, dest, src, 1, 0), WARM / 10,
                WINDOW / 10, false);
            measure(shmem, "longFcollect", () -> shmem.longFcollect(Shmem.TEAM_WORLD, dest, src, 1), WARM / 10,
                WINDOW / 10, false);
            measure(shmem, "longSumReduce", () -> shmem.longSumReduce(Shmem.TEAM_WORLD, dest, src, 1), WARM / 10,
                WINDOW / 10, false);
        }
        shmem.free(sym);
    }

    /**
     * The bytes a window of {@code op} may allocate over {@code tls}. Over tcp the operations of this layer
     * allocate nothing either, but weft-core does in two places seen
     * here: a worker flush with posted atomics outstanding (about 80 bytes per flush: a posted add's window
     * flushes every 64 adds, a barrier's quiet flushes its signals) and, once in a while, something in the
     * worker's periodic service (a few hundred bytes in a 2000-operation window of longP on one PE). On
     * either transport a barrier whose wait backs off to sleeping (PEs outnumber the free cores) goes through
     * {@code Worker.waitForEvents}, seen allocating a few hundred bytes per window.
     */
    static long limit(final String tls, final String op) {
        final boolean collective = op.equals("barrierAll") || op.startsWith("longBroadcast")
            || op.startsWith("longFcollect") || op.startsWith("longSumReduce");
        if (tls.equals("shm")) {
            return collective ? 1024 : 0;
        }
        if (collective) {
            return 128L * 200 + 1024;
        }
        return switch (op) {
            case "longAtomicAdd", "putmemSignalSet8", "signalSet", "longAtomicSet" -> 128L * (2000 / 64 + 1);
            case "longP" -> 512;
            default -> 0;
        };
    }

    private static void measure(final Shmem shmem, final String name, final Runnable op) {
        measure(shmem, name, op, WARM, WINDOW, true);
    }

    /** {@code alone}: the operation needs no call of the others (not a collective), so PEs may run more windows. */
    private static void measure(final Shmem shmem, final String name, final Runnable op, final int warm,
                                final int window, final boolean alone) {
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long tid = Thread.currentThread().threadId();
        for (int i = 0; i < warm; i++) {
            op.run();
        }
        // Windows until one allocates no more than the limit, within a budget: a per-operation allocation shows in every
        // window; the worker's periodic service (a few dozen bytes a round) lands in some. On a crowded machine
        // a window can span a service round every time, so windows shrink (to a tenth) while they allocate.
        // A collective runs five windows of the same length on every PE.
        long least = Long.MAX_VALUE;
        int n = window;
        final long budgetEnd = System.nanoTime() + 20_000_000_000L;
        final long limit = limit(System.getenv().getOrDefault("WEFT_TLS", "shm"), name);
        for (int w = 0; alone ? least > limit && (w < 5 || System.nanoTime() < budgetEnd) : w < 5; w++) {
            final long b0 = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < n; i++) {
                op.run();
            }
            least = Math.min(least, mx.getThreadAllocatedBytes(tid) - b0);
            n = alone ? Math.max(window / 10, n * 3 / 4) : n;
        }
        shmem.quiet();
        shmem.barrierAll();
        System.out.println("alloc " + name + " " + least);
    }
}
