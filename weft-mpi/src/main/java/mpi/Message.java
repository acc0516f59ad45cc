package mpi;

import weft.ucp.TagMessage;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;

/**
 * A matched message (MPI_Message): {@link #mProbe} takes a message out of the matching queue, so that no
 * other receive (of another thread) can take it, and {@link #mRecv} receives exactly that message.
 *
 * <pre>{@code
 * Message m = new Message();
 * Status s = m.mProbe(MPI.ANY_SOURCE, 5, comm);
 * int[] data = new int[s.getCount(MPI.INT)];
 * m.mRecv(data, data.length, MPI.INT);
 * }</pre>
 */
public final class Message {
    private TagMessage message;
    /** The message taken on the active-message path (else null). */
    private AmUnexpected amMessage;
    private Comm comm;
    private boolean noProc;

    /** A null message, to be filled by {@link #mProbe} or {@link #imProbe}. */
    public Message() {
    }

    /** True when the message holds nothing (not probed, or already received). */
    public boolean isNull() {
        return message == null && amMessage == null && !noProc;
    }

    /** True after a probe of {@link MPI#PROC_NULL}: receiving it gives an empty status. */
    public boolean isNoProc() {
        return noProc;
    }

    /** Waits for a matching message and takes it out of the matching queue. */
    public Status mProbe(final int source, final int tag, final Comm comm) throws MPIException {
        for (int spins = 0; ; spins++) {
            final Status s = imProbe(source, tag, comm);
            if (s != null) {
                return s;
            }
            if (spins > 2000) {
                Thread.yield(); // imProbe progressed the worker
            }
        }
    }

    /** Takes a matching message out of the matching queue if one has arrived; null otherwise. */
    public Status imProbe(final int source, final int tag, final Comm comm) throws MPIException {
        comm.checkLive();
        try {
            Args.checkRecv(0, MPI.BYTE, source, tag, comm.peers());
            if (source == MPI.PROC_NULL) {
                noProc = true;
                this.comm = comm;
                return Status.empty();
            }
            comm.session.worker.progress();
            final long t = Tags.make(comm.cid, source == MPI.ANY_SOURCE ? 0 : source, tag == MPI.ANY_TAG ? 0 : tag);
            if (comm.session.am != null) {
                final AmUnexpected u = comm.session.am.take(t, Tags.mask(source, tag));
                if (u == null) {
                    return null;
                }
                amMessage = u;
                this.comm = comm;
                return new Status(Tags.source(u.tag), Tags.tag(u.tag), MPI.SUCCESS, u.length, false);
            }
            final TagMessage m = comm.session.worker.probeTag(t, Tags.mask(source, tag), true);
            if (m == null) {
                return null;
            }
            message = m;
            this.comm = comm;
            return new Status(Tags.source(m.tag()), Tags.tag(m.tag()), MPI.SUCCESS, m.length(), false);
        } catch (final MPIException | RuntimeException e) {
            throw comm.fail(e);
        }
    }

    /** Receives the probed message into {@code buf}; the message becomes null. */
    public Status mRecv(final Object buf, final int count, final Datatype type) throws MPIException {
        final Comm c = checkProbed();
        if (noProc) {
            noProc = false;
            return Status.empty();
        }
        try {
            final Request r = receive(c, Args.data(buf, count, type), count, type);
            return r.waitStatus();
        } catch (final MPIException | RuntimeException e) {
            throw c.fail(e);
        }
    }

    /** Starts receiving the probed message into a direct buffer; the message becomes null. */
    public Request imRecv(final Buffer buf, final int count, final Datatype type) throws MPIException {
        final Span span = Span.ofDirect(buf, "buffer");
        final Comm c = checkProbed();
        if (noProc) {
            noProc = false;
            return Request.completed(c, Status.empty());
        }
        try {
            Args.checkData(count, type);
            span.check(count, type);
            return receive(c, span, count, type);
        } catch (final MPIException | RuntimeException e) {
            throw c.fail(e);
        }
    }

    private Comm checkProbed() throws MPIException {
        if (isNull()) {
            throw new MPIException(MPI.ERR_REQUEST, "the message is null: probe it with mProbe or imProbe first");
        }
        comm.checkLive();
        return comm;
    }

    /** A receive of the taken message; a derived type is received packed and unpacked on completion. */
    private Request receive(final Comm c, final Span span, final int count, final Datatype type) {
        final long bytes = count * type.size;
        final Request r = new Request(c);
        if (amMessage != null) {
            final AmUnexpected u = amMessage;
            amMessage = null;
            r.started(Request.RECV, c.session.am.receive(u, span, count, type), span, bytes);
            return r;
        }
        final TagMessage m = message;
        message = null;
        if (type.contiguous) {
            r.started(Request.RECV, UcpOp.of(c.session.worker.recvTag(m, span.segment, span.origin, bytes), null), span,
                bytes);
        } else {
            final MemorySegment packed = Coll.scratch(bytes);
            r.started(Request.RECV, UcpOp.of(c.session.worker.recvTag(m, packed, 0, bytes), null), span, bytes);
            r.packed = packed;
            r.unpackCount = count;
            r.unpackType = type;
        }
        return r;
    }
}
