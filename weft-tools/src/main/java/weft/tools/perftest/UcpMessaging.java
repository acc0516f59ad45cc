package weft.tools.perftest;

import weft.ucp.AmMessage;
import weft.ucp.AmRecvHandler;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.uct.IoVector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * How a two-sided protocol-layer test moves one message: the part that differs between the tag,
 * stream and active-message tests. The loops ({@link UcpInitiator}, {@link UcpResponder}) start
 * sends, post receives and poll them, so a new API is one small subclass here. One instance per
 * side (it holds that side's posted receives). Nothing here allocates per message.
 *
 * <p>Receives: the latency tests keep one posted; the bandwidth tests keep up to -O tag receives
 * posted at once (as ucx_perftest, whose receiver posts receives up to its outstanding window), so
 * a rendezvous protocol can have several messages in flight. They share the one receive buffer.
 *
 * <p>Every message carries {@link #pattern} bytes; the receiver checks the first and last byte of
 * each message and clears them before the next receive, so a lost, shifted or unwritten message
 * fails the run instead of being timed.
 */
abstract class UcpMessaging {
    /** Tag of the test's messages (both directions: the two workers match independently). */
    static final long DATA_TAG = 0x7765667470657266L; // "weftperf"
    /** Tag of the responder's end-of-stream message in bandwidth tests. */
    static final long FIN_TAG = DATA_TAG + 1;
    /** Active-message id of the ucp_am tests. */
    static final int AM_ID = 1;

    /**
     * Messages whose bytes were checked; rendezvous active messages that overlapped in the receive
     * buffer count with the batch whose last one was checked.
     */
    long checked;

    /** The messaging of {@code p}'s test for one side. */
    static UcpMessaging of(final PerfParams p) {
        final PerfTestKind test = p.test();
        if (p.iov() && test.command() != PerfTestKind.Command.TAG && test.command() != PerfTestKind.Command.TAG_SYNC) {
            throw new PerfException("-D iov is supported by the tag tests only, not by " + test.testName());
        }
        final int window = test.type() == PerfTestKind.Type.PINGPONG ? 1 : p.maxOutstanding();
        return switch (test.command()) {
            case TAG -> p.iov() ? new TagIov(false, p.sizes(), window) : new Tag(false, window);
            case TAG_SYNC -> p.iov() ? new TagIov(true, p.sizes(), window) : new Tag(true, window);
            case STREAM -> new Stream();
            case UCP_AM -> new ActiveMessage(p.maxOutstanding());
            default -> throw new PerfException(test.testName() + " is not a two-sided protocol-layer test");
        };
    }

    /** The byte at {@code i} of every test message (period 251: a shifted stream does not match). */
    static byte pattern(final long i) {
        return (byte) (i % 251 * 7 + 3);
    }

    /** Fills {@code buf[0, length)} with the pattern. */
    static void fill(final MemorySegment buf, final long length) {
        for (long i = 0; i < length; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, pattern(i));
        }
    }

    /** Sets up what this side needs on its worker and buffers before the peer sends (handlers, lists). */
    void bind(final Worker worker, final MemorySegment sendBuf, final MemorySegment recvBuf, final long length) {
    }

    /** Starts sending {@code buf[0, length)} to the peer; the request may be {@link Request#done}. */
    abstract Request send(Endpoint ep, MemorySegment buf, long length);

    /** How many receives this side may keep posted at once. */
    int window() {
        return 1;
    }

    /** Receives posted and not yet seen complete. */
    abstract int posted();

    /** Starts receiving the next message into {@code buf[0, length)}; the caller keeps below {@link #window()}. */
    abstract void postReceive(Worker worker, Endpoint ep, MemorySegment buf, long length);

    /**
     * How many posted receives completed since the last call; their status and the messages'
     * first and last byte are checked (throws on a failure), and as many new receives may be posted.
     */
    abstract int receivesDone(String what);

    /** True once the one posted receive completed (see {@link #receivesDone}). */
    final boolean receiveDone(final String what) {
        return receivesDone(what) > 0;
    }

    /** Releases the receives a failed or ended run left posted. */
    abstract void abandonReceive();

    /** Messages whose bytes were checked (first and last against the pattern). */
    final long checked() {
        return checked;
    }

    /** Checks the first and last byte of a received message and clears them for the next one. */
    final void checkAndClear(final MemorySegment data, final long offset, final long length, final boolean clear) {
        if (length == 0) {
            checked++;
            return;
        }
        final byte first = data.get(ValueLayout.JAVA_BYTE, offset);
        final byte last = data.get(ValueLayout.JAVA_BYTE, offset + length - 1);
        if (first != pattern(0) || last != pattern(length - 1)) {
            throw corrupt(first, last, length);
        }
        if (clear) {
            data.set(ValueLayout.JAVA_BYTE, offset, (byte) ~pattern(0));
            data.set(ValueLayout.JAVA_BYTE, offset + length - 1, (byte) ~pattern(length - 1));
        }
        checked++;
    }

    private PerfException corrupt(final byte first, final byte last, final long length) {
        return new PerfException("message " + (checked + 1) + " arrived corrupted: first byte " + first + " last byte "
            + last + ", expected " + pattern(0) + " and " + pattern(length - 1));
    }

    /** Sends the bandwidth tests' end-of-stream message (empty, always a plain tag send). */
    final Request sendFin(final Endpoint ep, final MemorySegment buf) {
        return ep.sendTag(FIN_TAG, buf, 0, 0);
    }

    /** Receives the end-of-stream message. */
    final Request receiveFin(final Worker worker, final MemorySegment buf) {
        return worker.recvTag(buf, 0, 0, FIN_TAG, -1L);
    }

    /** Receives that return a request: tag and stream. */
    abstract static class RequestReceive extends UcpMessaging {
        /** Posted receives in posting order (a ring): they match, and mostly complete, in that order. */
        private final Request[] ring;
        private int head;
        private int count;
        private MemorySegment buf;
        private long length;

        RequestReceive(final int window) {
            ring = new Request[Math.max(1, window)];
        }

        abstract Request startReceive(Worker worker, Endpoint ep, MemorySegment buf, long length);

        @Override
        final int window() {
            return ring.length;
        }

        @Override
        final int posted() {
            return count;
        }

        @Override
        final void postReceive(final Worker worker, final Endpoint ep, final MemorySegment buf, final long length) {
            this.buf = buf;
            this.length = length;
            final int tail = head + count < ring.length ? head + count : head + count - ring.length;
            ring[tail] = startReceive(worker, ep, buf, length);
            count++;
        }

        @Override
        final int receivesDone(final String what) {
            // in posting order: O(1) per poll at any window (a rendezvous finishing early waits its turn)
            int n = 0;
            while (count > 0 && ring[head].isCompleted()) {
                final Request r = ring[head];
                ring[head] = null;
                head = head + 1 == ring.length ? 0 : head + 1;
                count--;
                UcpOutstanding.finish(r, what);
                n++;
            }
            if (n > 0) {
                // receives still posted write the same buffer (with the same bytes): it is cleared only
                // when none is left, so that a clear never races with a receive in progress
                checkAndClear(buf, 0, length, count == 0);
                checked += n - 1;
            }
            return n;
        }

        @Override
        final void abandonReceive() {
            while (count > 0) {
                ring[head].release();
                ring[head] = null;
                head = head + 1 == ring.length ? 0 : head + 1;
                count--;
            }
        }
    }

    /** tag_lat, tag_bw (eager or rendezvous by size) and their synchronous variants. */
    static final class Tag extends RequestReceive {
        private final boolean sync;

        Tag(final boolean sync, final int window) {
            super(window);
            this.sync = sync;
        }

        @Override
        Request send(final Endpoint ep, final MemorySegment buf, final long length) {
            return sync ? ep.sendTagSync(DATA_TAG, buf, 0, length) : ep.sendTag(DATA_TAG, buf, 0, length);
        }

        @Override
        Request startReceive(final Worker worker, final Endpoint ep, final MemorySegment buf, final long length) {
            return worker.recvTag(buf, 0, length, DATA_TAG, -1L, null, null);
        }
    }

    /**
     * The tag tests with -D iov: each message is sent from, and received into, a scatter/gather list
     * of the -s lengths over the side's buffers (built once; as ucx_perftest's iov datatype).
     */
    static final class TagIov extends RequestReceive {
        private final boolean sync;
        private final long[] lengths;
        private final IoVector sendIov;
        private final IoVector recvIov;

        TagIov(final boolean sync, final long[] lengths, final int window) {
            super(window);
            this.sync = sync;
            this.lengths = lengths;
            this.sendIov = new IoVector(lengths.length);
            this.recvIov = new IoVector(lengths.length);
        }

        @Override
        void bind(final Worker worker, final MemorySegment sendBuf, final MemorySegment recvBuf, final long length) {
            long off = 0;
            for (final long l : lengths) {
                sendIov.add(sendBuf, off, l);
                recvIov.add(recvBuf, off, l);
                off += l;
            }
        }

        @Override
        Request send(final Endpoint ep, final MemorySegment buf, final long length) {
            return sync ? ep.sendTagSync(DATA_TAG, sendIov, null) : ep.sendTag(DATA_TAG, sendIov, null);
        }

        @Override
        Request startReceive(final Worker worker, final Endpoint ep, final MemorySegment buf, final long length) {
            return worker.recvTag(recvIov, DATA_TAG, -1L, null, null);
        }
    }

    /** stream_lat, stream_bw: the endpoint's byte stream, each receive waiting for a whole message. */
    static final class Stream extends RequestReceive {
        Stream() {
            super(1); // a stream receive takes the next bytes: one at a time, as ucx_perftest
        }

        @Override
        Request send(final Endpoint ep, final MemorySegment buf, final long length) {
            return ep.sendStream(buf, 0, length);
        }

        @Override
        Request startReceive(final Worker worker, final Endpoint ep, final MemorySegment buf, final long length) {
            return ep.recvStream(buf, 0, length, true);
        }
    }

    /**
     * ucp_am_lat, ucp_am_bw: active messages without user header to {@link #AM_ID}. A receive is a
     * count: the handler checks each message's bytes where they arrived (as ucx_perftest, it does not
     * copy eager data) and pulls rendezvous data into the receive buffer.
     */
    static final class ActiveMessage extends UcpMessaging implements AmRecvHandler {
        private final UcpOutstanding rendezvous;
        private Worker worker;
        private MemorySegment recvBuf;
        private long length;
        private long posted;
        private long arrived;
        /** Receives reported done by {@link #receivesDone}. */
        private long consumed;
        /** Rendezvous messages received since the buffer was last checked (checked with the next batch). */
        private long pendingChecks;
        private PerfException failure;

        ActiveMessage(final int maxOutstanding) {
            // a sender's send completes when its last protocol message leaves (put: the ATP), so more
            // rendezvous than its window can be open here: those whose completing message is on its way
            rendezvous = new UcpOutstanding(4 * maxOutstanding + 64);
        }

        @Override
        void bind(final Worker worker, final MemorySegment sendBuf, final MemorySegment recvBuf, final long length) {
            this.worker = worker;
            this.recvBuf = recvBuf;
            this.length = length;
            worker.setAmHandler(AM_ID, this, 0);
        }

        @Override
        public Status onReceive(final MemorySegment header, final long headerOffset, final long headerLength,
                                final MemorySegment data, final long dataOffset, final long dataLength,
                                final AmMessage message) {
            if (failure != null) {
                return Status.OK;
            }
            if (dataLength != length) {
                failure = new PerfException("active message of " + dataLength + " bytes, expected " + length);
            } else if (message.isRendezvous()) {
                if (rendezvous.isFull()) {
                    failure = new PerfException("more than " + rendezvous.count() + " rendezvous messages at once");
                    worker.releaseAmData(message);
                    return Status.OK;
                }
                final Request r = worker.recvAmData(message, recvBuf, 0, length);
                if (r.isCompleted()) {
                    completeRendezvous(r);
                } else {
                    rendezvous.add(r, "receiving active-message data");
                }
            } else {
                try {
                    checkAndClear(data, dataOffset, dataLength, false);
                    arrived++;
                } catch (final PerfException e) {
                    failure = e;
                }
            }
            return Status.OK;
        }

        private void completeRendezvous(final Request r) {
            UcpOutstanding.finish(r, "receiving active-message data");
            arrived++;
            if (rendezvous.count() == 0) {
                checkAndClear(recvBuf, 0, length, true);
                checked += pendingChecks;
                pendingChecks = 0;
            } else {
                pendingChecks++;
            }
        }

        @Override
        Request send(final Endpoint ep, final MemorySegment buf, final long length) {
            return ep.sendAm(AM_ID, buf, 0, length, 0);
        }

        @Override
        void postReceive(final Worker worker, final Endpoint ep, final MemorySegment buf, final long length) {
            posted++;
        }

        @Override
        int posted() {
            return (int) (posted - consumed);
        }

        @Override
        int receivesDone(final String what) {
            if (failure != null) {
                throw failure;
            }
            if (rendezvous.count() > 0) {
                final int n = rendezvous.reap(what);
                arrived += n;
                // the rendezvous receives share the one receive buffer: check (and clear) it only when none is
                // writing to it any more, so that a clear never races with a receive still in progress
                if (n > 0 && rendezvous.count() == 0) {
                    checkAndClear(recvBuf, 0, length, true);
                    checked += pendingChecks + n - 1;
                    pendingChecks = 0;
                } else {
                    pendingChecks += n;
                }
            }
            // a receive is a count: the handler takes every message, also before its receive is posted
            final int done = (int) (Math.min(arrived, posted) - consumed);
            consumed += done;
            return done;
        }

        @Override
        void abandonReceive() {
            rendezvous.releaseAll();
        }
    }
}
