package weft.shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static weft.shmem.PeChecks.check;

/**
 * Contexts from several threads ({@link ShmemConformanceTest}): each of 3 threads per PE creates a private
 * context (its own worker), fetch-adds a counter on every PE and puts its block into the right neighbour,
 * then quiets its context; the main thread keeps the default context progressing (tests) until the threads
 * are done. Every PE then checks the counter and the blocks. Then contexts on teams: PE numbers of a
 * context on the reversed world team and on the even team name their members, not world PEs.
 */
final class ShmemCtxPe {
    private static final int THREADS = 3;
    private static final int K = 50;

    private ShmemCtxPe() {
    }

    /**
     * Every PE's main thread blocks in calls on a context of its own (its own worker), and nothing else
     * progresses the default worker, which the other PEs' contexts reach: over tcp a blocked call must still
     * serve them, or every PE waits for the others.
     */
    static void mainThreadOnly(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final MemorySegment counter = shmem.calloc(1, 8);
        final MemorySegment word = shmem.calloc(1, 8);
        word.set(ValueLayout.JAVA_LONG, 0, 1000L + me);
        shmem.barrierAll();
        try (ShmemCtx ctx = shmem.ctxCreate(0)) {
            for (int i = 0; i < K * 4; i++) {
                for (int pe = 0; pe < n; pe++) {
                    if (pe != me) {
                        ctx.longAtomicFetchAdd(counter, 1, pe);
                        check(ctx.longG(word, pe) == 1000L + pe, "get from PE " + pe + " through a context");
                    }
                }
            }
            ctx.quiet();
        }
        shmem.barrierAll();
        check(counter.get(ValueLayout.JAVA_LONG, 0) == (long) (n - 1) * K * 4, "every context fetch-add arrived: "
            + counter.get(ValueLayout.JAVA_LONG, 0));
        shmem.barrierAll();
        shmem.free(word);
        shmem.free(counter);
    }

    static void run(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final int right = (me + 1) % n;
        final int left = (me + n - 1) % n;
        final MemorySegment counter = shmem.calloc(1, 8);
        final MemorySegment blocks = shmem.calloc(THREADS * 64L, 8);
        final MemorySegment idle = shmem.calloc(1, 8);
        final AtomicInteger done = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            threads.add(Thread.ofPlatform().name("ctx-" + t).start(() -> {
                try (ShmemCtx ctx = shmem.ctxCreate(Shmem.CTX_PRIVATE)) {
                    for (int i = 0; i < K; i++) {
                        for (int pe = 0; pe < n; pe++) {
                            ctx.longAtomicFetchAdd(counter, 1, pe);
                        }
                    }
                    final long[] block = new long[64];
                    java.util.Arrays.fill(block, me * 100L + id);
                    ctx.longPutNbi(blocks.asSlice(id * 512L), block, 64, right);
                    ctx.quiet();
                } catch (final Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.incrementAndGet();
                }
            }));
        }
        while (done.get() < THREADS) {
            shmem.longTest(idle, Shmem.CMP_NE, 0); // progresses the default worker, which serves the peers
        }
        for (final Thread t : threads) {
            try {
                t.join();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a context thread failed", failure.get());
        }
        shmem.barrierAll();
        check(counter.get(ValueLayout.JAVA_LONG, 0) == (long) n * THREADS * K, "every context's fetch-adds arrived: "
            + counter.get(ValueLayout.JAVA_LONG, 0));
        for (int id = 0; id < THREADS; id++) {
            check(blocks.get(ValueLayout.JAVA_LONG, id * 512L + 63 * 8) == left * 100L + id, "block of thread " + id);
        }
        shmem.barrierAll();
        teamContexts(shmem, counter, blocks, idle);
        shmem.free(idle);
        shmem.free(blocks);
        shmem.free(counter);
    }

    /**
     * Runs {@code body} in a thread of its own while this thread progresses the default worker: a context's
     * blocking operation progresses only the context's worker, and over tcp the target's default worker
     * serves it.
     */
    private static void withProgress(final Shmem shmem, final MemorySegment idle, final Runnable body) {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread t = Thread.ofPlatform().name("team-ctx").start(() -> {
            try {
                body.run();
            } catch (final Throwable e) {
                failure.set(e);
            }
        });
        while (t.isAlive()) {
            shmem.longTest(idle, Shmem.CMP_NE, 0);
        }
        if (failure.get() != null) {
            throw new AssertionError("a team context thread failed", failure.get());
        }
    }

    private static void teamContexts(final Shmem shmem, final MemorySegment counter, final MemorySegment slots,
                                     final MemorySegment idle) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        counter.set(ValueLayout.JAVA_LONG, 0, 0);
        slots.fill((byte) 0);
        shmem.barrierAll();
        final ShmemTeam reversed = shmem.teamSplitStrided(Shmem.TEAM_WORLD, n - 1, -1, n, null, 0);
        withProgress(shmem, idle, () -> {
            try (ShmemCtx ctx = shmem.teamCreateCtx(reversed, Shmem.CTX_PRIVATE)) {
                check(ctx.getTeam() == reversed, "a team context's team");
                ctx.longP(slots.asSlice(8L * me), me + 1, 1);               // team PE 1 = world PE n - 2
                ctx.longAtomicFetchAdd(counter, me + 1, 0);                   // team PE 0 = world PE n - 1
                ctx.quiet();
                check(ctx.longG(slots.asSlice(8L * me), 1) == me + 1, "a team context reads team PE 1");
                PeChecks.expect(IllegalArgumentException.class, "of the context's team", () -> ctx.longP(slots, 1, n));
                ctx.quiet();
            }
        });
        final ShmemTeam even = shmem.teamSplitStrided(Shmem.TEAM_WORLD, 0, 2, (n + 1) / 2, null, 0);
        if (even != Shmem.TEAM_INVALID) {
            withProgress(shmem, idle, () -> {
                try (ShmemCtx ctx = shmem.teamCreateCtx(even, Shmem.CTX_PRIVATE)) {
                    ctx.longAtomicAdd(counter, 1000, shmem.teamNPes(even) - 1); // the last even world PE
                    ctx.quiet();
                }
            });
        }
        PeChecks.expect(IllegalArgumentException.class, "not a valid team", () -> shmem.teamCreateCtx(Shmem.TEAM_INVALID, 0));
        shmem.barrierAll();
        if (me == n - 2) {
            for (int p = 0; p < n; p++) {
                check(slots.get(ValueLayout.JAVA_LONG, 8L * p) == p + 1, "team context put from PE " + p);
            }
        }
        final int lastEven = (n - 1) / 2 * 2;
        final long adds = (me == n - 1 ? (long) n * (n + 1) / 2 : 0) + (me == lastEven ? 1000L * ((n + 1) / 2) : 0);
        check(counter.get(ValueLayout.JAVA_LONG, 0) == adds, "team context atomics landed on the team's PEs: "
            + counter.get(ValueLayout.JAVA_LONG, 0) + " on PE " + me + ", expected " + adds);
        shmem.teamDestroy(reversed);
        shmem.teamDestroy(even);
        shmem.barrierAll();
    }
}
