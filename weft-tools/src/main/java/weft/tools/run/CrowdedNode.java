package weft.tools.run;

import java.util.ArrayList;
import java.util.List;

/**
 * JVM options for PEs that run on one CPU each, or that outnumber the CPUs of the node they share.
 * <p>
 * <b>Bound to one CPU</b> ({@code weft run}'s default when the PEs fit the CPUs): the JIT's compiler threads
 * inherit the PE's CPU mask, so they share its one core with the main thread, which spins in its waits. A
 * background compile then runs only in the spinning thread's time slices (4-16 ms stalls) while the method
 * it compiles runs interpreted meanwhile, and the peers wait on both: at OSU's counts the MPI layer's methods
 * never reached C2. So Weft's own methods ({@code weft.*}, {@code mpi.*}) compile in the foreground (as in
 * {@code weft perftest}): the thread that needs the code stops while its core compiles it. The JDK's and the
 * program's methods stay in the background: with them in the foreground too, every start-up compile stopped
 * the PE (a 2-PE hello job 1.05 -> 1.8 s; with Weft's alone 1.05 -> 1.25 s). With the AOT cache Weft's methods
 * compile at a tenth of the usual thresholds rather than a hundredth ({@link RunCommand#FOREGROUND_JIT_OPTIONS}).
 * Measured with OSU's counts (bench/results/2026-11-28-session23-mpi-foreground.txt).
 * <p>
 * <b>Crowded</b> (more PEs than CPUs: 64 PEs on 2 cores). Each PE's JVM
 * compiles the same code, and on a crowded node those compiles are most of the job's CPU time: measured on
 * 2 cores, 64 PEs of an all-pairs wireup spent 42 of 70 CPU seconds in the C1 and C2 compiler threads
 * (bench/results/2026-11-27-scale-64pe.txt). Such a job shares its cores anyway, so its PEs compile with
 * C1 only, at twenty times the JVM's usual thresholds (not the AOT cache's early ones: most of what a PE
 * runs while it starts and connects then stays interpreted, a loop still compiles within milliseconds), and
 * collect with the serial collector (one GC thread, as every other JVM Weft starts). An option the user
 * gives for the compiler tiers, their thresholds or the collector wins.
 */
final class CrowdedNode {
    /** C1 only: C2's compiles in every one of many JVMs cost more CPU than their code saves. */
    static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    /**
     * With C1 only: compiles after twenty times the usual counts. 64 PEs of an all-pairs wireup on 2 cores:
     * 0.66 -> 0.58 CPU seconds a PE (bench/results/2026-11-27-startup-pe.txt).
     */
    static final String LATE_COMPILES = "-XX:CompileThresholdScaling=20";
    /** One GC thread per JVM instead of G1's workers and refinement threads. */
    static final String SERIAL_GC = "-XX:+UseSerialGC";
    /** Weft's methods compile in the foreground: the core that waits for the code compiles it. */
    static final List<String> FOREGROUND_COMPILES = List.of("-XX:CompileCommand=quiet",
        "-XX:CompileCommand=BackgroundCompilation,weft.*::*,false",
        "-XX:CompileCommand=BackgroundCompilation,mpi.*::*,false");

    private CrowdedNode() {
    }

    /** True if {@code localPes} PEs on a node of {@code cpus} online CPUs outnumber them. */
    static boolean crowded(final long localPes, final int cpus) {
        return localPes > cpus;
    }

    /** The options to add before the user's {@code jvmOptions} for PEs bound to one CPU: unless the user chose. */
    static List<String> boundOptions(final List<String> jvmOptions) {
        return jvmOptions.stream().anyMatch(o -> o.contains("BackgroundCompilation") || o.equals("-Xint"))
            ? List.of() : FOREGROUND_COMPILES;
    }

    /** The options to add before the user's {@code jvmOptions} on a crowded node: those the user did not choose. */
    static List<String> options(final List<String> jvmOptions) {
        final List<String> add = new ArrayList<>(3);
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-XX:TieredStopAtLevel") || o.endsWith("TieredCompilation")
            || o.equals("-Xint") || o.equals("-Xcomp"))) {
            add.add(C1_ONLY);
            if (jvmOptions.stream().noneMatch(o -> o.startsWith("-XX:CompileThresholdScaling"))) {
                add.add(LATE_COMPILES);
            }
        }
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-XX:+Use") && o.endsWith("GC"))) {
            add.add(SERIAL_GC);
        }
        return add;
    }
}
