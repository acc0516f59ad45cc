package weft.tools.perftest;

import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Worker;

import java.lang.foreign.MemorySegment;

/**
 * How a protocol-layer test moves one message: the part that differs between the tag, stream and
 * active-message tests. The loops ({@link UcpInitiator}, {@link UcpResponder}) only start sends,
 * start receives and poll the requests they get, so a new API is one small subclass here.
 * Implementations allocate nothing per message.
 */
abstract class UcpMessaging {
    /** Tag of the test's messages (both directions: the two workers match independently). */
    static final long DATA_TAG = 0x7765667470657266L; // "weftperf"
    /** Tag of the responder's end-of-stream message in bandwidth tests. */
    static final long FIN_TAG = DATA_TAG + 1;

    /** The messaging of {@code test}. */
    static UcpMessaging of(final PerfTestKind test) {
        return switch (test.command()) {
            case TAG -> new Tag(false);
            case TAG_SYNC -> new Tag(true);
            // TODO(ucp am/stream): STREAM -> new Stream() (ep.sendStream / ep.recvStream, wait-all),
            //  UCP_AM -> new ActiveMessage() (ep.sendAm; receive = a handler counting arrivals).
            default -> throw new PerfException(test.testName() + " is not a protocol-layer test");
        };
    }

    /** Starts sending {@code buf[0, length)} to the peer; the request may be {@link Request#done}. */
    abstract Request send(Endpoint ep, MemorySegment buf, long length);

    /** Starts receiving the next message into {@code buf[0, length)}. */
    abstract Request receive(Worker worker, Endpoint ep, MemorySegment buf, long length);

    /** Sends the bandwidth tests' end-of-stream message (empty, always a plain tag send). */
    final Request sendFin(final Endpoint ep, final MemorySegment buf) {
        return ep.sendTag(FIN_TAG, buf, 0, 0);
    }

    /** Receives the end-of-stream message. */
    final Request receiveFin(final Worker worker, final MemorySegment buf) {
        return worker.recvTag(buf, 0, 0, FIN_TAG, -1L);
    }

    /** tag_lat, tag_bw (eager or rendezvous by size) and their synchronous variants. */
    static final class Tag extends UcpMessaging {
        private final boolean sync;

        Tag(final boolean sync) {
            this.sync = sync;
        }

        @Override
        Request send(final Endpoint ep, final MemorySegment buf, final long length) {
            return sync ? ep.sendTagSync(DATA_TAG, buf, 0, length) : ep.sendTag(DATA_TAG, buf, 0, length);
        }

        @Override
        Request receive(final Worker worker, final Endpoint ep, final MemorySegment buf, final long length) {
            return worker.recvTag(buf, 0, length, DATA_TAG, -1L, null, null);
        }
    }
}
