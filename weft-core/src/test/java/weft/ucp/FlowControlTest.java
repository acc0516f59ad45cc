package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Backpressure: a receiver that progresses but posts no receive holds about the unexpected budget, not
 * what the sender sends; a receiver that does not progress at all stops the sender. Nothing is lost in
 * either case. Two workers in one JVM, one thread progressing both.
 */
@Timeout(60)
class FlowControlTest {
    private static final long BUDGET = 256 * 1024;
    // STOP reaches the sender after what the transports already hold: a few messages in one thread
    private static final long SLACK = 256 * 1024;
    private static final long[] SIZES = {8, 1000, 5000, 20_000};

    private static Context context(final String tls) {
        return Context.builder().transports(tls.split(","))
            .config(Config.global().with("UNEXPECTED_BUDGET", Long.toString(BUDGET))).build();
    }

    private static void wire(final Worker a, final Worker b, final Endpoint ab, final Arena arena) {
        final MemorySegment one = arena.allocate(8);
        final Request r = b.recvTag(one, 0, 8, 1, -1L);
        final Request s = ab.sendTagSync(1, one, 0, 8); // sync: needs wireup both ways
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!(r.isCompleted() && s.isCompleted())) {
            a.progress();
            b.progress();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("wireup did not complete");
            }
        }
        r.release();
        s.release();
    }

    private static void fill(final MemorySegment m, final long n, final int seed) {
        for (long i = 0; i < n; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + seed));
        }
    }

    private static void check(final MemorySegment m, final long n, final int seed) {
        for (long i = 0; i < n; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * 13 + seed)) {
                throw new AssertionError("message " + seed + ": byte " + i + " of " + n + " is wrong");
            }
        }
    }

    /** Receives messages 0..count-1 (tags 100+i) in order, checks them and every send. */
    private static void drain(final Worker a, final Worker b, final List<Request> sends, final Arena arena,
                              final int count) {
        final List<Request> recvs = new ArrayList<>();
        final List<MemorySegment> bufs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final long n = SIZES[i % SIZES.length];
            final MemorySegment d = arena.allocate(n);
            bufs.add(d);
            recvs.add(b.recvTag(d, 0, n, 100 + i, -1L));
        }
        final long deadline = System.nanoTime() + 30_000_000_000L;
        for (int i = 0; i < count; i++) {
            final Request r = recvs.get(i);
            final Request s = sends.get(i);
            while (!(r.isCompleted() && s.isCompleted())) {
                a.progress();
                b.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("message " + i + " did not arrive: " + r + " / " + s);
                }
            }
            assertEquals(Status.OK, r.status(), "receive " + i);
            assertEquals(Status.OK, s.status(), "send " + i);
            check(bufs.get(i), SIZES[i % SIZES.length], i);
            r.release();
            s.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void receiverWithoutReceivesHoldsOnlyTheBudget(final String tls) {
        try (Context ctx = context(tls); Worker a = ctx.newWorker(); Worker b = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            wire(a, b, ab, arena);
            final List<Request> sends = new ArrayList<>();
            long sent = 0;
            long peak = 0;
            int pendingSeen = 0;
            int count = 0;
            while (sent < 10 * BUDGET) {
                final long n = SIZES[count % SIZES.length];
                final MemorySegment m = arena.allocate(n);
                fill(m, n, count);
                final Request s = ab.sendTag(100 + count, m, 0, n);
                sends.add(s);
                sent += n;
                count++;
                a.progress();
                b.progress(); // the receiver progresses, but posts nothing
                peak = Math.max(peak, b.unexpected.inUse());
                if (!s.isCompleted()) {
                    pendingSeen++;
                }
            }
            final long end = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < end) {
                a.progress();
                b.progress();
                peak = Math.max(peak, b.unexpected.inUse());
            }
            int incomplete = 0;
            for (final Request s : sends) {
                incomplete += s.isCompleted() ? 0 : 1;
            }
            System.out.printf("%s: sent %d bytes in %d messages; receiver peak %d bytes unexpected, %d reserved;"
                    + " %d sends waited, %d still waiting, %d STOPs%n", tls, sent, count, peak,
                b.unexpected.reserved(), pendingSeen, incomplete, b.flow.stops());
            assertTrue(b.flow.stops() > 0, "the receiver never told the sender to stop");
            assertTrue(peak <= BUDGET + SLACK, "receiver held " + peak + " bytes for a budget of " + BUDGET);
            assertTrue(b.unexpected.reserved() <= 2 * (BUDGET + SLACK), "pool grew to " + b.unexpected.reserved());
            assertTrue(incomplete > 0, "sends beyond the budget should wait at the sender");
            assertFalse(sends.get(sends.size() - 1).isCompleted(), "the last send waits");
            assertTrue(ab.queue.parked && !ab.sendPendingListed, "a stopped endpoint is not polled until GO");
            drain(a, b, sends, arena, count);
            assertFalse(ab.queue.parked);
            assertEquals(0, b.unexpected.inUse());
            assertFalse(b.flow.stopped(), "GO after the receiver drained");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void stalledReceiverStopsTheSender(final String tls) {
        try (Context ctx = context(tls); Worker a = ctx.newWorker(); Worker b = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            wire(a, b, ab, arena);
            final List<Request> sends = new ArrayList<>();
            int count = 0;
            long sent = 0;
            while (sent < 24L << 20) { // far more than any transport buffers
                final long n = SIZES[count % SIZES.length];
                final MemorySegment m = arena.allocate(n);
                fill(m, n, count);
                sends.add(ab.sendTag(100 + count, m, 0, n));
                sent += n;
                count++;
                a.progress(); // b is stalled: never progressed
            }
            final long end = System.nanoTime() + 100_000_000L;
            while (System.nanoTime() < end) {
                a.progress();
            }
            int incomplete = 0;
            for (final Request s : sends) {
                incomplete += s.isCompleted() ? 0 : 1;
            }
            System.out.printf("%s stalled receiver: %d of %d sends wait at the sender%n", tls, incomplete, count);
            assertTrue(incomplete > count / 2, "a stalled receiver should stop the sender; only " + incomplete
                + " of " + count + " sends wait");
            assertFalse(sends.get(sends.size() - 1).isCompleted());
            drain(a, b, sends, arena, count);
        }
    }

    /**
     * Messages nobody receives keep the pool over the budget; a receive posted afterwards for a new
     * message still gets it (the receiver lets its peers go on when it waits for something new).
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void unreceivedMessagesDoNotStallANewReceive(final String tls) {
        try (Context ctx = context(tls); Worker a = ctx.newWorker(); Worker b = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            wire(a, b, ab, arena);
            final List<Request> sends = new ArrayList<>();
            int count = 0;
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (!b.flow.stopped()) { // one message at a time until the receiver is over its budget
                final long n = SIZES[count % SIZES.length];
                final MemorySegment m = arena.allocate(n);
                fill(m, n, count);
                final Request s = ab.sendTag(100 + count, m, 0, n);
                sends.add(s);
                count++;
                // until delivered and the receiver idle: nothing stays queued at the sender
                int idle = 0;
                while (!s.isCompleted() || idle < 50) {
                    a.progress();
                    idle = b.progress() == 0 ? idle + 1 : 0;
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("flood message " + count + " not delivered: " + s + ", receiver "
                            + b.unexpected.inUse() + " bytes, stopped " + b.flow.stopped());
                    }
                }
            }
            for (int i = 0; i < 100; i++) { // the STOP reaches the sender
                a.progress();
                b.progress();
            }
            final MemorySegment x = arena.allocate(8);
            final Request sx = ab.sendTag(77, x, 0, 8);
            final long end = System.nanoTime() + 50_000_000L;
            while (System.nanoTime() < end) {
                a.progress();
                b.progress();
            }
            assertFalse(sx.isCompleted(), "the sender should be stopped");
            final Request rx = b.recvTag(arena.allocate(8), 0, 8, 77, -1L);
            while (!(rx.isCompleted() && sx.isCompleted())) {
                a.progress();
                b.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("a new receive was stalled by unreceived messages");
                }
            }
            assertEquals(Status.OK, rx.status());
            rx.release();
            sx.release();
            drain(a, b, sends, arena, count);
        }
    }
}
