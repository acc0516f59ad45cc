package mpi;

import weft.ucp.Worker;

import java.lang.foreign.MemorySegment;

/**
 * A receive of the active-message matcher ({@link AmMatcher}): posted with its match bits, then matched by an
 * arriving message (eager data copied in at once; rendezvous data pulled into the buffer by ucp) or by a
 * queued unexpected one. A derived datatype is received packed into {@link #packed} and unpacked on
 * completion. Pooled by the matcher.
 */
final class AmRecv extends InFlight {
    final AmMatcher matcher;

    // what the receive matches (Tags layout; the mask clears wildcard fields)
    long tag;
    long mask;
    long sn;
    // where the data goes
    Span span;
    int count;
    Datatype type;
    long capacity;
    MemorySegment packed;

    // the matched message
    long senderTag;
    long length;
    /** A rendezvous pull in progress (else null). */
    volatile weft.ucp.Request pull;
    weft.ucs.Status status = weft.ucs.Status.IN_PROGRESS;
    volatile boolean done;
    boolean released;

    // the posted queue: a bucket's list, or the wildcard list
    AmRecv prev;
    AmRecv next;
    boolean posted;
    int bucket;

    AmRecv(final AmMatcher matcher) {
        this.matcher = matcher;
    }

    void set(final long matchTag, final long matchMask, final Span s, final int n, final Datatype t) {
        tag = matchTag;
        mask = matchMask;
        span = s;
        count = n;
        type = t;
        capacity = n * t.size;
        packed = t.contiguous || capacity == 0 ? null : Coll.scratch(capacity);
        senderTag = 0;
        length = 0;
        pull = null;
        status = weft.ucs.Status.IN_PROGRESS;
        released = false;
        done = false;
    }

    /** Where the data is written: the buffer itself, or the packed scratch of a derived type. */
    MemorySegment target() {
        return packed != null ? packed : span.segment;
    }

    long targetOffset() {
        return packed != null ? 0 : span.origin;
    }

    /** Takes eager data ({@code len} bytes at {@code data[off]}): copies what fits and completes. */
    void deliverEager(final long msgTag, final MemorySegment data, final long off, final long len) {
        senderTag = msgTag;
        length = len;
        final long n = Math.min(len, capacity);
        if (n > 0) {
            MemorySegment.copy(data, off, target(), targetOffset(), n);
        }
        finish(len > capacity ? weft.ucs.Status.MESSAGE_TRUNCATED : weft.ucs.Status.OK);
    }

    /** Starts pulling a rendezvous message (at most the capacity: more is MESSAGE_TRUNCATED). */
    void deliverRendezvous(final Worker w, final long msgTag, final weft.ucp.AmMessage m) {
        senderTag = msgTag;
        length = m.dataLength();
        pull = w.recvAmData(m, target(), targetOffset(), Math.min(length, capacity));
    }

    /** Completes a receive cancelled before it matched. */
    void cancelled() {
        finish(weft.ucs.Status.CANCELED);
    }

    private void finish(final weft.ucs.Status st) {
        if (packed != null && st != weft.ucs.Status.CANCELED) {
            final long got = Math.min(length, capacity);
            TypeCursor.unpackPrefix(packed, span, count, type, got);
        }
        status = st;
        done = true;
    }

    @Override
    boolean isCompleted() {
        if (!done && pull != null) {
            synchronized (this) {
                final weft.ucp.Request p = pull;
                if (!done && p != null && p.isCompleted()) {
                    final weft.ucs.Status st = p.status();
                    p.release();
                    pull = null;
                    finish(st);
                }
            }
        }
        return done;
    }

    @Override
    weft.ucs.Status status() {
        return isCompleted() ? status : weft.ucs.Status.IN_PROGRESS;
    }

    @Override
    long senderTag() {
        return senderTag;
    }

    @Override
    long length() {
        return length;
    }

    @Override
    weft.ucs.Status awaitStatus() {
        for (int idle = 0; !isCompleted(); ) {
            idle = Progress.step(matcher.worker, idle);
        }
        return status;
    }

    @Override
    void release() {
        released = true;
        if (isCompleted()) {
            matcher.recycle(this);
        }
    }

    @Override
    void cancel(final Worker w) {
        matcher.cancel(this);
    }
}
