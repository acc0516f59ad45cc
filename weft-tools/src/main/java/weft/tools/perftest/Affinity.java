package weft.tools.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Pins the calling thread to CPUs with {@code sched_setaffinity(2)} (FFM downcall): the
 * measuring thread of perftest, like ucx_perftest's {@code -c}.
 */
@SuppressWarnings("restricted")
public final class Affinity {
    /** Bytes of the CPU mask passed to the kernel: 1024 CPUs, glibc's cpu_set_t. */
    private static final int MASK_BYTES = 128;
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SET = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("sched_setaffinity").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
        Linker.Option.captureCallState("errno"));
    private static final MethodHandle GET = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("sched_getaffinity").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));

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
            final MemorySegment state = arena.allocate(CAPTURE);
            final int rc = (int) SET.invokeExact(state, 0, (long) MASK_BYTES, mask);
            return rc == 0 ? 0 : -(int) ERRNO.get(state, 0L);
        } catch (final RuntimeException | Error e) {
            throw e;
        } catch (final Throwable t) {
            throw new IllegalStateException("sched_setaffinity failed", t);
        }
    }

    /** The CPUs the calling thread may run on (for tests and diagnostics). */
    public static int[] currentCpus() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            final int rc = (int) GET.invokeExact(0, (long) MASK_BYTES, mask);
            if (rc != 0) {
                throw new IllegalStateException("sched_getaffinity failed");
            }
            final java.util.List<Integer> l = new java.util.ArrayList<>();
            for (int cpu = 0; cpu < MASK_BYTES * 8; cpu++) {
                if ((mask.get(ValueLayout.JAVA_LONG, (cpu / 64) * 8L) & (1L << (cpu % 64))) != 0) {
                    l.add(cpu);
                }
            }
            return l.stream().mapToInt(Integer::intValue).toArray();
        } catch (final RuntimeException | Error e) {
            throw e;
        } catch (final Throwable t) {
            throw new IllegalStateException("sched_getaffinity failed", t);
        }
    }
}
