package weft.uct;

/** Per-thread allocation counter for zero-allocation tests (HotSpot's TLAB accounting). */
public final class AllocationMeter {
    private static final java.lang.reflect.Method ALLOCATED;
    private static final Object THREADS;

    static {
        // reflection: tests compile inside module weft.core, which does not read jdk.management
        try {
            THREADS = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                .invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AllocationMeter() {
    }

    /** Bytes allocated so far by the calling thread. */
    public static long allocatedBytes() {
        try {
            return (Long) ALLOCATED.invoke(THREADS);
        } catch (final ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
