package weft.runtime;

import weft.ucs.Cpus;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.sys.LibC;

import java.util.Map;
import java.util.function.Function;

/**
 * A Weft program's place in its job: rank, size and node layout, and the key-value exchange (the
 * PMI model) with which PEs swap worker addresses before they talk over the data path.
 *
 * <pre>{@code
 * try (Runtime rt = Runtime.init()) {              // under weft run, mpirun, srun, or alone
 *     byte[][] addresses = rt.allgather(myWorkerAddress);   // one blob from every PE, by rank
 *     rt.put("rkey", packedKey);                   // or the PMI steps by hand:
 *     rt.commit();
 *     rt.fence();                                  //   collective: all commits are now visible
 *     byte[] peerKey = rt.get((rt.rank() + 1) % rt.size(), "rkey");
 *     rt.barrier();
 * }
 * }</pre>
 *
 * Start it with {@code ./weft run -n 4 -cp app.jar my.Main}, {@code mpirun -np 4 java ...} (PMIx),
 * {@code srun --mpi=pmix} or {@code srun --mpi=pmi2 -n 4 java ...} (Slurm), or plainly (a singleton job
 * of one PE). The bootstrap is chosen by {@code WEFT_BOOTSTRAP} ({@link RuntimeConfig#BOOTSTRAP}) or from
 * the environment ({@link BootstrapChoice}); every wait ends at {@code WEFT_BOOTSTRAP_TIMEOUT} with an
 * error naming the missing or dead PE. Not thread-safe: one thread sets the job up.
 *
 * <p>A PE that fails ends the whole job, as under MPI: {@link #abort} does it explicitly, and an exception
 * that nothing catches, in any thread, does it after printing the exception ({@code WEFT_ABORT_ON_UNCAUGHT}).
 * The job {@link #init()} joined stays joined until the process exits, even after {@link #close()}, so
 * that an exception thrown inside {@code try (Runtime rt = Runtime.init())} still aborts the job once
 * {@code close} has run; the bootstrap is finalized when the process exits.
 *
 * <p>Keys beginning with {@code weft.} are reserved for the runtime itself.
 */
public final class Runtime implements AutoCloseable {
    private final Bootstrap bootstrap;
    /** The process's job when this runtime came from {@link #init()}; null for one built over a bootstrap. */
    private final ProcessJob job;
    private int allgatherRound;
    private boolean closed;

    private Runtime(final Bootstrap bootstrap, final ProcessJob job) {
        this.bootstrap = bootstrap;
        this.job = job;
        Cpus.localProcesses(bootstrap.layout().localSize()); // the wait loops' auto policies
    }

    /** Joins the job this process was started in, configured from the environment. */
    public static Runtime init() {
        return init(Config.global());
    }

    /**
     * Joins the job this process was started in, with {@code config} for the runtime's tunables. A second
     * call in the same process joins the same job again (the launcher started this process once).
     *
     * @throws WeftException when the launcher's environment is incomplete, its service cannot be reached, or
     *                       another launcher started this process as one of several tasks without a bootstrap
     *                       Weft speaks (the message names the fix, e.g. {@code srun --mpi=pmix})
     */
    public static Runtime init(final Config config) {
        synchronized (Runtime.class) {
            final ProcessJob joined = ProcessJob.current();
            if (joined != null) {
                return new Runtime(joined.bootstrap(), joined);
            }
            // the context this PE opens next needs native calls whose links take milliseconds each to generate:
            // generate them while this thread waits for the launcher
            final Thread link = Thread.ofPlatform().daemon().name("weft-link").start(Runtime::linkSetupCalls);
            try {
                final Bootstrap b = open(System::getenv, config);
                if (b instanceof SingletonBootstrap) {
                    return new Runtime(b, null);
                }
                final ProcessJob job = ProcessJob.start(b, config.get(RuntimeConfig.ABORT_ON_UNCAUGHT));
                return new Runtime(b, job);
            } finally {
                awaitLinks(link);
            }
        }
    }

    private static void linkSetupCalls() {
        try {
            LibC.linkSetupCalls();
            MemoryCopy.link();
        } catch (final LinkageError e) {
            // a call that cannot link fails again, with this cause, where it is first used: that use reports it
        }
    }

