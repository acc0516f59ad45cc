import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import weft.tools.perftest.Affinity;

import java.nio.ByteBuffer;

/**
 * OSU-style measurements of Weft's MPI, written for this repository; the Java side of {@code ./weft bench mpi}
 * ({@code osu_mpi.c} is the C side: same arguments, iteration counts and output). OSU's method: warm-up
 * iterations, then timed ones; latency is half a ping-pong, bw/bibw a window of 64 non-blocking sends (both ways
 * for bibw) acknowledged by one message, mbw_mr the same window from each rank of the first half to its partner
 * in the second (aggregate bandwidth and message rate), collective latency the time per call with a barrier
 * between calls (not timed), mean over the ranks.
 * Run with {@code ./weft run -n 2 bench/mpi/OsuMpi.java
 * [latency|bw|bibw|mbw_mr|barrier|bcast|reduce|allreduce|allgather|alltoall|all] [MAX_BYTES]}; with
 * {@code OSU_BIND=1} each rank's measuring thread is pinned to CPU {@code rank} (as mpirun's --bind-to core);
 * {@code OSU_SIZES=8,1048576} measures only those of the sizes the test walks; {@code OSU_WARMUP=P} runs P
 * untimed passes of the iterations before the timed one (default 1, as OSU's warm-up; more measure the
 * steady state of the JIT-compiled code).
 * Rank 0 prints one line per size: {@code test bytes value unit}.
 */
