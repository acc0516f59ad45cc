package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AtomicOp;
import weft.uct.conformance.Resources;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Atomicity domains never mix: one word of a target (transports shm, tcp) is hammered at the same time
 * by an initiator that reaches it over shm (CPU atomics on the mapping), one that reaches it over tcp
 * (executed by the target's progress) and the target's own CPU atomics, each on its own thread. Every
 * key has exactly one atomic lane, and every path ends in a CPU atomic on the same memory, so no
 * update is lost: the final values are exact.
 */
@Timeout(120)
class RmaAtomicDomainsTest {
    static {
        Two.warmUp();
    }

    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle I32 = ValueLayout.JAVA_INT.varHandle();
    private static final int ITERS = 300;

    @Test
    void shmTcpAndLocalAtomicsOnOneWordLoseNothing() throws Exception {
        final Resources.Snapshot before = Resources.take();
        final CompletableFuture<byte[]> targetAddr = new CompletableFuture<>();
        final CompletableFuture<byte[]> key = new CompletableFuture<>();
        final CompletableFuture<long[]> finals = new CompletableFuture<>();
        final AtomicBoolean initiatorsDone = new AtomicBoolean();
        final List<CompletableFuture<String>> lanes = List.of(new CompletableFuture<>(), new CompletableFuture<>());
        final List<Thread> threads = new ArrayList<>();
        final List<CompletableFuture<Void>> done = new ArrayList<>();
        final int[] finished = new int[1];
        // the target: progresses (serving tcp) and runs its own CPU atomics on the same words
        done.add(run(threads, "target", () -> {
            try (Context ctx = Two.context("shm,tcp,self", Config.global()); Worker w = ctx.newWorker();
                 MemoryMap heap = ctx.memMap(4096, 0)) {
                final MemorySegment m = heap.segment();
                m.fill((byte) 0);
                targetAddr.complete(w.address());
                key.complete(heap.packRkey());
                final long deadline = System.nanoTime() + 60_000_000_000L;
                for (int i = 0; i < ITERS; i++) {
                    I64.getAndAdd(m, 0L, 10L);
                    I32.getAndAdd(m, 8L, 10);
                    for (long cur = (long) I64.getVolatile(m, 16L); ; ) {
                        final long old = (long) I64.compareAndExchange(m, 16L, cur, cur + 1);
                        if (old == cur) {
                            break;
                        }
                        cur = old;
                    }
                    w.progress();
                }
                while (!initiatorsDone.get()) {
                    w.progress();
                    assertTrue(System.nanoTime() < deadline, "initiators did not finish");
                }
                finals.complete(new long[] {m.get(ValueLayout.JAVA_LONG, 0), m.get(ValueLayout.JAVA_INT, 8),
                    m.get(ValueLayout.JAVA_LONG, 16)});
            }
        }));
        // two initiators, one per transport
        final String[] sets = {"shm,self", "tcp,self"};
        for (int who = 0; who < 2; who++) {
            final int me = who;
            done.add(run(threads, "initiator-" + sets[me], () -> {
                try (Context ctx = Two.context(sets[me], Config.global()); Worker w = ctx.newWorker();
                     Arena arena = Arena.ofConfined()) {
                    final Endpoint ep = w.connect(targetAddr.get(20, TimeUnit.SECONDS));
                    try (Rkey rk = ep.unpackRkey(key.get(20, TimeUnit.SECONDS))) {
                        lanes.get(me).complete(rk.describe());
                        final MemorySegment res = arena.allocate(8);
                        final long b = rk.base();
                        long guess = 0;
                        for (int i = 0; i < ITERS; i++) {
                            final Status p = ep.atomicPost(AtomicOp.ADD, 1, b, rk);
                            assertTrue(p == Status.OK || p == Status.IN_PROGRESS, "post: " + p);
                            await(w, ep.atomicFetch(AtomicOp.ADD, 2, res, 0, b, rk));
                            await(w, ep.atomicFetch32(AtomicOp.ADD, 3, res, 0, b + 8, rk));
                            while (true) {
                                await(w, ep.atomicCswap(guess, guess + 1, res, 0, b + 16, rk));
                                final long old = res.get(ValueLayout.JAVA_LONG, 0);
                                if (old == guess) {
                                    guess++;
                                    break;
                                }
                                guess = old;
                            }
                        }
                        await(w, ep.flush());
                    }
                    synchronized (finished) {
                        if (++finished[0] == 2) {
                            initiatorsDone.set(true);
                        }
                    }
                    // keep serving our side until the target has read the words
                    final long deadline = System.nanoTime() + 60_000_000_000L;
                    while (!finals.isDone() && System.nanoTime() < deadline) {
                        w.progress();
                    }
                }
            }));
        }
        for (final CompletableFuture<Void> f : done) {
            f.get(100, TimeUnit.SECONDS);
        }
        for (final Thread t : threads) {
            t.join(5000);
        }
        assertTrue(lanes.get(0).get().contains("amo=shm"), "initiator over shm: " + lanes.get(0).get());
        assertTrue(lanes.get(1).get().contains("amo=tcp"), "initiator over tcp: " + lanes.get(1).get());
        final long[] v = finals.get();
        assertEquals(ITERS * (3L + 3L + 10L), v[0], "64-bit adds from shm, tcp and the target's CPU");
        assertEquals(ITERS * (3L + 3L + 10L), v[1], "32-bit adds from shm, tcp and the target's CPU");
        assertEquals(3L * ITERS, v[2], "cswap increments from shm, tcp and the target's CPU");
        Resources.assertBackTo(before, "atomics over shm + tcp + CPU", 3000);
    }

    private static void await(final Worker w, final Request r) {
        PeerFailureConformanceTest.await(w, r, 20, "an atomic");
        assertEquals(Status.OK, r.status());
        r.release();
    }

    interface Body {
        void run() throws Exception;
    }

    private static CompletableFuture<Void> run(final List<Thread> threads, final String name, final Body body) {
        final CompletableFuture<Void> f = new CompletableFuture<>();
        threads.add(Thread.ofPlatform().name(name).start(() -> {
            try {
                body.run();
                f.complete(null);
            } catch (final Throwable t) {
                f.completeExceptionally(t);
            }
        }));
        return f;
    }
}
