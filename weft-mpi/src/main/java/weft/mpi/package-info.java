/**
 * Weft-side settings of the MPI layer ({@link weft.mpi.MpiConfig}: collective thresholds, waits, and the message
 * path, tag matching or active messages; shown by {@code weft info}).
 */
package weft.mpi;
