package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.ThreadMode;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.uct.conformance.Resources;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Context#close()} releases everything whatever thread calls it (as UCX's {@code ucp_cleanup}): a
 * SINGLE worker used by one thread is closed by another once its owner is done with it, and a worker that
 * cannot be closed (a SERIALIZED worker another thread is inside) is refused before anything of it changed,
 * without keeping the other workers open, and a later close finishes the job.
 */
@Timeout(60)
class ContextCloseTest {
    static {
        Two.warmUp();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "shm,self", "tcp,self"})
    void singleWorkersUsedOnOneThreadAreClosedFromAnother(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        final Context ctx = Two.context(tls, Config.global());
        final CompletableFuture<Request> pending = new CompletableFuture<>();
        try (Arena arena = Arena.ofShared()) {
            final Thread owner = Thread.ofPlatform().name("owner").start(() -> {
                try {
                    final Worker a = ctx.newWorker(ThreadMode.SINGLE);
                    final Worker b = ctx.newWorker(ThreadMode.SINGLE);
                    final Endpoint ab = a.connect(b.address());
                    b.connect(a.address());
                    final MemorySegment buf = arena.allocate(64);
                    final Request r = b.recvTag(buf, 0, 64, 5, -1L);
                    final Request s = ab.sendTag(5, arena.allocate(64).fill((byte) 7), 0, 64);
                    final long deadline = System.nanoTime() + 10_000_000_000L;
                    while (!(r.isCompleted() && s.isCompleted()) && System.nanoTime() < deadline) {
                        a.progress();
                        b.progress();
                    }
                    if (r.status() != Status.OK || buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63) != 7) {
                        throw new AssertionError("message not received: " + r);
                    }
                    r.release();
                    s.release();
                    pending.complete(b.recvTag(buf, 0, 64, 6, -1L)); // left posted: close cancels it
                } catch (final Throwable t) {
                    pending.completeExceptionally(t);
                }
            });
            final Request posted = pending.get(20, TimeUnit.SECONDS);
            owner.join(10_000); // the owner is done with its workers
            ctx.close(); // from this thread: threw INVALID_PARAM from the first worker's thread guard
            assertEquals(Status.CANCELED, posted.status(), "the posted receive is canceled by the close");
            ctx.close(); // a second close is a no-op
            assertEquals(Status.CLOSED, assertThrows(WeftException.class, ctx::newWorker).status());
        } finally {
            ctx.close();
        }
        Resources.assertBackTo(before, "a context closed from another thread over " + tls, 3000);
    }

    @Test
    void aWorkerThatCannotCloseIsRefusedUntouchedAndTheOthersStillClose() throws Exception {
        final Resources.Snapshot before = Resources.take();
        final Context ctx = Two.context("shm,self", Config.global());
        final Worker busy = ctx.newWorker(ThreadMode.SERIALIZED);
        final Worker idle = ctx.newWorker(ThreadMode.SERIALIZED);
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch leave = new CountDownLatch(1);
        final Endpoint self = busy.connect(busy.address());
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment buf = arena.allocate(8);
            busy.recvTag(buf, 0, 8, 1, -1L, null, r -> {
                inside.countDown(); // the other thread is inside busy.progress()
                try {
                    leave.await(10, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            self.sendTag(1, buf, 0, 8);
            final Thread user = Thread.ofPlatform().name("user").start(() -> {
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (inside.getCount() > 0 && System.nanoTime() < deadline) {
                    busy.progress();
                }
            });
            assertTrue(inside.await(10, TimeUnit.SECONDS), "callback ran");
            final WeftException e = assertThrows(WeftException.class, ctx::close);
            assertEquals(Status.BUSY, e.status());
            assertEquals(Status.CLOSED, assertThrows(WeftException.class, () -> idle.connect(busy.address())).status(),
                "the idle worker was closed all the same");
            leave.countDown();
            user.join(10_000);
            // the refused worker was not touched: it still works
            final Request r = busy.recvTag(buf, 0, 8, 2, -1L);
            self.sendTag(2, buf, 0, 8);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!r.isCompleted() && System.nanoTime() < deadline) {
                busy.progress();
            }
            assertEquals(Status.OK, r.status());
            r.release();
            ctx.close(); // now it closes the rest
            assertEquals(Status.CLOSED, assertThrows(WeftException.class, () -> busy.connect(idle.address())).status());
        } finally {
            ctx.close();
        }
        Resources.assertBackTo(before, "a context whose close was refused once", 3000);
    }
}
