package weft.uct.conformance;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/** Bounded wait loops: progress, spin briefly when idle, then park; fail with a message at the deadline. */
public final class Waits {
    /** Default deadline of a wait in the conformance suite. */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;

    /**
     * What a busy machine may add to a configured time (a descheduled thread, a collection, compiles on
     * a starved core), in ms: system property {@code weft.test.timeAllowanceMs}, 5000 by default.
     */
    public static final long TIME_ALLOWANCE_MS = Long.getLong("weft.test.timeAllowanceMs", 5_000);

    /**
     * The upper bound for something that should happen within {@code configuredMs} (an interval or
     * timeout the test configured or relies on): that time plus {@link #TIME_ALLOWANCE_MS}. A test
     * asserting a time bound uses this rather than a guess of its own, so that it fails when the
     * mechanism is missing (detection through a 20-30 s fallback instead of the configured check) and
     * not when the machine is busy.
     */
    public static long bound(final long configuredMs) {
        return configuredMs + TIME_ALLOWANCE_MS;
    }

    private Waits() {
    }

    /**
     * One step of an idle backoff: resets on work, spins, then yields, then parks 50 us.
     *
     * @return the new idle count
     */
    public static int backoff(final int work, final int idle) {
        if (work > 0) {
            return 0;
        }
        if (idle < 200) {
            Thread.onSpinWait();
        } else if (idle < 400) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(50_000);
        }
        return idle + 1;
    }

    /** Progresses with {@code progress} until {@code done} or the deadline; fails with {@code what}. */
    public static void until(final BooleanSupplier done, final IntSupplier progress, final long timeoutMs,
                             final Supplier<String> what) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int idle = 0;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what.get());
            }
            idle = backoff(progress.getAsInt(), idle);
        }
    }
}
