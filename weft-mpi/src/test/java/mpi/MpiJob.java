package mpi;

import weft.testkit.PeJob;

import java.util.List;
import java.util.Map;

/**
 * Runs a rank program as a job of separate JVMs, the way {@code weft run} does ({@link PeJob}): when a rank
 * exits with a non-zero status the others are aborted. Every wait is bounded by {@link #JOB_TIMEOUT_S}; a job
 * still running then is killed and reported as a failure.
 */
final class MpiJob {
    /** Seconds a whole test job may take (a hang, not a slow machine, when exceeded). */
    static final long JOB_TIMEOUT_S = Long.getLong("weft.test.mpiJobTimeoutSeconds", 180);
    private static final List<String> JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss2m");

    /** Exit statuses and the combined output of each rank. */
    record Result(int[] exits, String[] output) {
        String describe() {
            return new PeJob.Result(exits, output, false).describe();
        }

        boolean allZero() {
            return new PeJob.Result(exits, output, false).ok();
        }
    }

    private MpiJob() {
    }

    static Result run(final int np, final Map<String, String> env, final Class<?> main, final String... args) {
        return run(np, env, true, main, args);
    }

    /**
     * @param abortOnFailure false: a rank's non-zero exit does not end the others (to see what the ranks left
     *                       make of a dead peer themselves)
     */
    static Result run(final int np, final Map<String, String> env, final boolean abortOnFailure, final Class<?> main,
                      final String... args) {
        final PeJob.Result r = PeJob.run(np, env, JVM, JOB_TIMEOUT_S, abortOnFailure, main, args);
        if (r.timedOut()) {
            throw new AssertionError("the job did not finish within " + JOB_TIMEOUT_S + " s (killed):\n"
                + r.describe());
        }
        return new Result(r.exits(), r.output());
    }
}
