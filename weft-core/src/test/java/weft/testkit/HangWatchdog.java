package weft.testkit;

import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Ends a test JVM whose test has run far past any test's limit, so that a hang cannot stall the build.
 * JUnit's {@code @Timeout} interrupts a test thread, which a thread blocked in a native call (a read, an
 * epoll wait, a futex) never notices; this watchdog, registered for every test through the JUnit
 * extension service file, prints every thread's stack to stderr and to {@code target/hang-dumps/} and
 * halts the JVM, which surefire then reports as a crashed test and {@code ./weft test} counts as a failure.
 *
 * <p>One daemon thread per JVM checks a deadline that each test moves; nothing is made per test. The
 * limit is {@code weft.test.hangLimitSeconds} (600 by default; the slowest tests take about a minute).
 */
public final class HangWatchdog implements BeforeTestExecutionCallback, AfterTestExecutionCallback {
    private static final long LIMIT_NS = TimeUnit.SECONDS.toNanos(Long.getLong("weft.test.hangLimitSeconds", 600));
    private static volatile long deadline = Long.MAX_VALUE;
    private static volatile String running = "";

    static {
        final Thread t = new Thread(HangWatchdog::watch, "weft-test-hang-watchdog");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void beforeTestExecution(final ExtensionContext context) {
        running = context.getRequiredTestClass().getName() + "." + context.getDisplayName();
        deadline = System.nanoTime() + LIMIT_NS;
    }

    @Override
    public void afterTestExecution(final ExtensionContext context) {
        deadline = Long.MAX_VALUE;
    }

    private static void watch() {
        while (true) {
            try {
                Thread.sleep(1000);
            } catch (final InterruptedException e) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                final StringBuilder b = new StringBuilder("\nweft-test-hang-watchdog: ").append(running)
                    .append(" still running after ").append(TimeUnit.NANOSECONDS.toSeconds(LIMIT_NS))
                    .append(" s (weft.test.hangLimitSeconds): halting this test JVM. Threads:\n");
                for (final Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                    b.append('"').append(e.getKey().getName()).append("\" ").append(e.getKey().getState()).append('\n');
                    for (final StackTraceElement f : e.getValue()) {
                        b.append("    at ").append(f).append('\n');
                    }
                }
                // also to a file: what the JVM printed last may not reach surefire before the halt
                final Path dump = Path.of("target", "hang-dumps", running.replaceAll("[^A-Za-z0-9._-]", "_") + "-"
                    + ProcessHandle.current().pid() + ".txt");
                try {
                    Files.createDirectories(dump.getParent());
                    Files.writeString(dump, b);
                    b.append("(also in ").append(dump.toAbsolutePath()).append(")\n");
                } catch (final IOException | RuntimeException e) {
                    b.append("(could not write ").append(dump).append(": ").append(e).append(")\n");
                }
                System.err.print(b);
                System.err.flush();
                System.out.flush();
                try {
                    Thread.sleep(500); // let surefire's stream channel carry the dump out
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Runtime.getRuntime().halt(3);
            }
        }
    }
}
