import mpi.Datatype;
import mpi.File;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * MPI-IO collective buffering, measured: every rank writes (then reads) N ints through a view that interleaves
 * the ranks one int at a time, with writeAtAll/readAtAll, under the three settings of the hints romio_cb_write
 * and romio_cb_read, alternating, REPS rounds; rank 0 prints the median of each. automatic (the default): the
 * write two-phase, the read independent and sieved; enable: both two-phase; disable: both independent (each
 * int of a write is its own pwrite, a read is sieved).
 *
 *   ./weft run -n 2 bench/mpi/FileCollectiveBench.java [DIR] [N] [REPS]
 */
public final class FileCollectiveBench {
    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final String dir = args.length > 0 ? args[0] : System.getProperty("java.io.tmpdir");
        final int n = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 18;
        final int reps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        final Datatype strided = Datatype.createResized(MPI.INT, 0, size * 4);
        strided.commit();
        final int[] data = new int[n];
        for (int i = 0; i < n; i++) {
            data[i] = rank + i * size;
        }
        final String[] modes = {"automatic", "enable", "disable"};
        final double[][] write = new double[modes.length][reps];
        final double[][] read = new double[modes.length][reps];
        for (int r = 0; r < reps; r++) {
            for (int m = 0; m < modes.length; m++) {
                final Info hints = new Info();
                hints.set("romio_cb_write", modes[m]);
                hints.set("romio_cb_read", modes[m]);
                final File f = new File(w, dir + "/weft-cb-bench.dat",
                    MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE, hints);
                f.setView(rank * 4L, MPI.INT, strided, "native");
                w.barrier();
                double t0 = MPI.wtime();
                f.writeAtAll(0, data, n, MPI.INT);
                write[m][r] = MPI.wtime() - t0;
                final int[] back = new int[n];
                w.barrier();
                t0 = MPI.wtime();
                f.readAtAll(0, back, n, MPI.INT);
                read[m][r] = MPI.wtime() - t0;
                if (back[n - 1] != data[n - 1]) {
                    throw new IllegalStateException("read back " + back[n - 1] + ", wrote " + data[n - 1]);
                }
                f.close();
            }
        }
        if (rank == 0) {
            System.out.printf("# %d ranks x %d ints interleaved one int at a time (%d MiB file), %d rounds, medians%n",
                size, n, (long) size * n * 4 >> 20, reps);
            for (int m = 0; m < modes.length; m++) {
                System.out.printf("romio_cb_*=%-10s writeAtAll %9.2f ms   readAtAll %9.2f ms%n", modes[m],
                    median(write[m]) * 1e3, median(read[m]) * 1e3);
            }
        }
        MPI.Finalize();
    }

    private static double median(final double[] v) {
        final double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s[s.length / 2];
    }
}
