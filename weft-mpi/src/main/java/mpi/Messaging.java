package mpi;

import weft.ucp.Endpoint;
import weft.ucp.Worker;

import java.lang.foreign.MemorySegment;

/**
 * Point-to-point messages on either path ({@code WEFT_MPI_TRANSPORT}): ucp tag matching, where contiguous data
 * goes straight from and to the buffer and a derived datatype through a {@link TypeCursor}, or the
 * active-message matcher ({@link AmMatcher}, {@link AmSends}) when the session has one. Every send and
 * receive of the library (point to point, collectives, buffered sends) starts here, so the choice covers them
 * all. Also turns a finished {@link InFlight} into an MPI {@link Status} or error.
 */
final class Messaging {
    private Messaging() {
    }

    /** Starts a send of {@code count} elements of {@code type} at {@code span} with the ucp {@code tag}. */
    static InFlight send(final Comm c, final int dest, final long tag, final Span span, final int count,
                   final Datatype type, final boolean sync) {
        final AmMatcher am = c.session.am;
        return am != null ? am.sends.send(c, dest, tag, span, count, type, sync)
            : UcpOp.of(tagSend(c, dest, tag, span, count, type, sync), null);
    }

    /** Sends and waits until the buffer may be reused (a synchronous send: until the receiver matched it). */
    static void sendBlocking(final Comm c, final int dest, final long tag, final Span span, final int count,
                             final Datatype type, final boolean sync) throws MPIException {
        final AmMatcher am = c.session.am;
        if (am != null) {
            am.sends.sendBlocking(c, dest, tag, span, count, type, sync);
        } else {
            awaitSend(tagSend(c, dest, tag, span, count, type, sync));
        }
    }

    private static weft.ucp.Request tagSend(final Comm c, final int dest, final long tag, final Span span,
                                            final int count, final Datatype type, final boolean sync) {
        final Endpoint ep = c.endpoint(dest);
        final long bytes = count * type.size;
        if (type.contiguous) {
            return sync ? ep.sendTagSync(tag, span.segment, span.origin, bytes)
                : ep.sendTag(tag, span.segment, span.origin, bytes);
        }
        final TypeCursor cursor = new TypeCursor(span, count, type);
        return sync ? ep.sendTagSync(tag, TypeCursor.PACKER, cursor, bytes, null)
            : ep.sendTag(tag, TypeCursor.PACKER, cursor, bytes, null);
    }

    /** Starts a receive of at most {@code count} elements of {@code type} into {@code span}. */
    static InFlight recv(final PointToPoint c, final long tag, final long mask, final Span span, final int count,
                   final Datatype type) {
        final AmMatcher am = c.session.am;
        if (am != null) {
            return am.post(tag, mask, span, count, type);
        }
        final Worker w = c.session.worker;
        final long bytes = count * type.size;
        if (type.contiguous) {
            return UcpOp.of(w.recvTag(span.segment, span.origin, bytes, tag, mask, null, null), null);
        }
        return UcpOp.of(w.recvTag(TypeCursor.PACKER, new TypeCursor(span, count, type), bytes, tag, mask, null,
            null), null);
    }

    /**
     * A blocking receive of contiguous data on the tag path: the ucp request itself, no pooled {@link InFlight}
     * around it (the shortest path from {@code Comm.recv} to ucp, and the one the JIT compiles first).
     *
     * @param matched if not null, gets the ucp tag of the message received
     * @return the bytes received
     * @throws MPIException ERR_TRUNCATE or the ucp error the receive failed with
     */
    static long recvContiguous(final PointToPoint c, final long tag, final long mask, final Span span,
                               final long capacity, final int source, final long[] matched) throws MPIException {
        final weft.ucp.Request r = c.session.worker.recvTag(span.segment, span.origin, capacity, tag, mask, null,
            null);
        final weft.ucs.Status st = await(c, r, null, source);
        final long senderTag = r.senderTag();
        final long length = r.length();
        r.release();
        return receivedBytes(st, senderTag, length, capacity, span, matched);
    }

    /**
     * A finished blocking receive's result, without a {@link Status} (its caller makes the one it returns):
     * copies the data back to a copied buffer, throws the receive's error, reports the matched ucp tag.
     *
     * @param matched if not null, gets {@code senderTag}
     * @return the bytes received
     */
    static long receivedBytes(final weft.ucs.Status st, final long senderTag, final long length, final long capacity,
                              final Span span, final long[] matched) throws MPIException {
        span.finish();
        if (errorClass(st) != MPI.SUCCESS) {
            throw failure(status(st, senderTag, length, capacity), st, "recv");
        }
        if (matched != null) {
            matched[0] = senderTag;
        }
        return st == weft.ucs.Status.CANCELED ? 0 : Math.min(length, capacity);
    }

    /** Starts a send of raw bytes (the collectives' messages). */
    static InFlight sendBytes(final Comm c, final int dest, final long tag, final MemorySegment seg, final long off,
                        final long len) {
        final AmMatcher am = c.session.am;
        return am != null ? am.sends.sendBytes(c, dest, tag, seg, off, len, false)
            : UcpOp.of(c.endpoint(dest).sendTag(tag, seg, off, len), null);
    }

    /** Starts a receive of at most {@code len} raw bytes (the collectives' messages). */
    static InFlight recvBytes(final Comm c, final long tag, final MemorySegment seg, final long off, final long len) {
        final AmMatcher am = c.session.am;
        return am != null ? am.post(tag, -1L, Span.at(seg, off), Math.toIntExact(len), MPI.BYTE)
            : UcpOp.of(c.session.worker.recvTag(seg, off, len, tag, -1L, null, null), null);
    }

