package mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A file's non-blocking accesses ({@link FileAsync}) in this JVM, with transfers that the test controls: the
 * starting call returns while its transfer is still running (what lets a program overlap file I/O with other
 * work), the request carries the transfer's bytes or its error, accesses run in the order they were started,
 * and close ends the I/O thread. The file paths themselves are covered by {@code FileRanks} in real jobs.
 */
@Timeout(60)
class FileAsyncTest {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    private static FileAsync.Op op(final Request r) {
        return (FileAsync.Op) r.op;
    }

    private static void awaitDone(final FileAsync.Op op) throws InterruptedException {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!op.isCompleted()) {
            assertTrue(System.nanoTime() < deadline, "the transfer did not finish");
            Thread.sleep(1);
        }
    }

    @Test
    void theCallReturnsWhileItsTransferRuns() throws Exception {
        final FileAsync async = new FileAsync();
        final CountDownLatch go = new CountDownLatch(1);
        final Request r = async.start(null, () -> {
            try {
                go.await();
            } catch (final InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return 42;
        });
        assertFalse(op(r).isCompleted(), "the transfer is still held, yet the call returned");
        assertEquals(1, async.pending());
        go.countDown();
        awaitDone(op(r));
        assertEquals(42, op(r).result().bytes(), "the request's status counts the transfer's bytes");
        assertEquals(0, async.pending());
        async.close();
    }

    @Test
    void aTransfersErrorIsTheRequestsError() throws Exception {
        final FileAsync async = new FileAsync();
        final Request failed = async.start(null, () -> {
            throw new MPIException(MPI.ERR_NO_SPACE, "disk full");
        });
        final Request crashed = async.start(null, () -> {
            throw new IllegalStateException("bug");
        });
        awaitDone(op(failed));
        awaitDone(op(crashed));
        assertEquals(MPI.ERR_NO_SPACE, assertThrows(MPIException.class, () -> op(failed).result()).getErrorClass());
        final MPIException e = assertThrows(MPIException.class, () -> op(crashed).result());
        assertEquals(MPI.ERR_IO, e.getErrorClass());
        assertTrue(e.getMessage().contains("bug"), e.getMessage());
        async.close();
    }

    @Test
    void accessesRunInTheOrderTheyWereStartedAndCloseEndsTheThread() throws Exception {
        final FileAsync async = new FileAsync();
        final List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        final AtomicReference<Thread> ioThread = new AtomicReference<>();
        Request last = null;
        for (int i = 0; i < 50; i++) {
            final int k = i;
            last = async.start(null, () -> {
                ioThread.set(Thread.currentThread());
                ran.add(k);
                return k;
            });
        }
        awaitDone(op(last));
        for (int i = 0; i < 50; i++) {
            assertEquals(i, ran.get(i), "access " + i);
        }
        async.close();
        // the pool is terminated when close returns; its thread leaves a moment later (it sets that state itself)
        ioThread.get().join(java.time.Duration.ofNanos(WAIT_NS));
        assertFalse(ioThread.get().isAlive(), "close ends the file's I/O thread");
    }
}
