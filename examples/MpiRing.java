import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * Run with: ./weft run -n 4 examples/MpiRing.java — a token goes around the ring ten times; each rank adds
 * one as it passes. Rank 0 prints the final value (10 * size).
 */
public class MpiRing {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        int[] token = {0};
        for (int lap = 0; lap < 10; lap++) {
            if (rank == 0) {
                token[0]++;
                MPI.COMM_WORLD.send(token, 1, MPI.INT, next, lap);
                Status s = MPI.COMM_WORLD.recv(token, 1, MPI.INT, prev, lap);
                if (s.getSource() != prev || s.getTag() != lap) {
                    throw new IllegalStateException("unexpected status " + s);
                }
            } else {
                MPI.COMM_WORLD.recv(token, 1, MPI.INT, prev, lap);
                token[0]++;
                MPI.COMM_WORLD.send(token, 1, MPI.INT, next, lap);
            }
        }
        if (rank == 0) {
            System.out.println("token after 10 laps of " + size + " ranks: " + token[0]);
        }
        MPI.Finalize();
    }
}
