package weft.ucp;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;

/**
 * The steps of one protocol that the endpoint's send queue and the transports' completions call back
 * into. Every request kind has one ({@link Protocols#of(byte)}), so {@link Endpoint} and {@link Worker}
 * call the request's protocol instead of switching over kinds.
 *
 * <pre>{@code
 * // Endpoint's queue, for the request at its head:
 * Status st = worker.protocols.of(r.kind).progressSend(this, r);   // OK: leaves the queue; NO_RESOURCE: retried
 * // a request's completion count reached zero:
 * worker.protocols.of(r.kind).onCompletion(r, st);
 * }</pre>
 */
abstract class SendProtocol {
    /** For kinds that never wait in a send queue nor count completions (closes). */
    static final SendProtocol NONE = new SendProtocol() {
        @Override
        Status progressSend(final Endpoint ep, final Request r) {
            return Status.INVALID_PARAM;
        }
    };

    /**
     * Advances {@code r}, queued on {@code ep}. OK: it no longer needs the queue (done, or waiting for the
     * peer or its completion count); an error: it fails with it; NO_RESOURCE: called again later, in order.
     */
    abstract Status progressSend(Endpoint ep, Request r);

    /** The completion count of {@code r} reached zero with {@code st} (zero-copy pieces, gets, puts, flushes). */
    void onCompletion(final Request r, final Status st) {
    }

    /**
     * Issues what remains of {@code r}'s pieces, parked in the worker's pending list when a lane was full
     * (rendezvous gets and puts); false while a lane is still full.
     */
    boolean resume(final Request r) {
        return true;
    }

    /**
     * Cancels {@code r}, a request of this protocol not yet completed, if it has not matched yet (it then
     * completes with CANCELED); false when it is past that point (it completes normally) or cannot be.
     */
    boolean cancel(final Request r) {
        return false;
    }

    /**
     * True if {@code r} may be sent ahead of a queue head that flow control holds (the peer asked us to start
     * no new message): control traffic and data the peer asked for, without which the peer could not drain.
     */
    boolean bypassesFlowStop(final Request r) {
        return false;
    }

    /**
     * Issues one zero-copy active message carrying {@code r.buffer[pos, pos+n)} after {@code hdr[0, hlen)} (the
     * transport copies the header), counted in {@code r}'s completion. NO_RESOURCE: nothing was issued.
     */
    static Status zcopyPiece(final weft.uct.Endpoint uct, final int id, final MemorySegment hdr, final int hlen,
                             final Request r, final long pos, final long n) {
        r.rmaIov.clear().add(r.buffer, r.offset + pos, n);
        r.completion.expect(1);
        final Status st = uct.amZcopy(id, hdr, 0, hlen, r.rmaIov, r.completion);
        return counted(r, st);
    }

    /**
     * Accounts a call that was handed {@code r}'s completion after a {@code completion.expect(1)}: takes the
     * expectation back on NO_RESOURCE (nothing was issued), completes the piece at once when the call finished
     * or failed inside, leaves it to the transport on IN_PROGRESS. Returns {@code st}.
     */
    static Status counted(final Request r, final Status st) {
        if (st == Status.NO_RESOURCE) {
            r.completion.expect(-1);
        } else if (st != Status.IN_PROGRESS) {
            r.completion.complete(st);
        }
        return st;
    }
}
