package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Request#toFuture()}: completed from progress, and bound by the worker's thread mode. */
@Timeout(30)
class RequestFutureTest {
    @Test
    void futureCompletesFromProgressAndObeysTheThreadMode() throws Exception {
        try (Context ctx = Context.builder().transports("self").build(); Worker w = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Endpoint self = w.connect(w.address());
            final MemorySegment in = arena.allocate(8);
            final MemorySegment out = arena.allocate(8);
            out.set(ValueLayout.JAVA_LONG, 0, 42);
            final Request r = w.recvTag(in, 0, 8, 9, -1L);
            final CompletableFuture<Request> f = r.toFuture();
            assertFalse(f.isDone(), "nothing sent yet");
            assertEquals(Status.OK, self.sendTag(9, out, 0, 8).await());
            while (!f.isDone()) {
                w.progress();
            }
            assertSame(r, f.get());
            assertEquals(Status.OK, f.get().status());
            assertEquals(8, f.get().length());
            assertEquals(42, in.get(ValueLayout.JAVA_LONG, 0));
            assertTrue(r.toFuture().isDone(), "a completed request gives a completed future");
            // SINGLE mode: another thread may not touch the worker's requests either
            final Request pending = w.recvTag(in, 0, 8, 10, -1L);
            final AtomicReference<Throwable> seen = new AtomicReference<>();
            final Thread t = Thread.ofPlatform().start(() -> {
                try {
                    pending.toFuture();
                } catch (final Throwable e) {
                    seen.set(e);
                }
            });
            t.join();
            assertInstanceOf(WeftException.class, seen.get(), "toFuture from a foreign thread");
            assertTrue(w.cancel(pending));
            assertEquals(Status.CANCELED, pending.status());
            r.release();
            pending.release();
        } catch (final ExecutionException e) {
            throw new AssertionError(e);
        }
    }
}
