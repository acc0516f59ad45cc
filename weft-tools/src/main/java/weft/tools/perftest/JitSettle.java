package weft.tools.perftest;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Waits, between warm-up and measurement, until the JIT compilers have gone quiet. The warm-up
 * triggers the compilation of the loops, but on a small machine the optimizing compile of a
 * loop can take longer than the warm-up itself: it would then finish during the measured loop,
 * the compiler thread taking the measuring thread's CPU, and the first part of the measured loop
 * running unoptimized code. Nothing is measured while this waits (it sleeps, leaving the CPU to
 * the compiler threads).
 */
final class JitSettle {
    /** Compilation time must stay unchanged this long to call the JIT quiet. */
    private static final long QUIET_NS = 150_000_000L;
    private static final long STEP_MS = 10;

    private JitSettle() {
    }

    /**
     * Returns when no compilation has finished for a while, or after {@code maxNs}.
     *
     * @return true if the JIT went quiet, false on timeout or when the JVM does not report
     *         compilation time
     */
    static boolean await(final long maxNs) {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return false;
        }
        final long deadline = System.nanoTime() + maxNs;
        long last = jit.getTotalCompilationTime();
        long quietSince = System.nanoTime();
        while (true) {
            try {
                Thread.sleep(STEP_MS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            final long now = System.nanoTime();
            final long t = jit.getTotalCompilationTime();
            if (t != last) {
                last = t;
                quietSince = now;
            } else if (now - quietSince >= QUIET_NS) {
                return true;
            }
            if (now - deadline >= 0) {
                return false;
            }
        }
    }
}
