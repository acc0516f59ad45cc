import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

import java.nio.ByteBuffer;

/**
 * OSU-style measurements of Weft's MPI, written for this repository (OSU's method: warm-up iterations, then
 * timed ones; latency is half a ping-pong, bandwidth a window of 64 non-blocking sends acknowledged by one
 * message, collective latency the mean time per call). Run with
 * {@code ./weft run -n 2 bench/mpi/OsuMpi.java [latency|bw|bibw|barrier|bcast|reduce|allreduce|allgather|alltoall|all] [MAX_BYTES]}.
 * Rank 0 prints one line per size: {@code test bytes value unit}.
 */
public class OsuMpi {
    private static final int WINDOW = 64;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        final String test = args.length > 0 ? args[0] : "all";
        final int max = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 20;
        final Intracomm w = MPI.COMM_WORLD;
        for (final String t : new String[] {"latency", "bw", "bibw", "barrier", "bcast", "reduce", "allreduce",
            "allgather", "alltoall"}) {
            if (test.equals("all") || test.equals(t)) {
                run(w, t, max);
            }
        }
        MPI.Finalize();
    }

    private static int iterations(final int bytes) {
        return bytes <= 8192 ? 10000 : bytes <= 65536 ? 2000 : 200;
    }

    private static void run(final Intracomm w, final String test, final int max) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        if (test.equals("barrier")) {
            final int n = 10000;
            time(w, n / 10, () -> w.barrier());
            final double us = time(w, n, () -> w.barrier()) / n * 1e6;
            report(w, test, 0, us, "us");
            return;
        }
        final boolean reducing = test.equals("reduce") || test.equals("allreduce");
        for (int bytes = test.equals("latency") ? 0 : reducing ? 4 : 1; bytes <= max;
             bytes = bytes == 0 ? 1 : bytes * 2) {
            final int b = bytes;
            final int n = iterations(bytes);
            final ByteBuffer s = MPI.newByteBuffer(Math.max(b, 4) * size);
            final ByteBuffer r = MPI.newByteBuffer(Math.max(b, 4) * size);
            final Body body = switch (test) {
                case "latency" -> () -> {
                    if (rank == 0) {
                        w.send(s, b, MPI.BYTE, 1, 1);
                        w.recv(r, b, MPI.BYTE, 1, 1);
                    } else if (rank == 1) {
                        w.recv(r, b, MPI.BYTE, 0, 1);
                        w.send(s, b, MPI.BYTE, 0, 1);
                    }
                };
                case "bw", "bibw" -> () -> window(w, rank, s, r, b, test.equals("bibw"));
                case "bcast" -> () -> w.bcast(s, b, MPI.BYTE, 0);
                case "reduce" -> () -> w.reduce(s, r, b / 4, MPI.INT, MPI.SUM, 0);
                case "allreduce" -> () -> w.allReduce(s, r, b / 4, MPI.INT, MPI.SUM);
                case "allgather" -> () -> w.allGather(s, b, MPI.BYTE, r, b, MPI.BYTE);
                case "alltoall" -> () -> w.allToAll(s, b, MPI.BYTE, r, b, MPI.BYTE);
                default -> throw new IllegalArgumentException("unknown test " + test);
            };
            time(w, Math.max(n / 10, 10), body);
            final double seconds = time(w, n, body);
            switch (test) {
                case "latency" -> report(w, test, b, seconds / n / 2 * 1e6, "us");
                case "bw" -> report(w, test, b, (double) b * WINDOW * n / seconds / 1e6, "MB/s");
                case "bibw" -> report(w, test, b, 2.0 * b * WINDOW * n / seconds / 1e6, "MB/s");
                default -> report(w, test, b, seconds / n * 1e6, "us");
            }
        }
    }

    /** A window of non-blocking sends from rank 0 (and rank 1 for bibw), acknowledged by one message. */
    private static void window(final Intracomm w, final int rank, final ByteBuffer s, final ByteBuffer r,
                               final int b, final boolean both) throws MPIException {
        if (rank > 1) {
            return;
        }
        final int peer = 1 - rank;
        final Request[] rs = new Request[2 * WINDOW];
        int k = 0;
        if (rank == 1 || both) {
            for (int i = 0; i < WINDOW; i++) {
                rs[k++] = w.iRecv(r, b, MPI.BYTE, peer, 2);
            }
        }
        if (rank == 0 || both) {
            for (int i = 0; i < WINDOW; i++) {
                rs[k++] = w.iSend(s, b, MPI.BYTE, peer, 2);
            }
        }
        Request.waitAll(java.util.Arrays.copyOf(rs, k));
        if (rank == 1) {
            w.send(s, 0, MPI.BYTE, 0, 3);
        } else {
            w.recv(r, 0, MPI.BYTE, 1, 3);
        }
    }

    @FunctionalInterface
    private interface Body {
        void run() throws MPIException;
    }

    private static double time(final Intracomm w, final int n, final Body body) throws MPIException {
        w.barrier();
        final double t0 = MPI.wtime();
        for (int i = 0; i < n; i++) {
            body.run();
        }
        return MPI.wtime() - t0;
    }

    private static void report(final Intracomm w, final String test, final int bytes, final double value,
                               final String unit) throws MPIException {
        if (w.getRank() == 0) {
            System.out.printf("%-10s %9d %12.2f %s%n", test, bytes, value, unit);
        }
    }
}
