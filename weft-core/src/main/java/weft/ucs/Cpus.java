package weft.ucs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many CPUs this node has, to tell whether its processes outnumber them. A launcher that binds each process
 * to one CPU ({@code weft run}, {@code mpirun --bind-to core}) leaves {@link Runtime#availableProcessors()} at 1
 * in every process, so the node's count comes from the kernel's list of online CPUs.
 */
public final class Cpus {
    private static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");
    /** This job's processes on this node outnumber its CPUs, as last recorded (false until then). */
    private static volatile boolean crowded;

    private Cpus() {
    }

    /** The node's online CPUs (at least this process's available processors). */
    public static int online() {
        int n = 0;
        try {
            n = count(Files.readString(ONLINE));
        } catch (final IOException | IllegalArgumentException e) {
            n = 0; // no sysfs (a container without it): the process's own count below
        }
        return Math.max(n, Runtime.getRuntime().availableProcessors());
    }

    /** True if {@code localProcesses} processes of a job on this node outnumber its CPUs. */
    public static boolean oversubscribed(final int localProcesses) {
        return localProcesses > online();
    }

    /**
     * Records how many of this job's processes run on this node ({@code weft.runtime.Runtime} does when it
     * joins a job), for the wait loops' {@code auto} policies ({@link #crowded()}).
     */
    public static void localProcesses(final int n) {
        crowded = oversubscribed(n);
    }

    /**
     * True if the job's processes on this node, as last recorded by {@link #localProcesses(int)}, outnumber its
     * CPUs: a waiting process should then leave its CPU to a peer that has work soon. False before any record
     * (a process that joined no job). A volatile read: for wait loops, not a message path.
     */
    public static boolean crowded() {
        return crowded;
    }

    /**
     * The number of CPUs in a kernel CPU list such as {@code 0-3,8,10-11}.
     *
     * @throws IllegalArgumentException for text that is not such a list
     */
    static int count(final String list) {
        return list(list).length;
    }

    /**
     * The CPUs of a kernel CPU list such as {@code 0-3,8,10-11} ({@code /sys/devices/system/cpu/online},
     * {@code Cpus_allowed_list} of {@code /proc/.../status}), in the list's order.
     *
     * @throws IllegalArgumentException for text that is not such a list
     */
    public static int[] list(final String list) {
        final java.util.List<Integer> cpus = new java.util.ArrayList<>();
        for (final String part : list.trim().split(",")) {
            if (part.isEmpty()) {
                continue;
            }
            final int dash = part.indexOf('-');
            try {
                final int lo = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
                final int hi = dash < 0 ? lo : Integer.parseInt(part.substring(dash + 1));
                if (hi < lo) {
                    throw new IllegalArgumentException("bad CPU range " + part);
                }
                for (int cpu = lo; cpu <= hi; cpu++) {
                    cpus.add(cpu);
                }
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException("bad CPU list '" + list.trim() + "'", e);
            }
        }
        final int[] out = new int[cpus.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = cpus.get(i);
        }
        return out;
    }
}
