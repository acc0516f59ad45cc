package mpi;

/**
 * Rank program for errors, by mode (first argument):
 * <ul>
 *   <li>{@code return}: under {@link MPI#ERRORS_RETURN} every bad call throws the right error class and the
 *   communicator keeps working; prints {@code OK errors ...};</li>
 *   <li>{@code abort}: rank 1 calls {@code abort(7)} while the others wait in a receive that never comes;</li>
 *   <li>{@code fatal}: under the default handler rank 0 sends to a rank that does not exist;</li>
 *   <li>{@code hello}: a plain program (run without a launcher: a singleton job);</li>
 *   <li>{@code killed}: rank 1 dies abruptly while rank 0 waits in a receive from it;</li>
 *   <li>{@code peerfail}: the same under ERRORS_RETURN, with no launcher to end the job: rank 0's receive
 *   fails with an MPIException naming the dead rank;</li>
 *   <li>{@code peerfailany}: the same with the others' receives (blocking, and a request's wait) posted on
 *   ANY_SOURCE: each fails with an MPIException;</li>
 *   <li>{@code threads}: under THREAD_MULTIPLE, four threads per rank exchange messages at once.</li>
 * </ul>
 */
public final class ErrorRanks {
    private ErrorRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        final String mode = args[0];
        final Checks early = new Checks("errors", -1);
        early.fails(MPI.ERR_OTHER, "a call before Init", () -> MPI.COMM_WORLD.getRank());
        if (mode.equals("threads")) {
            threads();
            return;
        }
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        switch (mode) {
            case "return" -> errorsReturn(w, rank, size);
            case "abort" -> {
                if (rank == 1) {
                    w.abort(7);
                }
                w.recv(new int[1], 1, MPI.INT, MPI.ANY_SOURCE, 1);
                throw new AssertionError("rank " + rank + " received a message nobody sent");
            }
            case "fatal" -> {
                if (rank == 0) {
                    w.send(new int[1], 1, MPI.INT, size + 5, 0);
                    throw new AssertionError("a send to a rank outside the job returned under ERRORS_ARE_FATAL");
                }
                w.recv(new int[1], 1, MPI.INT, MPI.ANY_SOURCE, 1);
            }
            case "killed" -> {
                w.barrier();
                if (rank == 1) {
                    Runtime.getRuntime().halt(9);
                }
                w.recv(new int[1], 1, MPI.INT, 1, 1);
                throw new AssertionError("rank 0 received from a rank that died");
            }
            case "peerfail" -> {
                w.setErrhandler(MPI.ERRORS_RETURN);
                w.barrier();
                if (rank == 1) {
                    Runtime.getRuntime().halt(9);
                }
                final Checks c = new Checks("peerfail", rank);
                c.fails(MPI.ERR_OTHER, "a receive from a rank that died", () -> w.recv(new int[1], 1, MPI.INT, 1, 1));
                c.done();
                System.out.flush();
                // the job cannot finalize with a dead rank (the runtime's barrier would wait for it)
                Runtime.getRuntime().halt(0);
            }
            case "peerfailany" -> {
                w.setErrhandler(MPI.ERRORS_RETURN);
                w.barrier();
                if (rank == 1) {
                    Runtime.getRuntime().halt(9);
                }
                final Checks c = new Checks("peerfailany", rank);
                c.fails(MPI.ERR_OTHER, "a receive from any source after a rank died",
                    () -> w.recv(new int[1], 1, MPI.INT, MPI.ANY_SOURCE, 1));
                final java.nio.IntBuffer b = MPI.newIntBuffer(1);
                c.fails(MPI.ERR_OTHER, "waiting for an iRecv from any source after a rank died",
                    () -> w.iRecv(b, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG).waitFor());
                c.done();
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
            case "hello" -> {
                final int[] v = {41};
                w.allReduce(v, 1, MPI.INT, MPI.SUM);
                w.barrier();
                System.out.println("OK hello rank " + rank + " of " + size + " sum " + v[0]);
            }
            default -> throw new IllegalArgumentException(mode);
        }
        MPI.Finalize();
        final Checks after = new Checks("errors", rank);
        after.that(MPI.isFinalized(), "isFinalized after Finalize");
        after.fails(MPI.ERR_OTHER, "a call after Finalize", () -> w.barrier());
        after.fails(MPI.ERR_OTHER, "Init after Finalize", () -> MPI.Init(args));
        after.done();
    }

    /**
     * Four threads per rank, each exchanging 200 messages with its twin thread on the next rank, then running 200
     * allreduces on a communicator of its own.
     */
    private static void threads() throws MPIException {
        final int provided = MPI.InitThread(new String[0], MPI.THREAD_MULTIPLE);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("threads", rank);
        c.equal(MPI.THREAD_MULTIPLE, provided, "THREAD_MULTIPLE provided");
        c.equal(MPI.THREAD_MULTIPLE, MPI.queryThread(), "queryThread");
        final int threads = 4;
        final Throwable exchange = onThreads(threads, tag -> {
            final int[] in = new int[1];
            for (int i = 0; i < 200; i++) {
                w.sendRecv(new int[] {rank * 1000 + i}, 1, MPI.INT, (rank + 1) % size, tag, in, 1, MPI.INT,
                    (rank - 1 + size) % size, tag);
                if (in[0] != (rank - 1 + size) % size * 1000 + i) {
                    throw new AssertionError("thread " + tag + " message " + i + " got " + in[0]);
                }
            }
        });
        c.that(exchange == null, "every thread's messages arrived in order: " + exchange);
        // and collectives at once on a communicator per thread (each has its own reused schedule; the scratch
        // pool they share locks under THREAD_MULTIPLE)
        final Intracomm[] comms = new Intracomm[threads];
        for (int t = 0; t < threads; t++) {
            comms[t] = w.dup();
        }
        final Throwable reductions = onThreads(threads, id -> {
            final int[] in = new int[64];
            final int[] out = new int[64];
            for (int i = 0; i < 200; i++) {
                java.util.Arrays.fill(in, rank + i + id);
                comms[id].allReduce(in, out, in.length, MPI.INT, MPI.SUM);
                final int expected = size * (i + id) + size * (size - 1) / 2;
                if (out[0] != expected || out[63] != expected) {
                    throw new AssertionError("thread " + id + " allreduce " + i + " got " + out[0]);
                }
            }
        });
        c.that(reductions == null, "every thread's allreduces on its own communicator: " + reductions);
        for (final Intracomm k : comms) {
            k.free();
        }
        w.barrier();
        c.done();
        MPI.Finalize();
    }

