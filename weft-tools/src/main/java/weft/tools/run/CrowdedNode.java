package weft.tools.run;

import java.util.ArrayList;
import java.util.List;

/**
 * JVM options for PEs that fill the CPUs of the node they share, or outnumber them.
 * <p>
 * <b>Full</b> (as many PEs as CPUs, each bound to one): no CPU is left for the JIT's compiler threads, which
 * share the PE's core with its main thread, and that thread spins in its waits. A compile in the background
 * then takes time slices from the spinning thread (4 ms stalls) while the method it compiles runs slow code
 * meanwhile, and the peers wait on both. So PEs compile in the foreground ({@code -XX:-BackgroundCompilation},
 * as {@code weft perftest} does): the thread that needs the code stops while its core compiles it; with the
 * AOT cache, at a tenth of the usual thresholds rather than a hundredth, so that start-up, whose compiles now
 * stop the PE too, compiles less ({@link RunCommand#FULL_NODE_JIT_OPTIONS}). Measured with OSU's counts (2
 * ranks, 2 cores, 8 B MPI latency, bench/results/2026-11-28-session23-mpi-foreground.txt).
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
    /** A full node's PEs compile in the foreground: the core that waits for the code compiles it. */
    static final String FOREGROUND_COMPILES = "-XX:-BackgroundCompilation";

    private CrowdedNode() {
    }

    /** True if {@code localPes} PEs on a node of {@code cpus} online CPUs outnumber them. */
    static boolean crowded(final long localPes, final int cpus) {
        return localPes > cpus;
    }

    /** True if {@code localPes} PEs on a node of {@code cpus} online CPUs use every one of them, and no more. */
    static boolean full(final long localPes, final int cpus) {
        return localPes == cpus;
    }

    /** The options to add before the user's {@code jvmOptions} on a full node: those the user did not choose. */
    static List<String> fullOptions(final List<String> jvmOptions) {
        return jvmOptions.stream().anyMatch(o -> o.endsWith("BackgroundCompilation") || o.equals("-Xint"))
            ? List.of() : List.of(FOREGROUND_COMPILES);
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
