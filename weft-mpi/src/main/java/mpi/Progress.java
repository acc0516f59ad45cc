package mpi;

import weft.ucp.Worker;

/**
 * One step of a wait: progress the worker, and when it had nothing to do for a while, let other threads run
 * if the node is oversubscribed (spinning first keeps short waits short; yielding keeps a long one from
 * starving a peer that shares this CPU). With a CPU per rank a wait only polls, as Open MPI's does: a yield on
 * a machine busy with other work can lose the CPU for a whole time slice, at every message. Except during the
 * warm-up ({@code WEFT_MPI_WARMUP_YIELD} after {@code MPI.Init}): the JIT's compiler threads then share the
 * rank's CPU (a rank bound to one core), and a long idle wait, which is the peer running slow code or
 * compiling, is when they cost the least; yielding there lets them run then rather than while this rank has
 * a message to answer. A step is a few
 * polls that end at the first one with work ({@link Worker#progress(int)}): the SERIALIZED worker of the
 * lower thread levels is then claimed once per step, not once per poll (that owner swap, an atomic update
 * and a release store, was a sixth of a waiting rank's time).
 */
final class Progress {
    /** Polls per step. */
    private static final int POLLS = 16;
    /** Idle steps spent spinning before the wait starts yielding (2000 idle polls). */
    private static final int SPIN = 2000 / POLLS;
    /** The same on a node whose ranks outnumber its CPUs (with the auto policy): one step, 16 polls. */
    private static final int CROWDED_SPIN = 1;
    /** Idle steps before an idle wait yields: {@link #SPIN} or {@link #CROWDED_SPIN}. */
    private static volatile int spinSteps = SPIN;
    /** Whether idle waits yield (decided at {@code MPI.Init}, see {@link #configure}). */
    private static volatile boolean yieldWhenIdle = true;
    /** For {@link #warmNanos} from {@link #warmStart} (MPI.Init) idle waits yield whatever the policy. */
    private static volatile long warmStart;
    private static volatile long warmNanos;

    private Progress() {
    }

    /**
     * Sets the wait policy from {@code WEFT_MPI_YIELD_WHEN_IDLE}: {@code auto} yields when this node runs more
     * ranks ({@code localRanks}) than it has CPUs; and for {@code warmNanos} from now
     * ({@code WEFT_MPI_WARMUP_YIELD}) idle waits yield whatever the policy.
     */
    static void configure(final String policy, final int localRanks, final long warmNanos) {
        warmStart = System.nanoTime();
        Progress.warmNanos = warmNanos;
        final boolean crowded = weft.ucs.Cpus.oversubscribed(localRanks); // the node's CPUs: binding leaves us one
        yieldWhenIdle = switch (policy) {
            case "y" -> true;
            case "n" -> false;
            default -> crowded;
        };
        // a crowded node's waiting rank holds a CPU the rank it waits for may need: it yields almost at once
        spinSteps = crowded && policy.equals("auto") ? CROWDED_SPIN : SPIN;
    }

    /**
     * Progresses {@code w} until it did some work, at most {@link #POLLS} times.
     *
     * @param idle the idle steps so far (0 to start)
     * @return the idle steps now: 0 after work was done
     */
    static int step(final Worker w, final int idle) {
        if (WinRequest.Group.anyActive) {
            WinRequest.Group.stepActive(); // request-based window operations with stages to go
        }
        if (w.progress(POLLS) != 0) {
            return 0;
        }
        if (yields(idle)) {
            Thread.yield();
        }
        return idle + 1;
    }

    /** Whether a wait idle for {@code idle} steps yields now. */
    static boolean yields(final int idle) {
        return idle >= spinSteps && (yieldWhenIdle || System.nanoTime() - warmStart < warmNanos);
    }
}
