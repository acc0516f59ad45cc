package weft.ucp.conformance;

import weft.ucs.Status;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Worker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** One PE of a {@link Scenario}: its worker, its endpoint to the other PE, an arena, and helpers. */
public final class Pe {
    /** Tags with this top byte are reserved for the harness (barrier). */
    public static final long HARNESS_TAG = 0xFE00_0000_0000_0000L;
    private final int rank;
    private final Worker worker;
    private final Endpoint ep;
    private final Arena arena;
    private final String tls;
    private final boolean crossProcess;
    private long barrierSeq;

    Pe(final int rank, final Worker worker, final Endpoint ep, final Arena arena, final String tls,
       final boolean crossProcess) {
        this.rank = rank;
        this.worker = worker;
        this.ep = ep;
        this.arena = arena;
        this.tls = tls;
        this.crossProcess = crossProcess;
    }

    /** 0 or 1. */
    public int rank() {
        return rank;
    }

    /** This PE's worker. */
    public Worker worker() {
        return worker;
    }

    /** The endpoint to the other PE. */
    public Endpoint ep() {
        return ep;
    }

    /** Memory freed when the scenario ends. */
    public Arena arena() {
        return arena;
    }

    /** The transport set, e.g. {@code "shm,cma,self"}. */
    public String tls() {
        return tls;
    }

    /** True when the other PE is another JVM process. */
    public boolean crossProcess() {
        return crossProcess;
    }

    /** Progresses until {@code r} completes or {@code seconds} pass (then fails with a message). */
    public Status await(final Request r, final double seconds) {
        final long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (!r.isCompleted()) {
            if (worker.progress() == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("PE " + rank + ": request did not complete in " + seconds + " s: " + r);
            }
        }
        return r.status();
    }

    /**
     * How long a scenario waits for one step before it calls the step stuck: a bound for a hang, not a speed
     * limit, so long enough for a machine whose two cores run forty busy threads (the suite beside a build).
     */
    public static final double WAIT_SECONDS = 60;

    /** {@link #await(Request, double)} with {@link #WAIT_SECONDS}. */
    public Status await(final Request r) {
        return await(r, WAIT_SECONDS);
    }

    /** Progresses for about {@code millis} (to let messages arrive). */
    public void progressFor(final long millis) {
        final long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) {
            worker.progress();
        }
    }

    /** Both PEs wait here for each other (a tagged message each way), {@link #WAIT_SECONDS} at most. */
    public void barrier() {
        barrier(WAIT_SECONDS);
    }

    /** {@link #barrier()} with a longer bound (for a peer busy with gigabytes). */
    public void barrier(final double seconds) {
        final long tag = HARNESS_TAG | (barrierSeq++ & 0xffff_ffffL);
        final MemorySegment one = arena.allocate(8);
        final Request r = worker.recvTag(one, 0, 8, tag, -1L);
        final Request s = ep.sendTag(tag, one, 0, 8);
        await(s, seconds);
        await(r, seconds);
        s.release();
        r.release();
    }

    /**
     * A segment of {@code n} bytes filled with a pattern derived from {@code seed}. Unlike
     * {@link weft.uct.conformance.Patterns} the bytes do not depend on {@code n}, so a truncated receive
     * can be checked against a prefix of the sender's pattern.
     */
    public MemorySegment pattern(final long n, final int seed) {
        final MemorySegment m = arena.allocate(Math.max(1, n), 64);
        for (long i = 0; i < n; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed * 7 + (i >>> 12)));
        }
        return m;
    }

    /** Fails if {@code m[0,n)} is not {@link #pattern}{@code (n, seed)}. */
    public static void checkPattern(final MemorySegment m, final long n, final int seed, final String what) {
        for (long i = 0; i < n; i++) {
            final byte want = (byte) (i * 31 + seed * 7 + (i >>> 12));
            if (m.get(ValueLayout.JAVA_BYTE, i) != want) {
                throw new AssertionError(what + ": byte " + i + " of " + n + " is " + m.get(ValueLayout.JAVA_BYTE, i)
                    + ", want " + want);
            }
        }
    }
}
