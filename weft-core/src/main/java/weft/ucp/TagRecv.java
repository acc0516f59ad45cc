package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.MemoryCopy;

import java.lang.foreign.MemorySegment;

/**
 * A posted tag receive (one per worker): it takes the oldest matching unexpected message (eager data
 * copied out, fragments still arriving written straight into the receive from then on, an RTS handed to
 * {@link RndvRecv}), or waits in the {@link TagMatcher} for the eager or rendezvous handlers to match it.
 * The public calls are {@link Worker#recvTag}'s forms.
 */
final class TagRecv extends SendProtocol {
    private final Worker worker;

    TagRecv(final Worker worker) {
        this.worker = worker;
    }

    /** A receive never waits in a send queue. */
    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        return Status.INVALID_PARAM;
    }

    /** A receive still in the expected queue (not matched) completes CANCELED. */
    @Override
    boolean cancel(final Request r) {
        if (!worker.matcher.removeExpected(r)) {
            return false;
        }
        worker.complete(r, Status.CANCELED);
        return true;
    }

    /**
     * Posts a receive into {@code buf[offset, +length)}: a whole buffered message is copied out at once when
     * the caller reads tag and length from {@code info}.
     */
    Request recv(final MemorySegment buf, final long offset, final long length, final long tag, final long mask,
                 final TagInfo info, final RequestCallback callback) {
        worker.checkOpen();
        Datatypes.checkRange(buf, offset, length);
        if (callback == null && info != null) { // a whole eager message already here: copy it out, no request
            final TagMessage m = worker.matcher.matchUnexpectedComplete(tag, mask);
            if (m != null) {
                return receiveBuffered(m, buf, offset, length, info);
            }
        }
        final Request r = worker.acquire(Request.RECV);
        r.buffer = buf;
        r.offset = offset;
        r.capacity = length;
        return post(r, tag, mask, info, callback);
    }

    /** Posts a receive scattered over {@code iov}. */
    Request recvIov(final weft.uct.IoVector iov, final long tag, final long mask, final TagInfo info,
                    final RequestCallback callback) {
        worker.checkOpen();
        if (iov == null) {
            throw new WeftException(Status.INVALID_PARAM, "null IoVector");
        }
        final Request r = worker.acquire(Request.RECV);
        r.wide = true;
        r.dt = Datatypes.IOV;
        r.data.iov = iov;
        r.capacity = iov.totalLength();
        return post(r, tag, mask, info, callback);
    }

    /** Posts a receive unpacked by {@code datatype}. */
    Request recvGeneric(final GenericDatatype datatype, final Object state, final long capacity, final long tag,
                        final long mask, final TagInfo info, final RequestCallback callback) {
        worker.checkOpen();
        if (capacity < 0 || datatype == null) {
            throw new WeftException(Status.INVALID_PARAM, datatype == null ? "null datatype"
                : "negative receive capacity " + capacity);
        }
        final Request r = worker.acquire(Request.RECV);
        r.wide = true;
        r.dt = Datatypes.GENERIC;
        r.data.generic = datatype;
        r.data.state = state;
        r.capacity = capacity;
        return post(r, tag, mask, info, callback);
    }

    /** An unexpected message matching (tag, mask), taken out of the queue if {@code remove}. */
    TagMessage probe(final long tag, final long mask, final boolean remove) {
        worker.checkOpen();
        final TagMessage m = worker.matcher.matchUnexpected(tag, mask, remove);
        if (m != null && remove) {
            m.probedOut = true;
        }
        return m;
    }

    /** Receives a message taken out by {@link #probe} with {@code remove}. */
    Request recvProbed(final TagMessage message, final MemorySegment buf, final long offset, final long length,
                       final TagInfo info, final RequestCallback callback) {
        worker.checkOpen();
        Datatypes.checkRange(buf, offset, length);
        if (!message.probedOut) {
            throw new WeftException(Status.INVALID_PARAM, "message was not removed by probeTag(..., true) "
                + "or was already received");
        }
        message.probedOut = false;
        final Request r = worker.acquire(Request.RECV);
        r.buffer = buf;
        r.offset = offset;
        r.capacity = length;
        r.info = info;
        r.callback = callback;
        return receiveUnexpected(message, r);
    }

    /** Posts {@code r} (buffer or datatype filled in): matched now against unexpected messages, or queued. */
    Request post(final Request r, final long tag, final long mask, final TagInfo info, final RequestCallback callback) {
        r.info = info;
        r.callback = callback;
        final TagMessage m = worker.matcher.matchUnexpected(tag, mask, true);
        if (m == null) {
            r.tag = tag;
            r.mask = mask;
            worker.matcher.addExpected(r);
            worker.flow.wanted();
            return r;
        }
        return receiveUnexpected(m, r);
    }

    /** Receives {@code m}, already out of the unexpected queue, into {@code r}. */
    Request receiveUnexpected(final TagMessage m, final Request r) {
        final long length = r.capacity;
        final UnexpectedPool unexpected = worker.unexpected;
        r.tag = m.tag;
        r.mask = -1;
        r.length = m.length;
        if (m.rts) {
            r.kind = Request.RNDV_RECV;
            final Endpoint ep = m.ep;
            final long sreq = m.syncReqId;
            final long addr = m.rtsAddress;
            final byte[][] keys = m.rkeys;
            unexpected.release(m);
            worker.flow.released();
            worker.rndvRecv.start(ep, r, sreq, addr, keys);
        } else {
            Datatypes.unpack(r, 0, m.data, 0, m.received);
            r.moved = m.received;
            if (m.syncReqId >= 0 && m.ep != null) {
                m.ep.sendControl(AmId.SYNC_ACK, m.syncReqId, 0);
            }
            if (m.isComplete()) {
                unexpected.release(m);
                worker.flow.released();
                worker.complete(r, r.length > length ? Status.MESSAGE_TRUNCATED : Status.OK);
            } else { // fragments still arriving: they go straight into the user's buffer from now on
                m.ep.rxRequest = r;
                m.ep.rxMessage = null;
                unexpected.release(m);
                worker.flow.released();
                return r;
            }
        }
        // without a TagInfo the request is the only place the sender's tag and length can be read
        return r.info == null ? r : worker.finishImmediate(r);
    }

    /** Receives a complete eager unexpected message into a contiguous buffer (already removed from the queue). */
    Request receiveBuffered(final TagMessage m, final MemorySegment buf, final long offset, final long length,
                            final TagInfo info) { // info != null: it is where the caller reads tag and length
        final long n = Math.min(m.received, length);
        MemoryCopy.copy(m.data, 0, buf, offset, n);
        if (m.syncReqId >= 0 && m.ep != null) {
            m.ep.sendControl(AmId.SYNC_ACK, m.syncReqId, 0);
        }
        info.set(m.tag, m.length);
        final Status st = m.length > length ? Status.MESSAGE_TRUNCATED : Status.OK;
        worker.unexpected.release(m);
        worker.flow.released();
        return Request.done(st);
    }
}
