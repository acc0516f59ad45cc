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
