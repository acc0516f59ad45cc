package weft.tools.run;

import java.util.ArrayList;
import java.util.List;

/**
 * JVM options for PEs that outnumber the CPUs of the node they share (64 PEs on 2 cores). Each PE's JVM
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

    private CrowdedNode() {
    }

    /** True if {@code localPes} PEs on a node of {@code cpus} online CPUs outnumber them. */
    static boolean crowded(final long localPes, final int cpus) {
        return localPes > cpus;
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
