package weft.runtime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What ends the process's job: a clean leave, an abort, an uncaught exception; with a recording bootstrap
 * and a stand-in for System.exit (the real handler, hook and exit are exercised by PE processes:
 * {@code PmixFakeLibraryTest}, {@code SlurmJobTest}).
 */
class ProcessJobTest {
    private final List<String> calls = new ArrayList<>();
    private final List<Integer> exits = new ArrayList<>();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream savedErr;

    /** Records abort and close. */
    private final class Recording implements Bootstrap {
        @Override
        public String name() {
            return "test";
        }

        @Override
        public JobLayout layout() {
            return new JobLayout(2, 4, 0, 1, 2, "j");
        }

        @Override
        public void put(final String key, final byte[] value) {
        }

        @Override
        public void commit() {
        }

        @Override
        public void fence() {
        }

        @Override
        public byte[] get(final int rank, final String key) {
            return new byte[0];
        }

        @Override
        public void abort(final int status, final String reason) {
            calls.add("abort " + status + " " + reason);
        }

        @Override
        public void close() {
            calls.add("close");
        }
    }

    @BeforeEach
    void captureStderr() {
        savedErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreStderr() {
        System.setErr(savedErr);
    }

    private ProcessJob job() {
        return new ProcessJob(new Recording(), exits::add);
    }

    @Test
    void shouldPrintAnUncaughtExceptionThenAbortTheJobOnce() {
        final ProcessJob job = job();
        final Thread worker = new Thread(() -> { }, "worker");
        job.uncaught(worker, new IllegalStateException("boom"), null);
        job.uncaught(Thread.currentThread(), new IllegalStateException("again"), null);
        assertEquals(List.of("abort 1 uncaught java.lang.IllegalStateException in thread \"worker\": boom"), calls);
        assertEquals(List.of(1, 1), exits, "both dying threads exit with the uncaught-exception status");
        final String printed = err.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("Exception in thread \"worker\" java.lang.IllegalStateException: boom"), printed);
        assertTrue(printed.contains("weft: rank 2 of 4 aborts the job through the test bootstrap (exit status 1): "
            + "uncaught java.lang.IllegalStateException in thread \"worker\": boom"), printed);
        job.leave();
        assertEquals(1, calls.size(), "no finalize after an abort");
    }

    @Test
    void shouldLetAPreviousHandlerPrint() {
        final List<String> seen = new ArrayList<>();
        job().uncaught(Thread.currentThread(), new RuntimeException("x"), (t, e) -> seen.add(e.getMessage()));
        assertEquals(List.of("x"), seen);
        assertTrue(!err.toString(StandardCharsets.UTF_8).contains("java.lang.RuntimeException: x"), "printed twice");
        assertEquals(List.of(1), exits);
    }

    @Test
    void shouldNeverReportSuccessForAnAbortedJob() {
        job().abort(0, "asked to");
        assertEquals(List.of(1), exits);
        assertEquals(List.of("abort 1 asked to"), calls);
        job().abort(7, "seven");
        assertEquals(List.of(1, 7), exits);
    }

    @Test
    void shouldLeaveOnce() {
        final ProcessJob job = job();
        job.leave();
        job.leave();
        assertEquals(List.of("close"), calls);
        job.abort(3, "late");
        assertEquals(List.of("close"), calls, "a job already left cannot be aborted through its bootstrap");
        assertEquals(List.of(3), exits, "but the process still exits with the status");
    }

    @Test
    void shouldHandOutAllgatherRoundsOnce() {
        final ProcessJob job = job();
        assertEquals(0, job.nextAllgatherRound());
        assertEquals(1, job.nextAllgatherRound());
    }
}
