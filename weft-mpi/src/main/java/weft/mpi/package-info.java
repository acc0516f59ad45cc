/** Weft-side settings of the MPI layer ({@link weft.mpi.MpiConfig}: collective thresholds, shown by {@code weft info}). */
package weft.mpi;
