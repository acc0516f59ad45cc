package weft.runtime;

/**
 * The service provider behind {@link Runtime}: one process's view of a job started by some
 * launcher, in the PMI model. A process {@link #put puts} key-value pairs under its own rank,
 * {@link #commit commits} them, and after a {@link #fence} (collective over all ranks) any rank
 * can {@link #get} them.
 *
 * <p>Implementations: the Weft launcher's key-value service over TCP ({@code weft run}), PMIx
 * through FFM on libpmix (Open MPI's {@code mpirun}, Slurm's {@code srun --mpi=pmix}), and a
 * singleton for a process started without a launcher. Every blocking call has a deadline
 * ({@code WEFT_BOOTSTRAP_TIMEOUT}) and fails with a {@link weft.ucs.WeftException} naming what
 * was waited for, instead of hanging on a dead or silent peer.
 *
 * <p>Not thread-safe: one thread of the process drives the bootstrap (it is setup, not the data
 * path).
 */
public interface Bootstrap extends AutoCloseable {
    /** Short name of the backend, e.g. {@code launcher}, {@code pmix}, {@code singleton}. */
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

    /** Leaves the job cleanly (the launcher then knows this PE did not die). */
    @Override
    void close();
}
