package weft.runtime;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

/**
 * The job this process joined through {@link Runtime#init()}, from the first {@code init} until the
 * process exits, and what ends it: a clean leave at exit, or an abort of the whole job.
 *
 * <ul>
 *   <li>The bootstrap is finalized by a shutdown hook, not by {@link Runtime#close()}: an exception thrown
 *       inside {@code try (Runtime rt = Runtime.init()) {...}} reaches the uncaught-exception handler only
 *       after {@code close}, and the job must still be abortable then (after a PMI finalize it is not).
 *       A later {@code init} in the same process joins the same job again.</li>
 *   <li>An exception that nothing catches, in any thread, is printed as Java prints it and then
 *       {@linkplain #abort aborts} the job ({@code WEFT_ABORT_ON_UNCAUGHT}, default on), as MPI's
 *       {@code MPI_ERRORS_ARE_FATAL}: the other PEs are stopped by the launcher or resource manager instead
 *       of waiting for this one until their bootstrap timeout.</li>
 * </ul>
 */
final class ProcessJob {
    /** Exit status of a PE that dies of an uncaught exception (as the java launcher's). */
    static final int UNCAUGHT_STATUS = 1;
    private static ProcessJob current; // guarded by ProcessJob.class

    private final Bootstrap bootstrap;
    private final IntConsumer exit;
    private final AtomicBoolean ended = new AtomicBoolean();
    private int allgatherRound; // guarded by this

    /** A job over {@code bootstrap}; {@code exit} ends the process (tests pass a stand-in). */
    ProcessJob(final Bootstrap bootstrap, final IntConsumer exit) {
        this.bootstrap = bootstrap;
        this.exit = exit;
    }

    /** The job this process joined, or null. */
    static synchronized ProcessJob current() {
        return current;
    }

    /**
     * Makes {@code bootstrap} the process's job: finalized when the process exits, and aborted by an
     * uncaught exception when {@code abortOnUncaught}.
     */
    static synchronized ProcessJob start(final Bootstrap bootstrap, final boolean abortOnUncaught) {
        if (current != null) {
            throw new IllegalStateException("this process already joined a job");
        }
        final ProcessJob job = new ProcessJob(bootstrap, ProcessJob::exitProcess);
        java.lang.Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("weft-job-leave")
            .unstarted(job::leave));
        if (abortOnUncaught) {
            final Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
            Thread.setDefaultUncaughtExceptionHandler((t, e) -> job.uncaught(t, e, previous));
        }
        current = job;
        return job;
    }

    Bootstrap bootstrap() {
        return bootstrap;
    }

    /** The next allgather round of this job (shared by every Runtime of the process, so rounds never mix). */
    synchronized int nextAllgatherRound() {
        return allgatherRound++;
    }

    /** Leaves the job cleanly (finalize), unless it was aborted or left already. */
    void leave() {
        if (ended.compareAndSet(false, true)) {
            try {
                bootstrap.close();
            } catch (final RuntimeException e) {
                System.err.println("weft: leaving the job failed: " + e.getMessage());
            }
        }
    }

    /**
     * Prints what killed {@code thread} (the previous default handler does, if there was one), then aborts
     * the job.
     */
    void uncaught(final Thread thread, final Throwable e, final Thread.UncaughtExceptionHandler previous) {
        try {
            if (bootstrap.globalExitStatus() != null) {
                return; // a peer that left with another PE's global exit: no error of this program (finally exits)
            } else if (previous != null) {
                previous.uncaughtException(thread, e);
            } else {
                System.err.print("Exception in thread \"" + thread.getName() + "\" ");
                e.printStackTrace(System.err);
            }
        } finally {
            abort(UNCAUGHT_STATUS, "uncaught " + e.getClass().getName() + " in thread \"" + thread.getName() + "\""
                + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    /**
     * Ends the whole job: tells the bootstrap (once; later callers only exit), then exits this process with
     * {@code status} (0 becomes 1: an aborted job never reports success).
     */
    void abort(final int status, final String reason) {
        final Integer global = bootstrap.globalExitStatus();
        if (global != null) {
            exit.accept(global); // another PE ended the job on purpose: what failed here is a consequence
            return;
        }
        final int code = status == 0 ? 1 : status;
        JobLayout l = null;
        try {
            l = bootstrap.layout();
        } catch (final RuntimeException ignored) {
            // the layout is only for the message
        }
        final String who = l == null ? "" : "rank " + l.rank() + " of " + l.size() + " ";
        end(code, "weft: " + who + "aborts the job through the " + bootstrap.name() + " bootstrap (exit status " + code
            + "): " + reason, "abort", () -> bootstrap.abort(code, reason));
    }

    /**
     * Ends the whole job with {@code status} as it is (0 stays 0): the bootstrap tells every PE to exit with
     * it ({@link Bootstrap#globalExit}), then this process exits with it.
     */
    void globalExit(final int status, final String reason) {
        end(status, "weft: " + reason + ": every PE exits with status " + status, "end",
            () -> bootstrap.globalExit(status, reason));
    }

    /** Prints {@code message} and runs {@code tell} (once per process; later callers only exit), then exits. */
    private void end(final int code, final String message, final String verb, final Runnable tell) {
        if (ended.compareAndSet(false, true)) {
            System.err.println(message);
            System.err.flush();
            try {
                tell.run();
            } catch (final RuntimeException e) {
                System.err.println("weft: the " + bootstrap.name() + " bootstrap could not " + verb + " the job: "
                    + e.getMessage());
            }
        }
        exit.accept(code);
    }

    /** System.exit, or halt when the process is already shutting down (exit would then block for good). */
    private static void exitProcess(final int code) {
        final Thread probe = new Thread(() -> { });
        try {
            java.lang.Runtime.getRuntime().addShutdownHook(probe);
            java.lang.Runtime.getRuntime().removeShutdownHook(probe);
        } catch (final IllegalStateException shuttingDown) {
            java.lang.Runtime.getRuntime().halt(code);
        }
        System.exit(code);
    }
}
