package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A blocking wait on a failed operation throws, as a Java future's get() does, so that code written like
 * the README's example cannot go on as if a lost send had been sent; awaitStatus() gives the code instead.
 */
@Timeout(60)
class AwaitTest {
    @Test
    void awaitThrowsOnAFailedOperationAndAwaitStatusReturnsIt() {
        try (Context ctx = Context.builder().features(Feature.TAG).transports("shm", "self").build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final MemorySegment buf = arena.allocate(64);
            final Endpoint ab = a.connect(b.address());
            // a success returns OK
            final Request r0 = b.recvTag(buf, 0, 8, 1, -1L);
            assertEquals(Status.OK, ab.sendTag(1, buf, 0, 8).await());
            assertEquals(Status.OK, r0.await());
            r0.release();
            // a canceled receive: await throws with the status, awaitStatus returns it
            final Request r1 = b.recvTag(buf, 0, 8, 2, -1L);
            assertTrue(b.cancel(r1));
            final WeftException e = assertThrows(WeftException.class, r1::await);
            assertEquals(Status.CANCELED, e.status());
            assertEquals(Status.CANCELED, r1.awaitStatus());
            r1.release();
            // a truncated receive
            final Request r2 = b.recvTag(buf, 0, 4, 3, -1L);
            final Request s2 = ab.sendTag(3, buf, 0, 16);
            assertEquals(Status.MESSAGE_TRUNCATED, assertThrows(WeftException.class, r2::await).status());
            s2.await();
            r2.release();
            s2.release();
            // a send on a closed endpoint
            ab.close();
            assertEquals(Status.CLOSED, assertThrows(WeftException.class, () -> ab.sendTag(4, buf, 0, 8).await())
                .status());
        }
    }
}