    @FunctionalInterface
    private interface ThreadBody {
        void run(int id) throws Exception;
    }

    /** Runs {@code body(0 .. n-1)} on n threads at once; the first failure, or null. */
    private static Throwable onThreads(final int n, final ThreadBody body) throws MPIException {
        final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
            new java.util.concurrent.atomic.AtomicReference<>();
        final Thread[] ts = new Thread[n];
        for (int t = 0; t < n; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                try {
                    body.run(id);
                } catch (final Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            ts[t].start();
        }
        for (final Thread t : ts) {
            try {
                t.join();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MPIException(e);
            }
        }
        return failure.get();
    }

    private static void errorsReturn(final Intracomm w, final int rank, final int size) throws MPIException {
        final Checks c = new Checks("errors", rank);
        c.fails(MPI.ERR_OTHER, "Init twice", () -> MPI.Init(new String[0]));
        w.setErrhandler(MPI.ERRORS_RETURN);
        c.that(w.getErrhandler() == MPI.ERRORS_RETURN, "getErrhandler");
        final int[] one = new int[1];
        c.fails(MPI.ERR_RANK, "send to rank size", () -> w.send(one, 1, MPI.INT, size, 0));
        c.fails(MPI.ERR_RANK, "recv from rank -5", () -> w.recv(one, 1, MPI.INT, -5, 0));
        c.fails(MPI.ERR_TAG, "negative send tag", () -> w.send(one, 1, MPI.INT, 0, -3));
        c.fails(MPI.ERR_TAG, "tag above TAG_UB", () -> w.send(one, 1, MPI.INT, 0, (Integer) w.getAttr(MPI.TAG_UB) + 1));
        c.fails(MPI.ERR_COUNT, "negative count", () -> w.send(one, -1, MPI.INT, 0, 0));
        c.fails(MPI.ERR_BUFFER, "count beyond the array", () -> w.send(one, 2, MPI.INT, 0, 0));
        c.fails(MPI.ERR_BUFFER, "not a buffer", () -> w.send("text", 1, MPI.INT, 0, 0));
        c.fails(MPI.ERR_BUFFER, "null buffer", () -> w.bcast(null, 1, MPI.INT, 0));
        c.fails(MPI.ERR_TYPE, "DATATYPE_NULL", () -> w.send(one, 1, MPI.DATATYPE_NULL, 0, 0));
        c.fails(MPI.ERR_TYPE, "free a predefined type", () -> MPI.INT.free());
        c.fails(MPI.ERR_ROOT, "bcast root outside", () -> w.bcast(one, 1, MPI.INT, size));
        c.fails(MPI.ERR_OP, "MINLOC on ints", () -> w.allReduce(one, 1, MPI.INT, MPI.MINLOC));
        c.fails(MPI.ERR_OP, "null op", () -> w.allReduce(one, 1, MPI.INT, null));
        c.fails(MPI.ERR_ARG, "gatherv with too few counts", () -> w.allGatherv(new int[size], new int[1], new int[1],
            MPI.INT));
        c.fails(MPI.ERR_RANK, "incl of a rank outside", () -> w.getGroup().incl(new int[] {size}));
        c.fails(MPI.ERR_RANK, "incl of a rank twice", () -> w.getGroup().incl(new int[] {0, 0}));
        c.fails(MPI.ERR_KEYVAL, "an unknown attribute key", () -> w.getAttr(12345));
        c.fails(MPI.ERR_COMM, "free COMM_WORLD", () -> w.free());
        c.fails(MPI.ERR_UNSUPPORTED_OPERATION, "openPort", () -> Intracomm.openPort());
        c.fails(MPI.ERR_UNSUPPORTED_OPERATION, "spawn", () -> w.spawn("x", new String[0], 1, MPI.INFO_NULL, 0, null));
        c.that(Intercomm.getParent().isNull(), "no parent");
        final Intracomm d = w.dup();
        d.free();
        c.fails(MPI.ERR_COMM, "use a freed communicator", () -> d.barrier());
        final int key = Comm.createKeyval();
        w.setAttr(key, "value");
        c.that("value".equals(w.getAttr(key)), "user attribute");
        w.deleteAttr(key);
        c.that(w.getAttr(key) == null, "deleted attribute");
        Comm.freeKeyval(key);
        // after all of that the communicator still works
        final int[] v = {rank};
        w.allReduce(v, 1, MPI.INT, MPI.SUM);
        c.equal((long) size * (size - 1) / 2, v[0], "allReduce after errors");
        c.done();
    }
}
