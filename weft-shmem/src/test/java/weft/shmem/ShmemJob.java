package weft.shmem;

import weft.testkit.PeJob;

import java.util.List;
import java.util.Map;

/** A job of N PE processes for the OpenSHMEM tests ({@link PeJob}, with this module's defaults). */
final class ShmemJob {
    /** Exit codes and merged stdout+stderr per rank; {@code timedOut} if the deadline killed the job. */
    record Result(int[] codes, String[] output, boolean timedOut) {
        boolean ok() {
            return new PeJob.Result(codes, output, timedOut).ok();
        }

        String out(final int rank) {
            return output[rank];
        }

        @Override
        public String toString() {
            return new PeJob.Result(codes, output, timedOut).describe();
        }
    }

    private ShmemJob() {
    }

    /** The PEs' JVM options in the tests: C1 only, small heaps (many JVMs share two cores). */
    static final List<String> FAST_JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
        "-Xshare:auto", "-Xmx64m", "-Xss2m");

    static Result run(final int n, final Map<String, String> env, final long timeoutSeconds, final Class<?> main,
                      final String... args) {
        return run(n, env, FAST_JVM, timeoutSeconds, main, args);
    }

    static Result run(final int n, final Map<String, String> env, final List<String> jvmOptions,
                      final long timeoutSeconds, final Class<?> main, final String... args) {
        final PeJob.Result r = PeJob.run(n, env, jvmOptions, timeoutSeconds, true, main, args);
        return new Result(r.exits(), r.output(), r.timedOut());
    }
}
