package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A rough latency probe (not a test): run as {@code ./weft run -n 2 -cp weft-shmem/target/test-classes
 * weft.shmem.ShmemLatencyPe [ITERS]}; PE 0 prints the mean time per operation of each routine.
 */
public final class ShmemLatencyPe {
    private ShmemLatencyPe() {
    }

    public static void main(final String[] args) {
        final int iters = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        final Shmem shmem = Shmem.init();
        final int me = shmem.myPe();
        final int peer = (me + 1) % shmem.nPes();
        final MemorySegment sym = shmem.calloc(1 << 16, 1);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment local = arena.allocate(1 << 16, 64);
            for (int pass = 0; pass < 2; pass++) {
                final boolean report = pass == 1 && me == 0;
                time(report, "barrierAll", iters, shmem::barrierAll);
                time(report, "longP+quiet", iters, () -> {
                    shmem.longP(sym, 1, peer);
                    shmem.quiet();
                });
                time(report, "longG", iters, () -> shmem.longG(sym, peer));
                time(report, "putmem 8 B", iters, () -> shmem.putmem(sym, local, 8, peer));
                time(report, "getmem 64 KiB", iters / 10, () -> shmem.getmem(local, sym, 1 << 16, peer));
                time(report, "longAtomicFetchAdd", iters, () -> shmem.longAtomicFetchAdd(sym.asSlice(8), 1, peer));
                time(report, "longSumReduce 1", iters / 4, () -> shmem.longSumReduce(Shmem.TEAM_WORLD, sym.asSlice(64),
                    sym.asSlice(16), 1));
                time(report, "longBroadcast 1", iters / 4, () -> shmem.longBroadcast(Shmem.TEAM_WORLD, sym.asSlice(64),
                    sym.asSlice(16), 1, 0));
                time(report, "longFcollect 1", iters / 4, () -> shmem.longFcollect(Shmem.TEAM_WORLD, sym.asSlice(128),
                    sym.asSlice(16), 1));
                shmem.barrierAll();
            }
        }
        shmem.free(sym);
        shmem.close();
    }

    private static void time(final boolean report, final String what, final int iters, final Runnable op) {
        final long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            op.run();
        }
        final long ns = System.nanoTime() - t0;
        if (report) {
            System.out.printf("%-22s %10.2f us%n", what, ns / 1e3 / iters);
        }
    }
}
