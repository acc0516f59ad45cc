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
    /** Windows {@link #fewestBytes} runs before it may fail, however long they take. */
    private static final int MIN_WINDOWS = 3;

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
     * Steady-state allocation of {@code window}, for zero-allocation tests: runs it until one run allocates
     * less than {@code limit} bytes, and returns what that run allocated. Steady state is reached by running
     * the measured path itself (the JIT compiles it, pools and caches fill), not after a fixed count of
     * warm-up rounds, which a compiler thread starved on a busy machine can outlast; and it is judged by the
     * best window, not every window, as a recompilation or a preemption can land in any one. A path that
     * allocates per operation does so in every window: once {@code budgetMillis} have passed (and at least
     * {@value #MIN_WINDOWS} windows ran) with none under the limit, this throws an AssertionError giving
     * {@code what}, every window's figure and {@link #allocationSites where} the window allocates.
     */
    public static long fewestBytes(final String what, final Runnable window, final long limit,
                                   final long budgetMillis) {
        final long start = System.nanoTime();
        final long deadline = start + budgetMillis * 1_000_000L;
        final java.util.List<Long> figures = new java.util.ArrayList<>();
        long bytes;
        do {
            final long before = allocatedBytes();
            window.run();
            bytes = allocatedBytes() - before;
            figures.add(bytes); // outside the window: boxing here is not measured
        } while (bytes >= limit && (figures.size() < MIN_WINDOWS || System.nanoTime() - deadline < 0));
        System.out.println(what + ": bytes allocated per window " + list(figures));
        if (bytes >= limit) {
            String sites;
            try {
                sites = allocationSites(window);
            } catch (final AssertionError e) {
                sites = "\n(allocation sites unavailable: " + e + ")";
            }
            throw new AssertionError(what + ": no window allocated less than " + limit + " bytes: " + figures.size()
                + " windows in " + (System.nanoTime() - start) / 1_000_000L + " ms, the fewest "
                + java.util.Collections.min(figures) + " bytes; bytes per window " + list(figures) + sites);
        }
        return bytes;
    }

    /** Every window's figure; of thousands of short windows, the first and the last 20. */
    private static String list(final java.util.List<Long> figures) {
        final int n = figures.size();
        return n <= 40 ? figures.toString()
            : figures.subList(0, 20) + " ... " + (n - 40) + " more ... " + figures.subList(n - 20, n);
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
