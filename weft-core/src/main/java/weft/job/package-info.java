/**
 * The ucp resources of a process in a job, shared by the programming models on top: one runtime, one
 * context, one worker, every rank's worker address, and endpoints made on first use
 * ({@link weft.job.JobWorker}). MPI ({@code mpi}) and OpenSHMEM ({@code weft.shmem}) both acquire it, so
 * one program may use both, initialized in either order, and finalizing one leaves the other working.
 */
package weft.job;
