package weft.shmem;

/**
 * A PE of {@link ShmemConformanceTest}: runs the named families in order ({@code rma amo sync coll heap lock ctx})
 * and prints {@code ok FAMILY} after each; a failed check throws (the PE exits non-zero, the job aborts).
 * Family {@code ctxmain}: contexts used by the main thread alone, nothing else progressing.
 * Mode {@code ring}: each PE only puts to its right neighbour, then prints its endpoint and key counts.
 */
public final class ShmemConformancePe {
    private ShmemConformancePe() {
    }

    public static void main(final String[] args) {
        // No try-with-resources: a failed check must end the job (uncaught → abort), not wait in finalize.
        final Shmem shmem = Shmem.init();
        for (final String family : args) {
            switch (family) {
                case "rma" -> ShmemRmaPe.run(shmem);
                case "amo" -> ShmemAmoPe.run(shmem);
                case "sync" -> ShmemSyncPe.run(shmem);
                case "coll" -> ShmemCollPe.run(shmem);
                case "heap" -> ShmemHeapPe.run(shmem);
                case "lock" -> ShmemLockPe.run(shmem);
                case "ctx" -> ShmemCtxPe.run(shmem);
                case "ctxmain" -> ShmemCtxPe.mainThreadOnly(shmem);
                case "alloc" -> ShmemAllocPe.run(shmem);
                case "ring" -> ring(shmem);
                default -> throw new IllegalArgumentException("unknown family " + family);
            }
            System.out.println("ok " + family);
        }
        shmem.close();
    }

    private static void ring(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final java.lang.foreign.MemorySegment flag = shmem.calloc(1, 8);
        shmem.longP(flag, me + 1, (me + 1) % n);
        shmem.longWaitUntil(flag, Shmem.CMP_EQ, (me + n - 1) % n + 1);
        System.out.println("endpoints " + shmem.endpointCount() + " keys " + shmem.unpackedKeyCount()
            + " transport keys " + shmem.sharedRemoteKeyCount());
        shmem.free(flag);
    }
}
