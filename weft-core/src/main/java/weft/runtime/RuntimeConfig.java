package weft.runtime;

import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;

import java.util.List;

/** The configuration variables of the runtime and the launcher (listed by {@code weft info -c}). */
public final class RuntimeConfig {
    /** Which bootstrap {@link Runtime#init()} uses. */
    public static final ConfigVar<String> BOOTSTRAP = ConfigRegistry.register("BOOTSTRAP",
        ConfigType.oneOf("auto", "weft", "launcher", "pmix", "pmi2", "singleton"), "auto",
        "Bootstrap of Runtime.init(): auto = the weft run launcher (weft, also named launcher) if WEFT_RANK and "
            + "WEFT_KV_ADDRESS are set, else PMIx if PMIX_RANK or PMIX_NAMESPACE is set (mpirun, srun --mpi=pmix), "
            + "else PMI-2 if PMI_FD is set (srun --mpi=pmi2), else a singleton job of one PE; a process that another "
            + "launcher started as one of several tasks (SLURM_PROCID with SLURM_STEP_ID, PMI_RANK, "
            + "OMPI_COMM_WORLD_RANK) but gave none of these fails with an error naming the fix.");

    /** Whether an exception nothing catches aborts the whole job. */
    public static final ConfigVar<Boolean> ABORT_ON_UNCAUGHT = ConfigRegistry.register("ABORT_ON_UNCAUGHT",
        ConfigType.BOOL, "y",
        "y: an exception that no code catches, in any thread of a PE started by a launcher, is printed and then "
            + "aborts the whole job through the bootstrap (PMIx_Abort, PMI-2 abort, or the weft run launcher), as "
            + "MPI's default error handler does, so that no PE waits for a dead one; n: Java's default (the thread "
            + "dies, the process lives on while other threads do).");

    /** Deadline of every bootstrap wait (connect, fence, get) and of the launcher's fences. */
    public static final ConfigVar<Long> BOOTSTRAP_TIMEOUT = ConfigRegistry.register("BOOTSTRAP_TIMEOUT",
        ConfigType.TIME, "60s",
        "Longest wait of a bootstrap operation (connect, fence, get); a dead or silent PE then fails the job "
            + "with an error naming it instead of a hang.");

    /** Where libpmix is, when not in the usual places. */
    public static final ConfigVar<String> PMIX_LIBRARY = ConfigRegistry.register("PMIX_LIBRARY",
        ConfigType.STRING, "",
        "Path of libpmix for the PMIx bootstrap; empty = libpmix.so.2 from the loader path, then "
            + "/usr/lib/<arch>-linux-gnu/pmix2/lib, /usr/lib64, /usr/local/lib, /opt/pmix/lib.");

    /** How long the launcher lets the other PEs end by themselves after one failed. */
    public static final ConfigVar<Long> RUN_KILL_GRACE = ConfigRegistry.register("RUN_KILL_GRACE",
        ConfigType.TIME, "2s",
        "weft run: after a PE failed, time the others get to exit by themselves before they are sent SIGTERM, "
            + "and again before SIGKILL.");

    private RuntimeConfig() {
    }

    /** Every variable above (loading this class registers them). */
    public static List<ConfigVar<?>> all() {
        return List.of(BOOTSTRAP, BOOTSTRAP_TIMEOUT, PMIX_LIBRARY, ABORT_ON_UNCAUGHT, RUN_KILL_GRACE);
    }
}
