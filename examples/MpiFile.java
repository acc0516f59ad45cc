import mpi.File;
import mpi.MPI;
import mpi.MPIException;

import java.nio.charset.StandardCharsets;

/**
 * Run with: ./weft run -n 4 examples/MpiFile.java — MPI-IO on a local file all ranks share: each rank writes
 * a line with writeOrdered (the lines land in rank order at the shared file pointer), then rank 0 reads the
 * file back and prints it. The file is deleted when it is closed.
 */
public class MpiFile {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        String name = args.length > 0 ? args[0] : "mpifile-example.txt";
        File f = new File(MPI.COMM_WORLD, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        byte[] line = ("hello from rank " + rank + "\n").getBytes(StandardCharsets.US_ASCII);
        f.writeOrdered(line, line.length, MPI.BYTE);
        if (rank == 0) {
            byte[] all = new byte[(int) f.getSize()];
            int got = f.readAt(0, all, all.length, MPI.BYTE).getCount(MPI.BYTE);
            System.out.print(new String(all, 0, got, StandardCharsets.US_ASCII));
        }
        f.close();
        MPI.Finalize();
    }
}
