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

    /**
     * Where {@code round} allocates, for the message of a failed zero-allocation test: JFR's allocation
     * events of this thread while the round runs again (for up to two seconds), grouped by class and top
     * frames, most frequent first. A CI log then names the culprit. Reflective for the same reason as the
     * meter (the tests compile in module weft.core, which does not read jdk.jfr).
     */
    public static String allocationSites(final Runnable round) {
        java.nio.file.Path file = null;
        try {
            final Class<?> recording = Class.forName("jdk.jfr.Recording");
            final Object rec = recording.getConstructor().newInstance();
            for (final String event : new String[] {"jdk.ObjectAllocationSample", "jdk.ObjectAllocationInNewTLAB",
                "jdk.ObjectAllocationOutsideTLAB"}) {
                final Object settings = recording.getMethod("enable", String.class).invoke(rec, event);
                Class.forName("jdk.jfr.EventSettings").getMethod("withStackTrace").invoke(settings);
            }
            recording.getMethod("start").invoke(rec);
            final long end = System.nanoTime() + 2_000_000_000L;
            do {
                round.run();
            } while (System.nanoTime() < end);
            recording.getMethod("stop").invoke(rec);
            file = java.nio.file.Files.createTempFile("weft-alloc-", ".jfr");
            recording.getMethod("dump", java.nio.file.Path.class).invoke(rec, file);
            recording.getMethod("close").invoke(rec);
            final java.util.List<?> events = (java.util.List<?>) Class.forName("jdk.jfr.consumer.RecordingFile")
                .getMethod("readAllEvents", java.nio.file.Path.class).invoke(null, file);
            final long me = Thread.currentThread().threadId();
            final java.util.Map<String, Integer> sites = new java.util.HashMap<>();
            for (final Object e : events) {
                final Object thread = call(e, "getThread");
                if (thread == null || (long) call(thread, "getJavaThreadId") != me) {
                    continue;
                }
                final StringBuilder b = new StringBuilder(String.valueOf(call(call(e, "getClass", "objectClass"),
                    "getName")));
                final Object trace = call(e, "getStackTrace");
                if (trace != null) {
                    final java.util.List<?> frames = (java.util.List<?>) call(trace, "getFrames");
                    for (int i = 0; i < Math.min(8, frames.size()); i++) {
                        final Object m = call(frames.get(i), "getMethod");
                        b.append("\n      at ").append(call(call(m, "getType"), "getName")).append('.')
                            .append(call(m, "getName")).append(':').append(call(frames.get(i), "getLineNumber"));
                    }
                }
                sites.merge(b.toString(), 1, Integer::sum);
            }
            final StringBuilder out = new StringBuilder("\nallocation sites (JFR events on this thread):");
            sites.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(5)
                .forEach(x -> out.append("\n  ").append(x.getValue()).append(" x ").append(x.getKey()));
            return sites.isEmpty() ? "\n(no JFR allocation event on this thread)" : out.toString();
        } catch (final ReflectiveOperationException | java.io.IOException | RuntimeException e) {
            return "\n(allocation sites unavailable: " + e + ")";
        } finally {
            if (file != null) {
                try {
                    java.nio.file.Files.deleteIfExists(file);
                } catch (final java.io.IOException e) {
                    System.err.println("could not delete " + file + ": " + e);
                }
            }
        }
    }

    private static Object call(final Object target, final String method, final Object... args)
        throws ReflectiveOperationException {
        if (args.length == 0) {
            return target.getClass().getMethod(method).invoke(target);
        }
        return target.getClass().getMethod(method, String.class).invoke(target, args);
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
