package mpi;

import java.lang.management.ManagementFactory;
import java.nio.IntBuffer;

/**
 * Rank program (2 ranks): the bytes a blocking send and receive of a short message allocate once warm, from
 * a Java array and from a direct buffer, those of blocking collectives of a few bytes, and those of non-blocking
 * sends and receives completed by {@code waitAll}. A send allocates nothing per message; a receive allocates the
 * {@link Status} it returns; a collective allocates nothing; a non-blocking send or receive only its
 * {@link Request}.
 * Windows repeat until one meets the bound (a busy machine's JIT may still be compiling in the first ones), at
 * most 20. Prints {@code OK alloc ...}.
 */
public final class AllocationRanks {
    private AllocationRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final Checks c = new Checks("alloc", rank);
        c.configuredPath();
        final int[] arr = new int[2];
        final IntBuffer dir = MPI.newIntBuffer(2);
        // no object per message: under one byte per step on the sender (the worker's keepalive rounds allocate a
        // few bytes every few hundred milliseconds, whatever the traffic), and the two Status objects on the receiver
        final double best = bestWindow(w, c, 20000, rank == 0 ? 1 : 2 * 48 + 1,
            rank == 0 ? "two sends" : "two receives", () -> {
                if (rank == 0) {
                    w.send(arr, 2, MPI.INT, 1, 0);
                    w.send(dir, 2, MPI.INT, 1, 0);
                } else {
                    w.recv(arr, 2, MPI.INT, 0, 0);
                    w.recv(dir, 2, MPI.INT, 0, 0);
                }
            });
        System.out.println("alloc rank " + rank + ": " + best + " bytes per step");
        // a warm blocking barrier, broadcast, reduce and allreduce of a few bytes allocate nothing either: their
        // schedules are reused and their local steps are data, not lambdas
        final int[] out = new int[2];
        final IntBuffer dirOut = MPI.newIntBuffer(2);
        final double coll = bestWindow(w, c, 5000, 2, "five collectives", () -> {
            w.barrier();
            w.bcast(arr, 2, MPI.INT, 0);
            w.allReduce(arr, out, 2, MPI.INT, MPI.SUM);
            w.allReduce(dir, dirOut, 2, MPI.INT, MPI.MAX);
            w.reduce(arr, out, 2, MPI.INT, MPI.SUM, 1);
        });
        System.out.println("alloc rank " + rank + ": " + coll + " bytes per five collectives");
        // non-blocking sends and receives completed by waitAll: the Request each iSend or iRecv returns (64 B with
        // compressed oops), and no Status per message nor a Status array per waitAll (they made a send 104 B and
        // more, a receive 104 B)
        final Request[] window = new Request[16];
        final double perSend = bestWindow(w, c, 2000, 72.0 * window.length,
            window.length + " non-blocking messages", () -> {
                for (int i = 0; i < window.length; i++) {
                    window[i] = rank == 0 ? w.iSend(dir, 2, MPI.INT, 1, 5) : w.iRecv(dirOut, 2, MPI.INT, 0, 5);
                }
                Request.waitAll(window);
            }) / window.length;
        System.out.println("alloc rank " + rank + ": " + perSend + " bytes per non-blocking message");
        c.done();
        MPI.Finalize();
    }

    @FunctionalInterface
    private interface Step {
        void run() throws MPIException;
    }

    /**
     * The fewest bytes this thread allocated per step over windows of {@code n} steps, checked against
     * {@code bound}; the windows stop once every rank met it.
     */
    private static double bestWindow(final Intracomm w, final Checks c, final int n, final double bound,
                                     final String what, final Step step) throws MPIException {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long tid = Thread.currentThread().threadId();
        double best = Double.MAX_VALUE;
        final StringBuilder windows = new StringBuilder();
        for (int window = 0; window < 20; window++) {
            final long a0 = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < n; i++) {
                step.run();
            }
            final double perStep = (mx.getThreadAllocatedBytes(tid) - a0) / (double) n;
            best = Math.min(best, perStep);
            windows.append(' ').append(perStep);
            final int[] done = {perStep <= bound ? 1 : 0};
            w.allReduce(done, 1, MPI.INT, MPI.MIN);
            if (done[0] == 1) {
                break;
            }
        }
        c.that(best <= bound, "bytes per " + what + " at most " + bound + "; windows:" + windows);
        return best;
    }
}
