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
 * are done. Every PE then checks the counter and the blocks.
 */
final class ShmemCtxPe {
    private static final int THREADS = 3;
    private static final int K = 50;

    private ShmemCtxPe() {
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
        shmem.free(idle);
        shmem.free(blocks);
        shmem.free(counter);
    }
}
