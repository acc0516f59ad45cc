package weft.uct.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import weft.ucs.Status;
import weft.uct.Capability;
import weft.uct.PendingRequest;

/**
 * Flow control: with a receiver that does not progress, a transport with bounded buffers answers
 * NO_RESOURCE after a bounded number of messages (and keeps answering it: no unbounded
 * buffering), pendingAdd queues requests, and once the receiver progresses every pending request
 * is dispatched in order and every message arrives, in order.
 */
@Timeout(90)
class FlowControlConformanceTest {
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long FLOOD_BYTES = 32L << 20;
    private static final int FLOOD_MESSAGES = 100_000;
    private static final int PENDING = 500;

    /** Sends message {@code seq} once (no retry): bcopy if advertised, else short. */
    private static final class Sender {
        private final Fixture f;
        private final boolean bcopy;
        private final int size;
        private final MemorySegment payload;

        Sender(final Fixture f) {
            this.f = f;
            this.bcopy = f.attrs.has(Capability.AM_BCOPY) && f.attrs.amMaxBcopy() >= 8;
            this.size = bcopy ? (int) Math.min(f.attrs.amMaxBcopy(), 4096) : Math.min(f.attrs.amMaxShort(), 1024);
            this.payload = f.local(size);
            Patterns.fill(payload, 0, size, 1);
        }

        int bytes() {
            return bcopy ? size : size + 8;
        }

        Status send(final long seq) {
            if (bcopy) {
                return Status.ofLength(f.ep.amBcopy(7, (dest, off, cap) -> {
                    if (cap < size) {
                        throw new AssertionError("AM bcopy packer capacity " + cap + " < " + size + " (amMaxBcopy "
                            + f.attrs.amMaxBcopy() + ")");
                    }
                    MemorySegment.copy(payload, 0, dest, off, size);
                    dest.set(LONG_LE, off, seq);
                    return size;
                }));
            }
            return f.ep.amShort(7, seq, payload, 0, size);
        }
    }

    /** A queued send of one sequence number. */
    private static final class Request extends PendingRequest {
        private final Sender sender;
        private final long seq;
        int dispatched;
        Status last;

        Request(final Sender sender, final long seq) {
            this.sender = sender;
            this.seq = seq;
        }

        @Override
        public Status dispatch() {
            last = sender.send(seq);
            if (last != Status.NO_RESOURCE) {
                dispatched++;
            }
            return last == Status.NO_RESOURCE ? Status.NO_RESOURCE : Status.OK;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#withAmToAnotherInterface") // a loopback peer receives synchronously
    void noResourceThenPendingRequestsDispatchInOrder(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            f.assumeCap(Capability.PENDING, "PENDING");
            Assumptions.assumeTrue(f.attrs.has(Capability.AM_BCOPY) || f.attrs.has(Capability.AM_SHORT),
                c + " has neither AM bcopy nor short");
            final Sender s = new Sender(f);
            f.inbox.reset(true);
            f.peer.pause();
            long seq = 0;
            Status st = Status.OK;
            final long floodLimit = Math.min(FLOOD_MESSAGES, FLOOD_BYTES / s.bytes());
            while (seq < floodLimit && (st = s.send(seq)) == Status.OK) {
                seq++;
            }
            if (st != Status.NO_RESOURCE) {
                assertEquals(Status.OK, st, "AM #" + seq + " while the receiver is paused on " + c);
                // no bounded buffer (or a synchronous receiver): check delivery and the BUSY answer
                f.peer.resume();
                f.awaitMessages(seq, "flood without NO_RESOURCE");
                assertNull(f.inbox.orderError(), "order of the flood on " + c);
                assertEquals(Status.BUSY, f.ep.pendingAdd(new Request(s, seq)),
                    "pendingAdd while resources are available must answer BUSY on " + c);
                Assumptions.abort(c + " accepted " + seq + " messages (" + seq * s.bytes() / 1024
                    + " KiB) without NO_RESOURCE while the receiver did not progress: no bounded send buffers"
                    + (f.peer.isLoopback() ? " (loopback delivers synchronously)" : ""));
            }
            final long first = seq;
            // bounded: progressing only the sender must reach a plateau where nothing more is accepted
            final long deadline = System.nanoTime() + 3_000_000_000L;
            long more = -1;
            int rounds = 0;
            while (more != 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(c + ": the sender kept accepting messages while the receiver did not"
                        + " progress: " + first + " before the first NO_RESOURCE, " + (seq - first) + " more over "
                        + rounds + " rounds (unbounded buffering)");
                }
                for (int i = 0; i < 1000; i++) {
                    f.worker.progress();
                }
                more = 0;
                while (seq < first * 4 + 1000 && s.send(seq) == Status.OK) {
                    seq++;
                    more++;
                }
                rounds++;
            }
            final List<Request> reqs = new ArrayList<>();
            for (int i = 0; i < PENDING; i++) {
                final Request r = new Request(s, seq + i);
                reqs.add(r);
                assertEquals(Status.OK, f.ep.pendingAdd(r), "pendingAdd #" + i + " after NO_RESOURCE on " + c);
            }
            final long total = seq + PENDING;
            f.peer.resume();
            f.awaitMessages(total, first + " before NO_RESOURCE, " + (seq - first) + " while the receiver was"
                + " paused, then " + PENDING + " pending");
            assertNull(f.inbox.orderError(), "order of flood + pending messages on " + c);
            for (int i = 0; i < PENDING; i++) {
                final Request r = reqs.get(i);
                assertEquals(1, r.dispatched, "dispatches of pending request #" + i + " on " + c);
                assertEquals(Status.OK, r.last, "status of pending request #" + i + " on " + c);
                assertEquals(false, r.isQueued(), "pending request #" + i + " is still queued on " + c);
            }
            assertEquals(total, f.inbox.count(), "messages received (no duplicates) on " + c);
        }
    }
}
