package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.TagInfo;
import weft.ucp.ThreadMode;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.uct.conformance.Resources;
import weft.uct.conformance.Waits;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Thread modes enforced, MULTI under concurrent load, wakeup without spinning, the progress thread. */
@Timeout(60)
class ThreadModeConformanceTest {
    static {
        Two.warmUp();
    }

    @Test
    void singleRejectsASecondThread() throws Exception {
        try (Context ctx = Two.context("self", Config.global()); Worker w = ctx.newWorker(ThreadMode.SINGLE)) {
            w.progress(); // binds the worker to this thread
            final CompletableFuture<Throwable> f = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    w.progress();
                    f.complete(null);
                } catch (final Throwable t) {
                    f.complete(t);
                }
            });
            final Throwable t = f.get(10, TimeUnit.SECONDS);
            assertTrue(t instanceof WeftException, "second thread must be refused, got " + t);
            assertTrue(t.getMessage().contains("SINGLE"), t.getMessage());
            w.progress(); // the owner still works
        }
    }

    @Test
    void serializedRejectsConcurrentEntry() throws Exception {
        try (Two t = new Two("shm,self", Config.global(), ThreadMode.SERIALIZED); Arena arena = Arena.ofShared()) {
            final Endpoint[] e = t.connectByAddress();
            final CountDownLatch inside = new CountDownLatch(1);
            final CountDownLatch tried = new CountDownLatch(1);
            final MemorySegment buf = arena.allocate(8);
            t.a.recvTag(buf, 0, 8, 3, -1L, null, r -> {
                inside.countDown(); // thread 1 is inside a.progress()
                try {
                    tried.await(10, TimeUnit.SECONDS);
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            e[1].sendTag(3, buf, 0, 8);
            final AtomicBoolean done = new AtomicBoolean();
            final Thread t1 = Thread.ofPlatform().start(() -> {
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (inside.getCount() > 0 && System.nanoTime() < deadline) {
                    t.a.progress();
                }
                done.set(true);
            });
            assertTrue(inside.await(10, TimeUnit.SECONDS), "callback ran");
            final WeftException ex = assertThrows(WeftException.class, t.a::progress);
            assertEquals(Status.BUSY, ex.status());
            assertTrue(ex.getMessage().contains("MULTI"), ex.getMessage());
            tried.countDown();
            t1.join(10_000);
            assertTrue(done.get());
            t.a.progress(); // sequential use from another thread is fine
        }
    }

    @Test
    void serializedBatchedProgressHoldsTheWorkerUntilWorkThenLetsGo() throws Exception {
        try (Two t = new Two("shm,self", Config.global(), ThreadMode.SERIALIZED); Arena arena = Arena.ofShared()) {
            final Endpoint[] e = t.connectByAddress();
            final MemorySegment in = arena.allocate(8);
            final MemorySegment out = arena.allocate(8);
            out.set(ValueLayout.JAVA_LONG, 0, 77);
            final Request r = t.a.recvTag(in, 0, 8, 5, -1L);
            final CompletableFuture<Integer> work = new CompletableFuture<>();
            final Thread t1 = Thread.ofPlatform().start(() -> {
                try {
                    int w = 0;
                    while (!r.isCompleted()) { // work left from the connect may end the first batches
                        try {
                            w = t.a.progress(Integer.MAX_VALUE); // returns only once it did some work
                        } catch (final WeftException ex) {
                            if (ex.status() != Status.BUSY) {
                                throw ex;
                            } // the main thread was inside for a poll: enter again
                        }
                    }
                    work.complete(w);
                } catch (final Throwable ex) {
                    work.completeExceptionally(ex);
                }
            });
            // while t1's batch spins, the worker is t1's: another thread is refused, as for one poll
            final long deadline = System.nanoTime() + 10_000_000_000L;
            WeftException busy = null;
            while (busy == null && System.nanoTime() < deadline) {
                // not a tight loop: a thread that re-enters at once can keep t1 out on a busy machine; once t1
                // is in, its batch holds the worker until the send below gives it work
                LockSupport.parkNanos(1_000_000);
                try {
                    t.a.progress();
                } catch (final WeftException ex) {
                    busy = ex;
                }
            }
            assertTrue(busy != null && busy.status() == Status.BUSY, "a second thread entered a batched progress");
            final Request s = e[1].sendTag(5, out, 0, 8);
            while (!s.isCompleted()) {
                t.b.progress();
            }
            s.release();
            assertTrue(work.get(10, TimeUnit.SECONDS) > 0, "the batch returns the work that ended it");
            t1.join(10_000);
            Waits.until(r::isCompleted, t.a::progress, 10_000, () -> "the receive");
            assertEquals(77, in.get(ValueLayout.JAVA_LONG, 0));
            r.release();
            t.a.progress(1); // the batch gave the worker back: this thread enters without BUSY
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void multiWorksWithSeveralThreadsSendingAndReceivingConcurrently(final String tls) throws Exception {
        final int perThread = tls.startsWith("tcp") ? 120 : 200; // a second or two of contention
        try (Two t = new Two(tls, Config.global(), ThreadMode.MULTI); Arena arena = Arena.ofShared()) {
            final Endpoint[] e = t.connectByAddress();
            final long[] sizes = {8, 100, 3000, 20_000, e[0].rendezvousThreshold() + 100};
            final List<Thread> threads = new ArrayList<>();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            // A -> B with two sender threads on A and two receiver threads on B; B -> A with one each way
            final int[][] flows = {{0, 0}, {0, 1}, {1, 2}}; // {direction, stream id}
            for (final int[] flow : flows) {
                final Worker sw = flow[0] == 0 ? t.a : t.b;
                final Worker rw = flow[0] == 0 ? t.b : t.a;
                final Endpoint ep = e[flow[0]];
                final int stream = flow[1];
                threads.add(Thread.ofPlatform().name("send-" + stream).unstarted(() -> run(failure, () -> {
                    final MemorySegment[] src = new MemorySegment[sizes.length];
                    for (int k = 0; k < sizes.length; k++) {
                        src[k] = pattern(arena, sizes[k], stream * 7 + k);
                    }
                    for (int i = 0; i < perThread; i++) {
                        final int k = i % sizes.length;
                        final Request s = ep.sendTag((long) stream << 32 | i, src[k], 0, sizes[k]);
                        if (s.awaitStatus().isError()) {
                            throw new AssertionError("send " + i + " failed: " + s.status());
                        }
                        s.release();
                    }
                })));
                threads.add(Thread.ofPlatform().name("recv-" + stream).unstarted(() -> run(failure, () -> {
                    final MemorySegment dst = arena.allocate(sizes[sizes.length - 1]);
                    final TagInfo info = new TagInfo();
                    final MemorySegment[] want = new MemorySegment[sizes.length];
                    for (int k = 0; k < sizes.length; k++) {
                        want[k] = pattern(arena, sizes[k], stream * 7 + k);
                    }
                    for (int i = 0; i < perThread; i++) {
                        final int k = i % sizes.length;
                        final Request r = rw.recvTag(dst, 0, sizes[k], (long) stream << 32 | i, -1L, info, null);
                        if (r.awaitStatus() != Status.OK || info.length() != sizes[k]) {
                            throw new AssertionError("stream " + stream + " receive " + i + ": " + r.status() + " "
                                + info + ", want " + sizes[k] + " bytes");
                        }
                        if (dst.asSlice(0, sizes[k]).mismatch(want[k]) != -1) {
                            throw new AssertionError("stream " + stream + " message " + i + " corrupted");
                        }
                        r.release();
                    }
                })));
            }
            final long t0 = System.nanoTime();
            threads.forEach(Thread::start);
            for (final Thread th : threads) {
                th.join(Math.max(1, 30_000 - (System.nanoTime() - t0) / 1_000_000));
                if (th.isAlive()) {
                    final StringBuilder sb = new StringBuilder(th.getName() + " stuck:");
                    for (final StackTraceElement el : th.getStackTrace()) {
                        sb.append("\n  at ").append(el);
                    }
                    System.out.println(sb);
                    failure.compareAndSet(null, new AssertionError(th.getName() + " did not finish"));
                }
            }
            System.out.printf("MULTI %s: %d messages in %d ms%n", tls, perThread * flows.length,
                (System.nanoTime() - t0) / 1_000_000);
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }

    /** CPU time of the calling thread (java.management is reached reflectively: weft.core does not read it). */
    private static long threadCpuNs() {
        try {
            final Object bean = Class.forName("java.lang.management.ManagementFactory")
                .getMethod("getThreadMXBean").invoke(null);
            return (long) Class.forName("java.lang.management.ThreadMXBean").getMethod("getCurrentThreadCpuTime")
                .invoke(bean);
        } catch (final ReflectiveOperationException e) {
            throw new AssertionError("no thread CPU time", e);
        }
    }

    private static MemorySegment pattern(final Arena arena, final long n, final int seed) {
        final MemorySegment m = arena.allocate(n);
        for (long i = 0; i < n; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return m;
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void run(final AtomicReference<Throwable> failure, final Body b) {
        try {
            b.run();
        } catch (final Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void waitForEventsSleepsWithoutSpinningAndWakesWhenAMessageArrives(final String tls) throws Exception {
        try (Two t = new Two(tls, Config.global()); Arena arena = Arena.ofShared()) {
            final Endpoint[] e = t.connectByAddress();
            t.progressUntil(() -> t.a.endpoints().size() == 1 && t.b.endpoints().size() == 1, 5, "wired");
            for (int i = 0; i < 200; i++) {
                t.progressBoth();
            }
            final MemorySegment buf = arena.allocate(64);
            final CountDownLatch posted = new CountDownLatch(1);
            final CompletableFuture<long[]> result = new CompletableFuture<>();
            Thread.ofPlatform().name("sleeper").start(() -> {
                try {
                    final Request r = t.b.recvTag(buf, 0, 64, 11, -1L);
                    final long cpu0 = threadCpuNs();
                    posted.countDown();
                    int sleeps = 0;
                    final long deadline = System.nanoTime() + 10_000_000_000L;
                    while (!r.isCompleted() && System.nanoTime() < deadline) {
                        if (t.b.progress() == 0) {
                            t.b.waitForEvents(-1); // no limit: must still sleep, not spin
                            sleeps++;
                        }
                    }
                    final long arrived = System.nanoTime();
                    result.complete(new long[] {r.isCompleted() ? 1 : 0, threadCpuNs() - cpu0, arrived,
                        sleeps});
                    r.release();
                } catch (final Throwable th) {
                    result.completeExceptionally(th);
                }
            });
            assertTrue(posted.await(10, TimeUnit.SECONDS));
            Thread.sleep(800); // the receiver sleeps meanwhile
            final long sent = System.nanoTime();
            buf.set(ValueLayout.JAVA_LONG, 0, 42);
            final Request s = e[0].sendTag(11, arena.allocate(64).fill((byte) 5), 0, 64);
            final long[] r = result.get(15, TimeUnit.SECONDS);
            s.release();
            assertEquals(1, r[0], "message received");
            final long wakeMs = (r[2] - sent) / 1_000_000;
            final long cpuMs = r[1] / 1_000_000;
            System.out.printf("waitForEvents over %s: woke %d ms after the send, %d ms CPU in ~800 ms idle, %d sleeps%n",
                tls, wakeMs, cpuMs, r[3]);
            assertTrue(wakeMs < Waits.bound(0), "woke " + wakeMs + " ms after the send");
            assertTrue(cpuMs < 200, "used " + cpuMs + " ms of CPU while idle: it spins");
        }
    }

    @Test
    void signalWakesAThreadBlockedInWaitForEvents() throws Exception {
        try (Context ctx = Two.context("shm,self", Config.global()); Worker w = ctx.newWorker(ThreadMode.SERIALIZED)) {
            w.progress();
            final CompletableFuture<Long> woke = new CompletableFuture<>();
            final CountDownLatch sleeping = new CountDownLatch(1);
            Thread.ofPlatform().start(() -> {
                sleeping.countDown();
                final long t0 = System.nanoTime();
                final boolean ev = w.waitForEvents(20_000);
                woke.complete(ev ? (System.nanoTime() - t0) / 1_000_000 : -1);
            });
            assertTrue(sleeping.await(5, TimeUnit.SECONDS));
            Thread.sleep(300);
            w.signal();
            final long ms = woke.get(10, TimeUnit.SECONDS);
            assertTrue(ms >= 0 && ms < 5000, "woken by signal after " + ms + " ms");
            assertFalse(w.waitForEvents(0), "no event pending now");
        }
    }

    @Test
    void progressThreadServesTheWorkerAndStopsOnClose() throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Two t = new Two("shm,self", Config.global(), ThreadMode.MULTI); Arena arena = Arena.ofShared()) {
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class, () -> {
                try (Context c = Two.context("self", Config.global()); Worker s = c.newWorker()) {
                    s.startProgressThread();
                }
            }).status());
            t.a.startProgressThread();
            final Endpoint[] e = t.connectByAddress();
            final MemorySegment buf = arena.allocate(64);
            final AtomicReference<String> cbThread = new AtomicReference<>();
            final Request r = t.a.recvTag(buf, 0, 64, 21, -1L);
            t.a.recvTag(buf, 0, 64, 22, -1L, null, x -> cbThread.set(Thread.currentThread().getName()));
            final Request s1 = e[1].sendTag(21, arena.allocate(64).fill((byte) 1), 0, 64);
            final Request s2 = e[1].sendTag(22, arena.allocate(64).fill((byte) 1), 0, 64);
            final Request back = e[0].sendTag(23, arena.allocate(8), 0, 8); // sent by the user's thread
            final Request got = t.b.recvTag(arena.allocate(8), 0, 8, 23, -1L);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while ((!r.isCompleted() || cbThread.get() == null || !got.isCompleted()) && System.nanoTime() < deadline) {
                t.b.progress(); // only b is progressed by this thread; a has its progress thread
                Thread.onSpinWait();
            }
            assertEquals(Status.OK, r.status());
            assertEquals(Status.OK, got.status());
            assertTrue(cbThread.get() != null && cbThread.get().startsWith("weft-progress"), "callback on " + cbThread.get());
            for (final Request x : List.of(r, s1, s2, back, got)) {
                x.release();
            }
            t.a.close(); // stops the thread
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(th -> th.getName().startsWith("weft-progress")), "progress thread stopped");
        }
        Resources.assertBackTo(before, "progress thread", 3000);
    }
}
