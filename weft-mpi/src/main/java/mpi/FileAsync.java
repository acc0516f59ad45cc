package mpi;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The non-blocking accesses of one {@link File} ({@code iReadAt}, {@code iWrite}, {@code iReadShared} ...): the
 * calling thread checks the arguments and moves the file pointers, then the transfer itself (packing, positional
 * reads and writes, unpacking) runs on the file's I/O thread while the caller goes on, and the request completes
 * when it is done. The thread sleeps in the file system's calls: it takes a core only while it copies. It is
 * started by the first non-blocking access and ends when the file is closed, which first waits for every access
 * in flight. Accesses run one after another in the order they were started.
 */
final class FileAsync {
    /** The transfer run on the I/O thread: the bytes it moved. */
    @FunctionalInterface
    interface Transfer {
        long run() throws MPIException;
    }

    /** How long the idle I/O thread may take to end. */
    private static final long END_WAIT_S = 10;

    private ExecutorService thread;
    /** Accesses started and not finished (the I/O thread counts them down). */
    private final java.util.concurrent.atomic.AtomicInteger pending = new java.util.concurrent.atomic.AtomicInteger();

    /** Starts {@code t} on the I/O thread; the request completes with the bytes it moved, or its error. */
    Request start(final Comm comm, final Transfer t) {
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(r -> {
                final Thread th = new Thread(r, "weft-mpi-file-io");
                th.setDaemon(true); // a program that never closes its file still exits
                return th;
            });
        }
        final Op op = new Op();
        pending.incrementAndGet();
        thread.execute(() -> {
            try {
                op.bytes = t.run();
            } catch (final MPIException e) {
                op.failure = e;
            } catch (final RuntimeException e) {
                op.failure = new MPIException(MPI.ERR_IO, "non-blocking file access failed: " + e, e);
            } finally {
                pending.decrementAndGet();
                op.completed = true; // volatile: the bytes and the failure are visible once this is
            }
        });
        final Request r = new Request(comm);
        r.started(Request.FILE, op, null, 0);
        return r;
    }

    /** Accesses in flight (for tests). */
    int pending() {
        return pending.get();
    }

    /** Waits for every access in flight (progressing the worker meanwhile), then ends the I/O thread. */
    void close() throws MPIException {
        if (thread == null) {
            return;
        }
        thread.shutdown();
        if (pending.get() > 0) {
            final weft.ucp.Worker w = MPI.session().worker;
            for (int idle = 0; pending.get() > 0; ) {
                idle = Progress.step(w, idle);
            }
        }
        try {
            if (!thread.awaitTermination(END_WAIT_S, TimeUnit.SECONDS)) { // idle by now: it ends at once
                throw new MPIException(MPI.ERR_IO, "the file's I/O thread did not end");
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MPIException(MPI.ERR_IO, "interrupted while the file's accesses finished", e);
        }
        thread = null;
    }

    /** One access in flight, as a request's operation. */
    static final class Op extends InFlight {
        volatile boolean completed;
        long bytes;
        MPIException failure;

        @Override
        boolean isCompleted() {
            return completed;
        }

        @Override
        weft.ucs.Status status() {
            return !completed ? weft.ucs.Status.IN_PROGRESS
                : failure == null ? weft.ucs.Status.OK : weft.ucs.Status.IO_ERROR;
        }

        /** The request's status: the bytes moved; the access's error is thrown. */
        Status result() throws MPIException {
            if (failure != null) {
                throw failure;
            }
            return new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, MPI.SUCCESS, bytes, false);
        }

        @Override
        long senderTag() {
            return 0;
        }

        @Override
        long length() {
            return bytes;
        }

        @Override
        void release() {
            // the access goes on: the file's close waits for it
        }

        @Override
        void cancel(final weft.ucp.Worker w) {
            // a file access cannot be cancelled once started (MPI_Cancel may fail to cancel)
        }

        @Override
        weft.ucs.Status awaitStatus() {
            final weft.ucp.Worker w = MPI.session().worker;
            for (int idle = 0; !completed; ) {
                idle = Progress.step(w, idle);
            }
            return status();
        }
    }
}
