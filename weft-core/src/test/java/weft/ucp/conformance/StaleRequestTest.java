package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucs.Status;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pooled requests and the handles callers keep: a request is reused only once its holder released it, so a
 * handle kept after its callback still shows its own operation (and cancelling it touches nothing else);
 * a handle used after release() is refused with IllegalStateException while the request waits in the pool.
 */
@Timeout(60)
class StaleRequestTest {
    static {
        Two.warmUp();
    }

    @Test
    void aHandleKeptAfterItsCallbackStaysItsOwnAndCancellingItCancelsNothingElse() {
        try (Two t = new Two("shm,self", Config.global()); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = t.connectByAddress()[0];
            final MemorySegment buf = arena.allocate(64);
            final AtomicReference<Request> seen = new AtomicReference<>();
            final Request first = t.b.recvTag(buf, 0, 64, 1, -1L, null, seen::set); // kept, never released
            final Request s1 = ab.sendTag(1, buf, 0, 16);
            t.progressUntil(() -> seen.get() != null, 10, "the first receive's callback");
            s1.release();
            assertSame(first, seen.get());
            // a new receive, posted after the callback returned
            final Request second = t.b.recvTag(buf, 0, 64, 2, -1L);
            assertNotSame(first, second, "a request its holder did not release was handed to another operation");
            assertEquals(Status.OK, first.status());
            assertEquals(16, first.length(), "the kept handle shows its own operation");
            assertEquals(1, first.senderTag());
            assertFalse(t.b.cancel(first), "cancelling a completed receive does nothing");
            assertFalse(second.isCompleted(), "cancelling the old handle cancelled the new receive");
            final Request s2 = ab.sendTag(2, buf, 0, 24);
            t.await(second, 10, "the second receive");
            assertEquals(Status.OK, second.status());
            assertEquals(24, second.length());
            s2.release();
            second.release();
            first.release(); // done with it: now it may be reused
            assertThrows(IllegalStateException.class, first::status, "a released handle");
        }
    }

    @Test
    void aReleasedHandleIsRefusedUntilReused() {
        try (Two t = new Two("shm,self", Config.global()); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = t.connectByAddress()[0];
            final MemorySegment buf = arena.allocate(64);
            final Request r = t.b.recvTag(buf, 0, 64, 3, -1L);
            final Request s = ab.sendTag(3, buf, 0, 8);
            t.await(r, 10, "receive");
            s.release();
            r.release();
            final IllegalStateException e = assertThrows(IllegalStateException.class, r::isCompleted);
            assertTrue(e.getMessage().contains("released"), e.getMessage());
            assertThrows(IllegalStateException.class, r::status);
            assertThrows(IllegalStateException.class, r::length);
            assertThrows(IllegalStateException.class, r::senderTag);
            assertThrows(IllegalStateException.class, r::await);
            assertThrows(IllegalStateException.class, r::toFuture);
            assertThrows(IllegalStateException.class, r::release, "released twice");
            assertThrows(IllegalStateException.class, () -> t.b.cancel(r));
            // released before completion: the same once it completed and went back to the pool
            final Request pending = t.b.recvTag(buf, 0, 64, 4, -1L);
            pending.release();
            final Request s4 = ab.sendTag(4, buf, 0, 8);
            t.progressUntil(() -> {
                try {
                    pending.status();
                    return false;
                } catch (final IllegalStateException stale) {
                    return true; // completed, and back in the pool
                }
            }, 10, "the released receive to complete and be recycled");
            s4.release();
            // the shared done requests are never recycled
            Request.done(Status.OK).release();
            assertEquals(Status.OK, Request.done(Status.OK).status());
        }
    }

    @Test
    void aCallbackThatReleasesItsRequestHasItReused() {
        try (Two t = new Two("shm,self", Config.global()); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = t.connectByAddress()[0];
            final MemorySegment buf = arena.allocate(64);
            final AtomicReference<Request> seen = new AtomicReference<>();
            final Request r = t.b.recvTag(buf, 0, 64, 5, -1L, null, q -> {
                assertEquals(8, q.length());
                q.release(); // done with it: reused after the callback returns
                seen.set(q);
            });
            final Request s = ab.sendTag(5, buf, 0, 8);
            t.progressUntil(() -> seen.get() != null, 10, "callback");
            s.release();
            assertThrows(IllegalStateException.class, r::status, "released in its callback");
            final Request next = t.b.recvTag(buf, 0, 64, 6, -1L);
            assertSame(r, next, "the released request is reused");
            assertFalse(next.isCompleted());
            assertTrue(t.b.cancel(next));
            next.release();
        }
    }
}
