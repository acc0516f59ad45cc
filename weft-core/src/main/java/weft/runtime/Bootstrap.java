package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

/**
 * The service provider behind {@link Runtime}: one process's view of a job started by some
 * launcher, in the PMI model. A process {@link #put puts} key-value pairs under its own rank,
 * {@link #commit commits} them, and after a {@link #fence} (collective over all ranks) any rank
 * can {@link #get} them.
 *
 * <p>Implementations: the Weft launcher's key-value service over TCP ({@code weft run}), PMIx
 * through FFM on libpmix (Open MPI's {@code mpirun}, Slurm's {@code srun --mpi=pmix}), the PMI-2 wire
 * protocol in Java (Slurm's {@code srun --mpi=pmi2}), and a singleton for a process started without a
 * launcher. Every blocking call has a deadline
 * ({@code WEFT_BOOTSTRAP_TIMEOUT}) and fails with a {@link weft.ucs.WeftException} naming what
 * was waited for, instead of hanging on a dead or silent peer.
 *
 * <p>Not thread-safe: one thread of the process drives the bootstrap (it is setup, not the data
 * path).
 */
public interface Bootstrap extends AutoCloseable {
    /** Short name of the backend, e.g. {@code launcher}, {@code pmix}, {@code pmi2}, {@code singleton}. */
    String name();

    /** This process's rank, the job's size and its node layout. */
    JobLayout layout();

    /** Stores {@code value} under {@code key} for this rank; visible to others after commit + fence. */
    void put(String key, byte[] value);

    /** Publishes the values put since the last commit. */
    void commit();

    /** Collective: returns when every rank has entered the fence; committed values are then visible. */
    void fence();

    /**
     * The value {@code rank} put under {@code key} and committed before a fence this process
     * has passed.
     *
     * @throws weft.ucs.WeftException NO_ELEMENT if there is no such value
     */
    byte[] get(int rank, String key);

    /**
     * Whether a {@link #put} of a key this rank committed before replaces the old value in the store
     * (the launcher's key-value server and a singleton do). {@link Runtime#allgather} then reuses two
     * keys in turn, so that a job that calls it all the time does not grow the store; resource managers
     * whose stores keep every put (PMI-2, PMIx) get a new key per call.
     */
    default boolean overwritesKeys() {
        return false;
    }

    /**
     * Asks the launcher or resource manager to end the whole job because this PE failed (MPI_Abort): the
     * other PEs are stopped rather than left waiting for this one. Returns once the request is sent, or
     * at once when the launcher needs no request (it watches exit codes); the caller then exits with a
     * non-zero status. The bootstrap is unusable afterwards, and {@link #close} does not finalize.
     *
     * <p>The default sends nothing: a launcher that sees every PE's exit code needs no more.
     *
     * @param status the exit status this process is about to end with
     * @param reason what failed, for the launcher's log
     */
    default void abort(int status, String reason) {
    }

    /**
     * Ends the whole job on purpose with {@code status} (OpenSHMEM's global exit): every PE and the launcher
     * exit with it, 0 included; returns once every PE was told, and the caller then exits with it. The
     * default is {@link #abort}: a resource manager reports the status its own way.
     */
    default void globalExit(int status, String reason) {
        abort(status, reason);
    }

    /**
     * The status another PE or the launcher ended the job with (a global exit, or an abort such as
     * {@code MPI_Abort(7)}) once this PE has been told, else null: a failure this PE meets after that (a peer
     * that exited first, a bootstrap call cut short) is that end, not an error, and the PE exits with it.
     */
    default Integer globalExitStatus() {
        return null;
    }

    /** Leaves the job cleanly (the launcher then knows this PE did not die). */
    @Override
    void close();

    /** What a resource-manager bootstrap (PMIx, PMI-2) throws once closed, or once this PE aborted the job. */
    static void checkOpen(final boolean closed, final boolean aborted) {
        if (closed) {
            throw new WeftException(Status.CLOSED, "bootstrap is closed");
        }
        if (aborted) {
            throw new WeftException(Status.CANCELED, "bootstrap: this PE aborted the job");
        }
    }

    /** The message an abort gives the resource manager. */
    static String abortMessage(final int rank, final int status, final String reason) {
        return "rank " + rank + " aborted the job (status " + status + "): " + reason;
    }
}