public class OsuMpi {
    private static final int WINDOW = 64;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        final String test = args.length > 0 ? args[0] : "all";
        final int max = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 20;
        final Intracomm w = MPI.COMM_WORLD;
        if ("1".equals(System.getenv("OSU_BIND"))) {
            // weft run binds each PE to a core of its own when they fit: the PE then sees one CPU, and pinning
            // to "rank modulo the CPUs it sees" would put every rank on the first CPU of its mask, or worse,
            // move both ranks onto one core (a 4 ms time slice per message)
            final int[] cpus = Affinity.currentCpus();
            if (cpus.length > 1) {
                Affinity.pinCurrentThread(cpus[w.getRank() % cpus.length]);
            }
        }
        for (final String t : new String[] {"latency", "bw", "bibw", "mbw_mr", "barrier", "bcast", "reduce",
            "allreduce", "allgather", "alltoall"}) {
            if (test.equals("all") || test.equals(t)) {
                run(w, t, max);
            }
        }
        MPI.Finalize();
    }

    /** Whether {@code OSU_SIZES} (a comma-separated list; unset: every size) names {@code bytes}. */
    private static boolean wanted(final int bytes) {
        final String list = System.getenv("OSU_SIZES");
        return list == null || list.isBlank()
            || java.util.Arrays.stream(list.split(",")).anyMatch(v -> v.trim().equals(Integer.toString(bytes)));
    }

    /** Untimed passes before the timed one: {@code OSU_WARMUP}, default 1 (the same in osu_mpi.c). */
    private static int warmupPasses() {
        final String v = System.getenv("OSU_WARMUP");
        return v == null || v.isBlank() ? 1 : Integer.parseInt(v.trim());
    }

    /** Iteration counts: the same function as osu_mpi.c's. */
    private static int iterations(final String test, final int bytes) {
        if (test.equals("bw") || test.equals("bibw") || test.equals("mbw_mr")) {
            return bytes <= 8192 ? 200 : bytes <= 65536 ? 50 : 10;
        }
        return bytes <= 8192 ? 2000 : bytes <= 65536 ? 500 : 100;
    }

    private static void run(final Intracomm w, final String test, final int max) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final int pairs = size / 2;
        final boolean reducing = test.equals("reduce") || test.equals("allreduce");
        final boolean barrier = test.equals("barrier");
        for (int bytes = test.equals("latency") || barrier ? 0 : reducing ? 4 : 1; bytes <= (barrier ? 0 : max);
             bytes = bytes == 0 ? 1 : bytes * 2) {
            if (!wanted(bytes)) {
                continue;
            }
            final int b = bytes;
            final int n = iterations(test, bytes);
            final ByteBuffer s = MPI.newByteBuffer(Math.max(b, 4) * size);
            final ByteBuffer r = MPI.newByteBuffer(Math.max(b, 4) * size);
            final Request[] reqs = new Request[2 * WINDOW];
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
                case "bw", "bibw" -> () -> {
                    if (rank <= 1) {
                        final boolean both = test.equals("bibw");
                        window(w, reqs, s, r, b, 1 - rank, rank == 0 || both, rank == 1 || both, rank == 1);
                    }
                };
                case "mbw_mr" -> () -> {
                    if (rank < pairs) {
                        window(w, reqs, s, r, b, rank + pairs, true, false, false);
                    } else if (rank < 2 * pairs) {
                        window(w, reqs, s, r, b, rank - pairs, false, true, true);
                    }
                };
                case "barrier" -> w::barrier;
                case "bcast" -> () -> w.bcast(s, b, MPI.BYTE, 0);
                case "reduce" -> () -> w.reduce(s, r, b / 4, MPI.INT, MPI.SUM, 0);
                case "allreduce" -> () -> w.allReduce(s, r, b / 4, MPI.INT, MPI.SUM);
                case "allgather" -> () -> w.allGather(s, b, MPI.BYTE, r, b, MPI.BYTE);
                case "alltoall" -> () -> w.allToAll(s, b, MPI.BYTE, r, b, MPI.BYTE);
                default -> throw new IllegalArgumentException("unknown test " + test);
            };
            final boolean collective = !java.util.List.of("latency", "bw", "bibw", "mbw_mr").contains(test);
            for (int pass = 0; pass < warmupPasses(); pass++) {
                time(w, collective, n, body);
            }
            final double sec = time(w, collective, n, body);
            if (rank == 0) {
                switch (test) {
                    case "latency" -> line(test, b, sec / n / 2 * 1e6, "%12.2f us");
                    case "bw" -> line(test, b, (double) b * WINDOW * n / sec / 1e6, "%12.2f MB/s");
                    case "bibw" -> line(test, b, 2.0 * b * WINDOW * n / sec / 1e6, "%12.2f MB/s");
                    case "mbw_mr" -> {
                        line("mbw", b, (double) pairs * b * WINDOW * n / sec / 1e6, "%12.2f MB/s");
                        line("mr", b, (double) pairs * WINDOW * n / sec / 1e6, "%12.4f Mmsg/s");
                    }
                    default -> line(test, b, sec / n * 1e6, "%12.2f us");
                }
            }
        }
    }

    /** A window of non-blocking receives and/or sends with {@code peer}, then a zero-byte acknowledgement. */
    private static void window(final Intracomm w, final Request[] rs, final ByteBuffer s, final ByteBuffer r,
                               final int b, final int peer, final boolean sends, final boolean recvs,
                               final boolean acks)
        throws MPIException {
        int k = 0;
        if (recvs) {
            for (int i = 0; i < WINDOW; i++) {
                rs[k++] = w.iRecv(r, b, MPI.BYTE, peer, 2);
            }
        }
        if (sends) {
            for (int i = 0; i < WINDOW; i++) {
                rs[k++] = w.iSend(s, b, MPI.BYTE, peer, 2);
            }
        }
        Request.waitAll(k == rs.length ? rs : java.util.Arrays.copyOf(rs, k));
        if (acks) {
            w.send(s, 0, MPI.BYTE, peer, 3);
        } else {
            w.recv(r, 0, MPI.BYTE, peer, 3);
        }
    }

    @FunctionalInterface
    private interface Body {
        void run() throws MPIException;
    }

    /**
     * Seconds for n calls. A collective is timed call by call with a barrier after each (outside the time), and
     * the figure is the mean over the ranks, as OSU's collective tests do.
     */
    private static double time(final Intracomm w, final boolean collective, final int n, final Body body)
        throws MPIException {
        w.barrier();
        if (!collective) {
            final double t0 = MPI.wtime();
            for (int i = 0; i < n; i++) {
                body.run();
            }
            return MPI.wtime() - t0;
        }
        final double[] sum = {0};
        for (int i = 0; i < n; i++) {
            final double t0 = MPI.wtime();
            body.run();
            sum[0] += MPI.wtime() - t0;
            w.barrier();
        }
        w.allReduce(sum, 1, MPI.DOUBLE, MPI.SUM);
        return sum[0] / w.getSize();
    }

    private static void line(final String test, final int bytes, final double value, final String format) {
        System.out.printf("%-10s %9d " + format + "%n", test, bytes, value);
        System.out.flush();
    }
}
