package weft.ucp;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A worker flush covers the one-sided operations the user started: an endpoint a peer's wireup made here
 * and nobody used for one (the reverse side of the peer's connection) does not fail it when that peer's
 * worker closes. Found with OpenSHMEM contexts over tcp: a PE's quiet failed with CONNECTION_RESET right
 * after another PE destroyed a context (its own worker). An endpoint the user did use still reports.
 */
@Timeout(60)
class WorkerFlushPeerGoneTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aFlushIgnoresUnusedEndpointsOfAClosedPeerWorker(final String tls) {
        try (Context ctx = Context.builder().features(Feature.values()).transports(tls).build();
             Worker a = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Worker b = ctx.newWorker();
            final Endpoint ba = b.connect(a.address()); // a gets the reverse endpoint from b's wireup
            final MemorySegment one = arena.allocate(8);
            final Request rb = a.recvTag(one, 0, 8, 5, -1L);
            final Request sb = ba.sendTag(5, one, 0, 8);
            RawAm.progressUntil(a, b, () -> rb.isCompleted() && sb.isCompleted());
            rb.release();
            sb.release();
            b.close(); // the peer's worker goes (an OpenSHMEM context destroyed)
            final Request f = a.flush();
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (!f.isCompleted() && System.nanoTime() < deadline) {
                a.progress();
            }
            assertEquals(Status.OK, f.status(), "a flush with no one-sided operation outstanding");
            f.release();
        }
    }
}
