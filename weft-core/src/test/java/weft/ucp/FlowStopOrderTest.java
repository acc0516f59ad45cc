package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A STOP is not starved by the receiver's own replies. A flooded receiver whose lane back to the sender is
 * full queues its EAGER_GET_DONE replies (they go ahead of the endpoint's queue); a STOP decided meanwhile
 * must not wait behind the replies of messages read after it, or each reply hands the sender a slot back,
 * the sender sends again, the receiver replies again ahead of the STOP, and the flood overshoots the budget
 * by whatever the sender sends until the replies happen to drain (11.5 MB against a 1 MiB budget was seen).
 * Two workers in one thread; the sender's receive FIFO is filled first so that every reply queues.
 */
@Timeout(60)
class FlowStopOrderTest {
    private static final long BUDGET = 256 * 1024;
    private static final int MESSAGE = 30_000; // GET-based eager over shm; 32 KiB in the unexpected pool
    private static final int COUNT = 40;       // within the sender's 64 pool slots and the receiver's FIFO

    @Test
    void stopGoesAheadOfRepliesQueuedAfterIt() {
        final Config cfg = Config.global().with("UNEXPECTED_BUDGET", Long.toString(BUDGET));
        try (Context ctx = Context.builder().transports("shm", "self").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            final Endpoint ba = b.connect(a.address());
            final MemorySegment one = arena.allocate(8);
            final Request rb = b.recvTag(arena.allocate(8), 0, 8, 1, -1L);
            final Request ra = a.recvTag(arena.allocate(8), 0, 8, 1, -1L);
            TwoWorkers.settle(a, b, ab.sendTagSync(1, one, 0, 8)); // sync: wired both ways
            TwoWorkers.settle(a, b, ba.sendTagSync(1, one, 0, 8));
            TwoWorkers.settle(a, b, rb);
            TwoWorkers.settle(a, b, ra);
            assertTrue(ab.thresholds.eagerGet(MESSAGE), "the test needs GET-based eager over shm");

            // 1. a stops progressing; b fills a's receive FIFO until its next send must wait
            final List<Request> fill = new ArrayList<>();
            while (fill.isEmpty() || fill.getLast().isCompleted()) {
                fill.add(ba.sendTag(2, one, 0, 8));
                assertTrue(fill.size() < 100_000, "the receive FIFO never filled");
            }
            // 2. a floods b with GET-based eager messages (each header goes to b's FIFO at once)
            final List<Request> sends = new ArrayList<>();
            for (int i = 0; i < COUNT; i++) {
                final MemorySegment m = arena.allocate(MESSAGE);
                m.fill((byte) i);
                sends.add(ab.sendTag(100 + i, m, 0, MESSAGE));
            }
            // 3. b reads them all: past the budget it decides STOP; every reply queues (a's FIFO is full)
            for (int i = 0; i < 50; i++) {
                b.progress();
            }
            assertTrue(b.flow.stopped(), "b should be over its budget: " + b.unexpected.inUse());
            final Endpoint toA = pairedWith(b, ab);
            int repliesAhead = 0;
            int repliesBehind = 0;
            boolean seenStop = false;
            for (Request r = toA.queue.head(); r != null; r = r.nextSend) {
                if (r.kind == Request.CONTROL && r.control.amId == AmId.FLOW) {
                    assertEquals(FlowControl.STOP, r.control.value);
                    seenStop = true;
                } else if (r.kind == Request.CONTROL && r.control.amId == AmId.EAGER_GET_DONE) {
                    if (seenStop) {
                        repliesBehind++;
                    } else {
                        repliesAhead++;
                    }
                }
            }
            assertTrue(seenStop, "the STOP should wait in b's queue (a's FIFO is full)");
            // b crossed the budget at message BUDGET / 32 KiB + 1; only replies of messages read before are ahead
            final int crossing = (int) (BUDGET / 32768) + 1;
            assertTrue(repliesAhead <= crossing, repliesAhead + " replies wait ahead of the STOP, "
                + repliesBehind + " behind it: the STOP must go before the replies of messages read after it");
            assertTrue(repliesBehind >= COUNT - crossing - 1, "replies of later messages: " + repliesBehind);

            // 4. nothing is lost: a takes its FIFO, then everything is received and checked
            for (final Request r : fill) {
                final MemorySegment d = arena.allocate(8);
                TwoWorkers.settle(a, b, a.recvTag(d, 0, 8, 2, -1L));
            }
            for (int i = 0; i < COUNT; i++) {
                final MemorySegment d = arena.allocate(MESSAGE);
                final Request r = b.recvTag(d, 0, MESSAGE, 100 + i, -1L);
                TwoWorkers.settle(a, b, r);
                TwoWorkers.settle(a, b, sends.get(i));
                for (int k = 0; k < MESSAGE; k += 997) {
                    assertEquals((byte) i, d.get(ValueLayout.JAVA_BYTE, k), "message " + i + " byte " + k);
                }
            }
            for (final Request r : fill) {
                TwoWorkers.settle(a, b, r);
            }
            assertEquals(0, b.unexpected.inUse());
        }
    }

    /**
     * A long backlog leaves in bounded batches, so that the worker reads its interfaces (and a peer's STOP)
     * between them even when the peer drains as fast as it sends; and all of it arrives. The receive FIFO
     * is made large (256 cells) so that the lane alone would let 1.28 MB go in one call.
     */
    @Test
    void aBacklogLeavesInBoundedBatches() {
        final Config cfg = Config.global().with("SHM_FIFO_SIZE", "256");
        try (Context ctx = Context.builder().transports("shm", "self").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment one = arena.allocate(8);
            final Request rb = b.recvTag(arena.allocate(8), 0, 8, 1, -1L);
            TwoWorkers.settle(a, b, ab.sendTagSync(1, one, 0, 8));
            TwoWorkers.settle(a, b, rb);
            final int size = 5000;   // one bcopy message, one FIFO cell each
            final int count = 1200;  // far more than b's receive FIFO holds: the rest queues at a
            final List<Request> sends = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                final MemorySegment m = arena.allocate(size); // a queued send reads its buffer when it leaves
                m.fill((byte) i);
                sends.add(ab.sendTag(1000 + i, m, 0, size));
            }
            final int queued = queued(ab);
            assertTrue(queued > 2 * 256, "only " + queued + " sends queued");
            for (int i = 0; i < 100; i++) {
                b.progress(); // b empties its FIFO: a's lane has room for 256 messages
            }
            a.progress();
            final long left = (long) (queued - queued(ab)) * size;
            assertTrue(left > 0 && left < SendQueue.MAX_BYTES_PER_PROGRESS + size,
                left + " bytes left in one progress call");
            for (int i = 0; i < count; i++) {
                final MemorySegment d = arena.allocate(size);
                TwoWorkers.settle(a, b, b.recvTag(d, 0, size, 1000 + i, -1L));
                assertEquals((byte) i, d.get(ValueLayout.JAVA_BYTE, size - 1), "message " + i);
                TwoWorkers.settle(a, b, sends.get(i));
            }
        }
    }

    private static int queued(final Endpoint ep) {
        int n = 0;
        for (Request r = ep.queue.head(); r != null; r = r.nextSend) {
            n++;
        }
        return n;
    }

    /** b's endpoint whose peer is {@code ab} (the one b's replies and FLOW messages for a's sends go through). */
    private static Endpoint pairedWith(final Worker b, final Endpoint ab) {
        Endpoint found = null;
        for (final Endpoint e : b.epTable.live()) {
            if (e.remoteId == ab.id) {
                found = e;
            }
        }
        assertNotNull(found, "b has no endpoint paired with a's");
        return found;
    }
}
