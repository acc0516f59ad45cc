/**
 * MPI for Java with the API of Open MPI's Java bindings (package {@code mpi}, lowerCamelCase), in pure Java on
 * Weft: {@link mpi.MPI} (init, constants, buffers), {@link mpi.Comm} and its subclasses (point to point and
 * collectives), {@link mpi.Datatype}, {@link mpi.Op}, {@link mpi.Group}, {@link mpi.Win} (one-sided) and
 * {@link mpi.File} (MPI-IO over local files). A program written for Open MPI's bindings compiles against this
 * package unchanged.
 *
 * <pre>{@code
 * MPI.Init(args);
 * int rank = MPI.COMM_WORLD.getRank();
 * int[] sum = {rank};
 * MPI.COMM_WORLD.allReduce(sum, 1, MPI.INT, MPI.SUM);
 * MPI.Finalize();
 * }</pre>
 */
package mpi;