    /**
     * The status of a finished receive; releases the ucp request.
     *
     * @param capacity the bytes the receive could take
     */
    static Status received(final InFlight r, final long capacity) {
        final weft.ucs.Status st = r.status();
        final long senderTag = r.senderTag();
        final long length = r.length();
        r.release();
        return status(st, senderTag, length, capacity);
    }

    private static Status status(final weft.ucs.Status st, final long senderTag, final long length,
                                 final long capacity) {
        if (st == weft.ucs.Status.CANCELED) {
            return new mpi.Status(MPI.ANY_SOURCE, MPI.ANY_TAG, MPI.SUCCESS, 0, true);
        }
        return new mpi.Status(Tags.source(senderTag), Tags.tag(senderTag), errorClass(st), Math.min(length, capacity),
            false);
    }

    /** The MPI error class of a ucp status. */
    static int errorClass(final weft.ucs.Status st) {
        if (!st.isError() || st == weft.ucs.Status.CANCELED) {
            return MPI.SUCCESS;
        }
        return st == weft.ucs.Status.MESSAGE_TRUNCATED ? MPI.ERR_TRUNCATE : MPI.ERR_OTHER;
    }

    /** The exception for a request that failed with {@code st}. */
    static MPIException failure(final Status s, final weft.ucs.Status st, final String what) {
        if (s.getError() == MPI.ERR_TRUNCATE) {
            return new MPIException(MPI.ERR_TRUNCATE, what + ": the message from rank " + s.getSource() + " (tag "
                + s.getTag() + ") is longer than the receive buffer (" + s.bytes() + " B fit)");
        }
        return new MPIException(errorClass(st), what + " failed: " + st);
    }

    /** How long a wait for one rank's message goes before that rank's liveness is checked, and how often. */
    static final long WATCH_NS = 1_000_000_000L;

    /** {@link #awaitFrom}'s source for a wait that watches no rank (a send). */
    static final int NO_WATCH = MPI.PROC_NULL;

    /**
     * Waits for a receive from {@code source} (a communicator rank, {@link MPI#ANY_SOURCE}, or {@link #NO_WATCH}),
     * progressing the worker. A receive that takes longer than {@link #WATCH_NS} watches the rank it waits for:
     * its endpoint (made then if this rank never sent to it) fails when the peer dies (keepalive), and the
     * receive is then cancelled and reported, instead of waiting for a message that cannot come. A receive from
     * any source watches every rank of the communicator this rank has an endpoint to (a rank it never talked to
     * gets none made: a wildcard wait must not connect the whole job).
     */
    static weft.ucs.Status awaitFrom(final PointToPoint c, final InFlight r, final int source)
        throws MPIException {
        return await(c, null, r, source);
    }

    /** {@link #awaitFrom} for a bare ucp request {@code req} or else an {@link InFlight} {@code op}. */
    private static weft.ucs.Status await(final PointToPoint c, final weft.ucp.Request req, final InFlight op,
                                         final int source) throws MPIException {
        final Worker w = c.session.worker;
        long next = 0; // the clock is read by a wait that watches a rank, once it waits (not for a finished send)
        for (int idle = 0, spins = 0; !(req != null ? req.isCompleted() : op.isCompleted()); spins++) {
            idle = Progress.step(w, idle);
            if (source == NO_WATCH || (spins & 1023) != 0) {
                continue;
            }
            final long now = System.nanoTime();
            if (spins == 0) {
                next = now + WATCH_NS;
            } else if (now - next > 0) {
                next = now + WATCH_NS;
                if (source >= 0) {
                    failIfDead(c, source, c.endpoint(source), req, op);
                } else {
                    checkConnected(c, req, op);
                }
            }
        }
        return req != null ? req.status() : op.status();
    }

    /** Fails (cancelling {@code r}) if the endpoint to {@code source} has failed. */
    static void checkAlive(final PointToPoint c, final int source, final InFlight r) throws MPIException {
        failIfDead(c, source, c.endpoint(source), null, r);
    }

    /** Fails (cancelling the receive) if the endpoint to any rank of the communicator this rank talked to failed. */
    private static void checkConnected(final PointToPoint c, final weft.ucp.Request req, final InFlight op)
        throws MPIException {
        for (int i = 0; i < c.peers(); i++) {
            final Endpoint ep = c.session.job.existingEndpoint(c.jobRank(i));
            if (ep != null) {
                failIfDead(c, i, ep, req, op);
            }
        }
    }

    private static void failIfDead(final PointToPoint c, final int rank, final Endpoint ep,
                                   final weft.ucp.Request req, final InFlight op) throws MPIException {
        final weft.ucs.Status st = ep.status();
        if (st.isError() && !(req != null ? req.isCompleted() : op.isCompleted())) {
            if (req != null) {
                c.session.worker.cancel(req);
            } else {
                op.cancel(c.session.worker);
            }
            throw new MPIException(MPI.ERR_OTHER, "rank " + rank + " (job rank " + c.jobRank(rank) + ") failed ("
                + st + ") while this rank waited for a message");
        }
    }

    /** Waits for a send started as an {@link InFlight}; throws its error. */
    static void awaitSend(final InFlight r) throws MPIException {
        final weft.ucs.Status st = r.awaitStatus();
        r.release();
        if (st.isError()) {
            throw new MPIException(errorClass(st), "send failed: " + st);
        }
    }

    /** Waits for a send; throws its error. */
    static void awaitSend(final weft.ucp.Request r) throws MPIException {
        final weft.ucs.Status st = r.awaitStatus();
        r.release();
        if (st.isError()) {
            throw new MPIException(errorClass(st), "send failed: " + st);
        }
    }
}
