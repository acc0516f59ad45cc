package weft.shmem;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Put-with-signal ordering and source reuse ({@link ShmemPutSignalPe}) over shared memory and tcp. */
@Timeout(300)
class ShmemPutSignalTest {
    @ParameterizedTest(name = "{0}, {1} PEs")
    @CsvSource({"shm, 2", "tcp, 2", "tcp, 3"})
    void signalSeenMeansDataSeen(final String tls, final int n) {
        final ShmemJob.Result r = ShmemJob.run(n, Map.of("WEFT_TLS", tls, "SHMEM_SYMMETRIC_SIZE", "16m"), 200,
            ShmemPutSignalPe.class);
        assertTrue(r.ok(), r.toString());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out(rank).contains("ok put-signal\n"), "rank " + rank + ": " + r);
        }
    }
}
