package weft.shmem;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Zero allocation per small operation (put/get/p/g of 8 bytes, atomics and sets, put-with-signal, quiet, test,
 * barrier, broadcast, fcollect and reduction of one long) in steady state, on two PE processes with the full JIT
 * (C2): none at all over shm; over tcp none in this layer (see {@link ShmemAllocPe#limit} for what weft-core
 * allocates). Each PE reports the window that allocated least; a
 * per-operation allocation would show in every window.
 */
@Tag("allocation")
@Timeout(300)
class ShmemAllocationTest {
    private static final String[] OPS = {"longP", "longG", "putmem8", "getmem8", "longAtomicFetchAdd", "longAtomicAdd",
        "putmemSignalSet8", "signalSet", "longAtomicSet", "quiet", "longTest", "barrierAll", "longBroadcast",
        "longFcollect", "longSumReduce"};

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void smallOperationsAllocateNothing(final String tls) {
        final ShmemJob.Result r = ShmemJob.run(2, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "8m"),
            List.of("-XX:+UseSerialGC", "-Xmx128m", "-Xss2m"), 250, ShmemConformancePe.class, "alloc");
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < 2; rank++) {
            for (final String op : OPS) {
                final String line = r.out(rank).lines().filter(l -> l.startsWith("alloc " + op + " ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no figure for " + op + ": " + r));
                final long bytes = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                final long limit = ShmemAllocPe.limit(tls, op);
                assertTrue(bytes <= limit, "rank " + rank + " " + op + " allocated " + bytes + " bytes in a window "
                    + "over " + tls + " (limit " + limit + "): " + r);
            }
        }
    }
}