    /** Waits for the link thread (a bounded amount of code generation), keeping an interrupt for the caller. */
    private static void awaitLinks(final Thread link) {
        boolean interrupted = false;
        while (link.isAlive()) {
            try {
                link.join();
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Joins a job through the given bootstrap (another launcher's, or a test double). {@link #close()}
     * closes it; no uncaught-exception handler is installed.
     */
    public static Runtime of(final Bootstrap bootstrap) {
        return new Runtime(bootstrap, null);
    }

    /** A runtime over the bootstrap {@code env} chooses, closed by {@link #close()} (tests: a map for the environment). */
    static Runtime init(final Function<String, String> env, final Config config) {
        return new Runtime(open(env, config), null);
    }

    /** Convenience for tests: {@link #init(Function, Config)} over a map. */
    static Runtime init(final Map<String, String> env, final Config config) {
        return init(env::get, config);
    }

    /** Chooses and opens the bootstrap from {@code env} (the process environment, or a map in tests). */
    private static Bootstrap open(final Function<String, String> env, final Config config) {
        final long timeoutNs = config.get(RuntimeConfig.BOOTSTRAP_TIMEOUT);
        return switch (BootstrapChoice.choose(config.get(RuntimeConfig.BOOTSTRAP), env)) {
            case "launcher" -> launcher(env, timeoutNs);
            case "pmix" -> PmixBootstrap.open(config.get(RuntimeConfig.PMIX_LIBRARY), timeoutNs, env);
            case "pmi2" -> Pmi2Bootstrap.open(env, timeoutNs);
            default -> new SingletonBootstrap();
        };
    }

    private static Bootstrap launcher(final Function<String, String> env, final long timeoutNs) {
        final int size = LaunchEnv.intVar(env, LaunchEnv.SIZE, 1, Integer.MAX_VALUE);
        final int rank = LaunchEnv.intVar(env, LaunchEnv.RANK, 0, size - 1);
        final int localSize = LaunchEnv.intVar(env, LaunchEnv.LOCAL_SIZE, 1, size);
        final int localRank = LaunchEnv.intVar(env, LaunchEnv.LOCAL_RANK, 0, localSize - 1);
        final int nodeId = LaunchEnv.intVar(env, LaunchEnv.NODE_ID, 0, size - 1);
        final String jobId = LaunchEnv.textVar(env, LaunchEnv.JOB_ID);
        final String secret = LaunchEnv.textVar(env, LaunchEnv.JOB_SECRET);
        return TcpBootstrap.connect(LaunchEnv.textVar(env, LaunchEnv.KV_ADDRESS), secret,
            new JobLayout(rank, size, localRank, localSize, nodeId, jobId), timeoutNs, true);
    }

    /** Rank, size and node layout in one value. */
    public JobLayout layout() {
        return bootstrap.layout();
    }

    /** The bootstrap in use: {@code launcher}, {@code pmix}, {@code pmi2} or {@code singleton}. */
    public String bootstrapName() {
        return bootstrap.name();
    }

    /** This PE's rank, {@code 0 <= rank < size}. */
    public int rank() {
        return bootstrap.layout().rank();
    }

    /** Number of PEs in the job. */
    public int size() {
        return bootstrap.layout().size();
    }

    /** Rank among the PEs on this node. */
    public int localRank() {
        return bootstrap.layout().localRank();
    }

    /** Number of PEs on this node. */
    public int localSize() {
        return bootstrap.layout().localSize();
    }

    /** Index of this PE's node in the job. */
    public int nodeId() {
        return bootstrap.layout().nodeId();
    }

    /** The job's identifier, the same in every PE. */
    public String jobId() {
        return bootstrap.layout().jobId();
    }

    /** Stores {@code value} under {@code key} for this rank; others see it after {@link #commit} and {@link #fence}. */
    public void put(final String key, final byte[] value) {
        checkOpen();
        bootstrap.put(key, value);
    }

    /** Publishes the values put since the last commit. */
    public void commit() {
        checkOpen();
        bootstrap.commit();
    }

    /** Collective over all PEs: returns once every PE entered it; committed values are then visible. */
    public void fence() {
        checkOpen();
        bootstrap.fence();
    }

    /**
     * The value {@code rank} put under {@code key}.
     *
     * @throws WeftException NO_ELEMENT if {@code rank} did not commit such a key before the last fence
     */
    public byte[] get(final int rank, final String key) {
        checkOpen();
        return bootstrap.get(rank, key);
    }

    /** Collective: returns once every PE called it (setup only, not a fast barrier). */
    public void barrier() {
        checkOpen();
        bootstrap.fence();
    }

    /**
     * Collective: every PE contributes one blob (for example its worker address) and receives all
     * of them, indexed by rank.
     */
    public byte[][] allgather(final byte[] mine) {
        checkOpen();
        final int round = job != null ? job.nextAllgatherRound() : allgatherRound++;
        // Two keys in turn are enough where a put replaces: round r + 2 is put only after every PE has
        // left round r + 1's fence, which each entered after reading round r's values.
        final String key = "weft.allgather." + (bootstrap.overwritesKeys() ? round & 1 : round);
        bootstrap.put(key, mine);
        bootstrap.commit();
        bootstrap.fence();
        final byte[][] all = new byte[size()][];
        for (int r = 0; r < all.length; r++) {
            all[r] = bootstrap.get(r, key);
        }
        return all;
    }

    private void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "the runtime is closed");
        }
    }

    /**
     * Ends the whole job because this PE failed (MPI_Abort): prints {@code reason}, asks the launcher or
     * resource manager to stop every PE (PMIx_Abort, PMI-2 abort, or leaving {@code weft run}'s service
     * without finalizing), and exits this process with {@code status} (0 becomes 1). Does not return.
     * Works after {@link #close()} too.
     */
    public void abort(final int status, final String reason) {
        (job != null ? job : new ProcessJob(bootstrap, System::exit)).abort(status, reason);
    }

    /**
     * Ends the whole job on purpose with {@code status} ({@code shmem_global_exit}): every PE exits with it,
     * 0 included, and so does {@code weft run}. Under a resource manager (PMIx, PMI-2) this is its abort
     * with that status. Does not return.
     */
    public void globalExit(final int status, final String reason) {
        (job != null ? job : new ProcessJob(bootstrap, System::exit)).globalExit(status, reason);
    }

    /**
     * This handle is done. A runtime from {@link #init()} leaves the job when the process exits (see the
     * class comment); one from {@link #of} closes its bootstrap now.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (job == null) {
                bootstrap.close();
            }
        }
    }

    @Override
    public String toString() {
        return "Runtime[" + bootstrap.name() + " rank " + rank() + "/" + size() + ", node " + nodeId() + ", local "
            + localRank() + "/" + localSize() + "]";
    }
}
