import mpi.MPI;
import mpi.MPIException;
import weft.shmem.Shmem;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Run with: ./weft run -n 4 examples/MpiAndShmem.java [shmem-first] — MPI and OpenSHMEM in one program, on
 * one worker: each rank puts its rank into its right neighbour's symmetric word and MPI sums what arrived.
 * Then one of them is finalized and the other goes on: OpenSHMEM first by default; with {@code shmem-first}
 * OpenSHMEM is initialized first and MPI finalized first.
 */
public class MpiAndShmem {
    public static void main(String[] args) throws MPIException {
        boolean shmemFirst = args.length > 0 && args[0].equals("shmem-first");
        Shmem shmem = shmemFirst ? Shmem.init() : null;
        MPI.Init(args);
        if (!shmemFirst) {
            shmem = Shmem.init();
        }
        int me = MPI.COMM_WORLD.getRank(), n = MPI.COMM_WORLD.getSize();
        if (shmem.myPe() != me || shmem.nPes() != n) {
            throw new IllegalStateException("PE " + shmem.myPe() + "/" + shmem.nPes() + " is not rank " + me + "/" + n);
        }
        MemorySegment word = shmem.malloc(8);
        shmem.longP(word, me, (me + 1) % n);             // one-sided, into the right neighbour
        shmem.barrierAll();
        long got = word.get(JAVA_LONG, 0);
        long[] sum = {got};
        MPI.COMM_WORLD.allReduce(sum, 1, MPI.LONG, MPI.SUM); // two-sided, on the same worker
        if (shmemFirst) {
            MPI.Finalize();                               // MPI ends; OpenSHMEM goes on
            shmem.longP(word, me + 100, (me + 1) % n);
            shmem.barrierAll();
            long after = word.get(JAVA_LONG, 0);
            MemorySegment total = shmem.malloc(8);
            shmem.longAtomicAdd(total, after, 0);
            shmem.barrierAll();
            if (me == 0) {
                System.out.println("MPI and OpenSHMEM on " + n + " ranks: sum of the words put " + sum[0]
                    + ", after MPI's finalize " + (total.get(JAVA_LONG, 0) - 100L * n) + " (expected "
                    + n * (n - 1) / 2 + " both)");
            }
            shmem.free(total);
            shmem.free(word);
            shmem.close();
        } else {
            shmem.free(word);
            shmem.close();                                // OpenSHMEM ends; MPI goes on
            int[] ranks = {me};
            MPI.COMM_WORLD.allReduce(ranks, 1, MPI.INT, MPI.SUM);
            if (me == 0) {
                System.out.println("MPI and OpenSHMEM on " + n + " ranks: sum of the words put " + sum[0]
                    + ", sum of ranks after shmem's finalize " + ranks[0] + " (expected " + n * (n - 1) / 2 + " both)");
            }
            MPI.Finalize();
        }
    }
}
