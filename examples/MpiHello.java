import mpi.MPI;
import mpi.MPIException;

/** Run with: ./weft run -n 4 examples/MpiHello.java — every rank says hello; rank 0 prints the sum of the ranks. */
public class MpiHello {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        System.out.println("Hello from rank " + rank + " of " + size + " on " + MPI.getProcessorName());
        int[] sum = {rank};
        MPI.COMM_WORLD.allReduce(sum, 1, MPI.INT, MPI.SUM);
        if (rank == 0) {
            System.out.println("sum of ranks = " + sum[0] + " (expected " + size * (size - 1) / 2 + ")");
        }
        MPI.Finalize();
    }
}
