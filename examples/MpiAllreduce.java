import mpi.MPI;
import mpi.MPIException;

/**
 * Run with: ./weft run -n 4 examples/MpiAllreduce.java — each rank holds a vector of doubles; allReduce sums
 * them, and every rank checks the result and times 100 rounds.
 */
public class MpiAllreduce {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        int n = 1 << 16;
        double[] in = new double[n];
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            in[i] = rank + i;
        }
        double t0 = MPI.wtime();
        for (int round = 0; round < 100; round++) {
            MPI.COMM_WORLD.allReduce(in, out, n, MPI.DOUBLE, MPI.SUM);
        }
        double t = (MPI.wtime() - t0) / 100;
        for (int i = 0; i < n; i++) {
            double want = (double) size * (size - 1) / 2 + (double) size * i;
            if (out[i] != want) {
                throw new IllegalStateException("rank " + rank + ": out[" + i + "] = " + out[i] + ", expected " + want);
            }
        }
        if (rank == 0) {
            System.out.printf("allReduce of %d doubles on %d ranks: correct, %.1f us per call%n", n, size, t * 1e6);
        }
        MPI.Finalize();
    }
}
