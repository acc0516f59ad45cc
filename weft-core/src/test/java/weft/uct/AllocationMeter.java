package weft.uct;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Bytes allocated by the calling thread (HotSpot's TLAB accounting, {@code
 * com.sun.management.ThreadMXBean}), for zero-allocation tests. Looked up reflectively because the test
 * sources compile inside module weft.core, which does not read jdk.management (tests run on the class
 * path, where it is visible). The bound handle returns a primitive: reading the meter allocates nothing.
 */
public final class AllocationMeter {
    private static final MethodHandle ALLOCATED;

    static {
        try {
            final Object bean = Class.forName("java.lang.management.ManagementFactory")
                .getMethod("getThreadMXBean").invoke(null);
            final Class<?> type = Class.forName("com.sun.management.ThreadMXBean");
            ALLOCATED = MethodHandles.publicLookup()
                .findVirtual(type, "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class)).bindTo(bean);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AllocationMeter() {
    }

    /**
     * Runs {@code round} until one run of it allocates at most {@code quietBytes} (the JIT has compiled
     * the path: steady state) or {@code maxMillis} pass. Zero-allocation tests measure after this, so
     * that a compiler thread starved on a loaded machine does not make them measure interpreted code.
     *
     * @return the bytes the last warm-up round allocated
     */
    public static long warmUntilQuiet(final Runnable round, final long quietBytes, final long maxMillis) {
        final long deadline = System.nanoTime() + maxMillis * 1_000_000L;
        long last;
        do {
            final long before = allocatedBytes();
            round.run();
            last = allocatedBytes() - before;
        } while (last > quietBytes && System.nanoTime() < deadline);
        return last;
    }

    /** Bytes allocated so far by the calling thread. */
    public static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invokeExact();
        } catch (final Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
