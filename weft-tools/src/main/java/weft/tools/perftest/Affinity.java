package weft.tools.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import weft.ucs.sys.LibC;

/**
 * Pins the calling thread to CPUs with {@code sched_setaffinity(2)}: the measuring thread of perftest, like
 * ucx_perftest's {@code -c}.
 */
public final class Affinity {
    /** Bytes of the CPU mask passed to the kernel: 1024 CPUs, glibc's cpu_set_t. */
    private static final int MASK_BYTES = 128;

    private Affinity() {
    }

    /**
     * Restricts the calling thread to {@code cpus}.
     *
     * @return 0, or {@code -errno} (e.g. EINVAL when no listed CPU is online)
     */
    public static int pinCurrentThread(final int... cpus) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            for (final int cpu : cpus) {
                if (cpu < 0 || cpu >= MASK_BYTES * 8) {
                    throw new IllegalArgumentException("CPU " + cpu + " is outside 0.." + (MASK_BYTES * 8 - 1));
                }
                final long word = cpu / 64;
                mask.set(ValueLayout.JAVA_LONG, word * 8,
                    mask.get(ValueLayout.JAVA_LONG, word * 8) | (1L << (cpu % 64)));
            }
            final int rc = LibC.schedSetaffinity(0, MASK_BYTES, mask);
            return rc < 0 ? rc : 0;
        }
    }

    /**
     * The CPUs the calling thread may run on. Read from {@code /proc/thread-self/status} where it can be: the
     * launcher asks before it starts any PE, and a first libc downcall would cost it the FFM linker's first
     * link (33 ms of its start-up); else from {@code sched_getaffinity(2)}.
     */
    public static int[] currentCpus() {
        final int[] listed = allowedList();
        return listed != null ? listed : affinityMask();
    }

    /** The {@code Cpus_allowed_list} of this thread's status ("0-3,8,10-11"), or null if unreadable. */
    static int[] allowedList() {
        try (java.io.BufferedReader r = java.nio.file.Files.newBufferedReader(
                java.nio.file.Path.of("/proc/thread-self/status"), java.nio.charset.StandardCharsets.US_ASCII)) {
            for (String l = r.readLine(); l != null; l = r.readLine()) {
                if (l.startsWith("Cpus_allowed_list:")) {
                    return weft.ucs.Cpus.list(l.substring(l.indexOf(':') + 1));
                }
            }
            return null;
        } catch (final java.io.IOException | IllegalArgumentException e) {
            return null; // unreadable, or not a CPU list: the kernel's mask instead
        }
    }

    /** The kernel's mask ({@code sched_getaffinity(2)}): {@link #currentCpus} without the status file. */
    static int[] affinityMask() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            final int rc = LibC.schedGetaffinity(0, MASK_BYTES, mask);
            if (rc != 0) {
                throw new IllegalStateException("sched_getaffinity failed: " + LibC.strerror(-rc));
            }
            final java.util.List<Integer> l = new java.util.ArrayList<>();
            for (int cpu = 0; cpu < MASK_BYTES * 8; cpu++) {
                if ((mask.get(ValueLayout.JAVA_LONG, (cpu / 64) * 8L) & (1L << (cpu % 64))) != 0) {
                    l.add(cpu);
                }
            }
            return l.stream().mapToInt(Integer::intValue).toArray();
        }
    }
}
