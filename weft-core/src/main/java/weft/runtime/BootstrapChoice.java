package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.function.Function;

/**
 * Which bootstrap {@link Runtime#init()} uses: {@code WEFT_BOOTSTRAP} when it names one, else what the
 * environment shows, in this order:
 * <ol>
 *   <li>{@code launcher}: {@code WEFT_RANK} and {@code WEFT_KV_ADDRESS} ({@code weft run}; it wins over
 *       any resource manager's variables, as when {@code weft run} runs inside a Slurm allocation);</li>
 *   <li>{@code pmix}: {@code PMIX_RANK} or {@code PMIX_NAMESPACE} ({@code mpirun}, {@code srun --mpi=pmix});</li>
 *   <li>{@code pmi2}: {@code PMI_FD} ({@code srun --mpi=pmi2});</li>
 *   <li>an error, when another launcher started this process as one of several tasks but gave it none of
 *       the above (Slurm's {@code SLURM_PROCID} with {@code SLURM_STEP_ID}, {@code PMI_RANK}/{@code PMI_SIZE}
 *       without {@code PMI_FD}, Open MPI's {@code OMPI_COMM_WORLD_*}): each task would otherwise run
 *       alone, believing it is the whole job;</li>
 *   <li>{@code singleton}.</li>
 * </ol>
 */
final class BootstrapChoice {
    private BootstrapChoice() {
    }

    /**
     * The bootstrap to open: {@code launcher}, {@code pmix}, {@code pmi2} or {@code singleton}.
     *
     * @param configured the value of {@code WEFT_BOOTSTRAP} ({@code auto}, {@code weft} or one of the above)
     * @throws WeftException INVALID_PARAM naming the launcher and the fix when it started several tasks
     *                       but gave this one no bootstrap Weft speaks; or for an unknown name
     */
    static String choose(final String configured, final Function<String, String> env) {
        return switch (configured) {
            case "weft", "launcher" -> "launcher";
            case "pmix", "pmi2", "singleton" -> configured;
            case "auto" -> detect(env);
            default -> throw new WeftException(Status.INVALID_PARAM, "unknown bootstrap '" + configured
                + "' in WEFT_BOOTSTRAP (expected auto, weft, pmix, pmi2 or singleton)");
        };
    }

    private static String detect(final Function<String, String> env) {
        if (LaunchEnv.present(env)) {
            return "launcher";
        }
        if (set(env, "PMIX_RANK") || set(env, "PMIX_NAMESPACE")) {
            return "pmix";
        }
        if (set(env, "PMI_FD")) {
            return "pmi2";
        }
        checkNoForeignLauncher(env);
        return "singleton";
    }

    /** Fails when a launcher's variables say this process is one task of several. */
    private static void checkNoForeignLauncher(final Function<String, String> env) {
        final int slurmTasks = number(env, "SLURM_STEP_NUM_TASKS", number(env, "SLURM_NTASKS", 1));
        if (set(env, "SLURM_STEP_ID") && set(env, "SLURM_PROCID") && slurmTasks > 1) {
            throw new WeftException(Status.INVALID_PARAM, "this process is task " + env.apply("SLURM_PROCID")
                + " of " + slurmTasks + " of Slurm job step " + env.apply("SLURM_JOB_ID") + "."
                + env.apply("SLURM_STEP_ID") + ", but srun gave it no process-management interface Weft can use "
                + "(no PMIX_* variables, no PMI_FD: srun --mpi=none, or MpiDefault=none in slurm.conf), so each task "
                + "would run alone as a job of one; start it with 'srun --mpi=pmix' or 'srun --mpi=pmi2' (or set "
                + "WEFT_BOOTSTRAP=singleton to run every task on its own)");
        }
        final int pmiSize = number(env, "PMI_SIZE", 1);
        if (set(env, "PMI_RANK") && pmiSize > 1) {
            throw new WeftException(Status.INVALID_PARAM, "this process is rank " + env.apply("PMI_RANK") + " of "
                + pmiSize + " of a PMI launcher (PMI_RANK, PMI_SIZE), but PMI_FD is not set"
                + (set(env, "PMI_PORT") ? " (only PMI_PORT=" + env.apply("PMI_PORT") + ")" : "")
                + ": Weft speaks PMI-2 over the descriptor the launcher leaves open, and PMIx; under Slurm start "
                + "it with 'srun --mpi=pmi2' or 'srun --mpi=pmix', under mpirun use one with PMIx (Open MPI 4 or "
                + "newer), or start the job with './weft run'");
        }
        final int ompiSize = number(env, "OMPI_COMM_WORLD_SIZE", 1);
        if (set(env, "OMPI_COMM_WORLD_RANK") && ompiSize > 1) {
            throw new WeftException(Status.INVALID_PARAM, "this process is rank " + env.apply("OMPI_COMM_WORLD_RANK")
                + " of " + ompiSize + " of Open MPI's mpirun (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE), but no "
                + "PMIx server is named (PMIX_RANK, PMIX_NAMESPACE are not set): Weft needs an Open MPI that "
                + "serves PMIx (4 or newer); or start the job with './weft run'");
        }
    }

    private static boolean set(final Function<String, String> env, final String name) {
        final String v = env.apply(name);
        return v != null && !v.isBlank();
    }

    private static int number(final Function<String, String> env, final String name, final int dflt) {
        final String v = env.apply(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (final NumberFormatException e) {
            return dflt;
        }
    }
}
