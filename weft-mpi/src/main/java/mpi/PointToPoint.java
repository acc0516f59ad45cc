package mpi;

import weft.ucp.Endpoint;
import weft.ucs.WeftException;

import java.nio.Buffer;

/**
 * The part of a communicator that is not collective: its group, rank and message space, error handling,
 * attributes, and point-to-point messages. {@link Comm} adds the collectives; programs use {@link Comm} and
 * {@link Intracomm}.
 *
 * <p>Buffers: blocking calls take Java arrays of primitives or {@code java.nio} buffers; non-blocking calls
 * take direct buffers ({@link MPI#newIntBuffer} ...), since they keep using the memory after they return. A
 * buffer's element 0 is where the data starts (use {@link MPI#slice} for an offset); counts are in elements
 * of the datatype.
 *
 * <p>Errors go to the communicator's error handler: by default ({@link MPI#ERRORS_ARE_FATAL}) they end the
 * job; after {@code setErrhandler(MPI.ERRORS_RETURN)} they are thrown as {@link MPIException}s.
 */
abstract class PointToPoint {
    /** {@code splitType}: the ranks that share a node's memory. */
    public static final int TYPE_SHARED = 0;

    Session session;
    Group group;
    /** The remote group of an intercommunicator (else null): point-to-point ranks name its members. */
    Group remote;
    int rank = MPI.UNDEFINED;
    int size;
    /** Even context id of point-to-point traffic; cid + 1 carries the collectives. */
    int cid = -1;
    private int collectiveSeq;
    /** The schedule the last blocking collective gave back, for the next ({@link Schedule#of}); else null. */
    Schedule spareSchedule;
    Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    private String name = "";
    private final Attributes attributes = new Attributes();

    PointToPoint() {
    }

    void setup(final Session s, final Group g, final int contextId, final String commName) {
        session = s;
        group = g;
        rank = g.indexOf(s.job.rank());
        size = g.members.length;
        cid = contextId;
        name = commName;
    }

    // ------------------------------------------------------------------ basics

    /** This process's rank in the communicator. */
    public final int getRank() throws MPIException {
        checkLive();
        return rank;
    }

    /** The number of ranks. */
    public final int getSize() throws MPIException {
        checkLive();
        return size;
    }

    /** Marks the communicator freed; later calls on it fail with ERR_COMM. */
    public void free() throws MPIException {
        checkLive();
        if (this == MPI.COMM_WORLD || this == MPI.COMM_SELF) {
            throw fail(new MPIException(MPI.ERR_COMM, "MPI.COMM_WORLD and MPI.COMM_SELF cannot be freed"));
        }
        cid = -1;
    }

    /** True for a null communicator (freed, or the result of a split or create this rank is not part of). */
    public final boolean isNull() {
        return cid < 0;
    }

    /** The topology: {@link MPI#CART} for a {@link CartComm}, else {@link MPI#UNDEFINED}. */
    public final int getTopology() throws MPIException {
        checkLive();
        return topology();
    }

    int topology() {
        return MPI.UNDEFINED;
    }

    /** This rank's neighbours in the communicator's topology (for the neighbour collectives). */
    Neighbours neighbours() throws MPIException {
        throw new MPIException(MPI.ERR_TOPOLOGY, "neighbour collectives need a Cartesian or graph communicator");
    }

    /** True for an {@link Intercomm}: messages go to the ranks of the remote group. */
    public final boolean isInter() throws MPIException {
        checkLive();
        return remote != null;
    }

    /** The communicator's group. */
    public final Group getGroup() throws MPIException {
        checkLive();
        return group;
    }

    /**
     * {@link MPI#IDENT} (the same communicator), {@link MPI#CONGRUENT} (same ranks in the same order),
     * {@link MPI#SIMILAR} (same members) or {@link MPI#UNEQUAL}.
     */
    public static int compare(final Comm comm1, final Comm comm2) throws MPIException {
        MPI.check();
        if (comm1 == comm2 || comm1.cid == comm2.cid && comm1.cid >= 0 && comm1.group == comm2.group) {
            return MPI.IDENT;
        }
        final int g = Group.compare(comm1.group, comm2.group);
        return g == MPI.IDENT ? MPI.CONGRUENT : g;
    }

    /** Sets what errors on this communicator do. */
    public final void setErrhandler(final Errhandler handler) throws MPIException {
        checkLive();
        if (handler == null) {
            throw new MPIException(MPI.ERR_ARG, "null error handler");
        }
        errhandler = handler;
    }

    /** The communicator's error handler. */
    public final Errhandler getErrhandler() throws MPIException {
        checkLive();
        return errhandler;
    }

    /** Raises {@code errorCode} through the handler: the fatal one ends the job, ERRORS_RETURN returns. */
    public void callErrhandler(final int errorCode) throws MPIException {
        checkLive();
        // the fatal handler ends the job; MPI_ERRORS_RETURN's handler returns, and so does this call
        fail(new MPIException(errorCode, "error " + errorCode + " raised by callErrhandler"));
    }

    /** Ends every rank of the job with exit status {@code errorcode} (0 becomes 1). Does not return. */
    public final void abort(final int errorcode) throws MPIException {
        MPI.check();
        session.job.runtime().abort(errorcode, "MPI_Abort(" + (name.isEmpty() ? "communicator" : name) + ", "
            + errorcode + ") called by rank " + rank);
    }

    /** Sets the communicator's name. */
    public final void setName(final String commName) throws MPIException {
        checkLive();
        if (commName == null || commName.length() > MPI.MAX_OBJECT_NAME) {
            throw fail(new MPIException(MPI.ERR_ARG, "a name has at most " + MPI.MAX_OBJECT_NAME + " characters"));
        }
        name = commName;
    }

    /** The communicator's name ("" if none was set). */
    public final String getName() throws MPIException {
        checkLive();
        return name;
    }

    /** Hints are accepted and ignored. */
    public final void setInfo(final Info info) throws MPIException {
        checkLive();
    }

    /** An empty info object. */
    public final Info getInfo() throws MPIException {
        checkLive();
        return new Info();
    }

    // ------------------------------------------------------------------ attributes

    /** A new attribute key. */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    /** Frees an attribute key. */
    public static void freeKeyval(final int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    /** Stores {@code value} under a key from {@link #createKeyval}. */
    public final void setAttr(final int keyval, final Object value) throws MPIException {
        checkLive();
        attributes.set(keyval, value);
    }

    /**
     * The value of an attribute: a predefined key ({@link MPI#TAG_UB}, {@link MPI#HOST}, {@link MPI#IO},
     * {@link MPI#WTIME_IS_GLOBAL}, {@link MPI#APPNUM}, {@link MPI#UNIVERSE_SIZE}) or a user one; null if unset.
     */
    public final Object getAttr(final int keyval) throws MPIException {
        checkLive();
        return attributes.get(keyval, session.job.size());
    }

    /** Removes an attribute. */
    public final void deleteAttr(final int keyval) throws MPIException {
        checkLive();
        attributes.delete(keyval);
    }

    // ------------------------------------------------------------------ point to point: blocking

    /** Sends {@code count} elements of {@code type} to rank {@code dest} with {@code tag} (standard mode). */
    public final void send(final Object buf, final int count, final Datatype type, final int dest, final int tag)
        throws MPIException {
        blockingSend(buf, count, type, dest, tag, false);
    }

    /** A synchronous send: returns once the receiver has matched it. */
    public final void sSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
        throws MPIException {
        blockingSend(buf, count, type, dest, tag, true);
    }

    /** A ready send (the receive is already posted); here the same as {@link #send}. */
    public final void rSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
        throws MPIException {
        blockingSend(buf, count, type, dest, tag, false);
    }

    /**
     * A buffered send: returns once the message is copied; the copy counts against the buffer of
     * {@link MPI#attachBuffer} until it has left (ERR_BUFFER when the buffer is full).
     */
    public final void bSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
        throws MPIException {
        checkLive();
        try {
            Args.checkSend(count, type, dest, tag, peers());
            if (dest == MPI.PROC_NULL) {
                return;
            }
            session.buffered.send(self(), Args.data(buf, count, type), count, type, dest, Tags.make(cid, rank, tag));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private void blockingSend(final Object buf, final int count, final Datatype type, final int dest, final int tag,
                              final boolean sync) throws MPIException {
        checkLive();
        try {
            Args.checkSend(count, type, dest, tag, peers());
            if (dest == MPI.PROC_NULL) {
                return;
            }
            final Span span = Span.of(buf);
            span.check(count, type);
            Messaging.sendBlocking(self(), dest, Tags.make(cid, rank, tag), span, count, type, sync);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /**
     * Receives at most {@code count} elements of {@code type} from {@code source} ({@link MPI#ANY_SOURCE}
     * for any) with {@code tag} ({@link MPI#ANY_TAG} for any). A longer message is an
     * {@link MPI#ERR_TRUNCATE} error.
     */
    public final Status recv(final Object buf, final int count, final Datatype type, final int source, final int tag)
        throws MPIException {
        if ((source | tag) < 0) {
            return recvAny(buf, count, type, source, tag);
        }
        // a named source and tag: only the length is to learn, and the Status is made here, in a method small
        // enough for the JIT to inline into the caller: a caller that drops it then allocates nothing
        return new Status(source, tag, MPI.SUCCESS, receive(buf, count, type, source, tag, null), false);
    }

    /** {@link #recv} with a wildcard or {@link MPI#PROC_NULL} (or a bad rank or tag, refused). */
    private Status recvAny(final Object buf, final int count, final Datatype type, final int source, final int tag)
        throws MPIException {
        final long[] matched = new long[1];
        final long bytes = receive(buf, count, type, source, tag, matched);
        return bytes < 0 ? Status.empty()
            : new Status(Tags.source(matched[0]), Tags.tag(matched[0]), MPI.SUCCESS, bytes, false);
    }

    /**
     * The blocking receive.
     *
     * @param matched if not null, gets the ucp tag of the message received
     * @return the bytes received; -1 for a receive from {@link MPI#PROC_NULL}
     */
    private long receive(final Object buf, final int count, final Datatype type, final int source, final int tag,
                         final long[] matched) throws MPIException {
        checkLive();
        try {
            Args.checkRecv(count, type, source, tag, peers());
            if (source == MPI.PROC_NULL) {
                return -1;
            }
            final Span span = Span.of(buf);
            span.check(count, type);
            if (session.am == null && type.contiguous) {
                return Messaging.recvContiguous(this, matchTag(source, tag), Tags.mask(source, tag), span,
                    count * type.size, source, matched);
            }
            return receiveGeneral(span, count, type, source, tag, matched);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** {@link #receive} of a derived type or on the active-message path (out of line: the fast path stays small). */
    private long receiveGeneral(final Span span, final int count, final Datatype type, final int source,
                                final int tag, final long[] matched) throws MPIException {
        final InFlight r = startRecv(span, count, type, source, tag);
        final weft.ucs.Status st = Messaging.awaitFrom(this, r, source);
        final long senderTag = r.senderTag();
        final long length = r.length();
        r.release();
        return Messaging.receivedBytes(st, senderTag, length, count * type.size, span, matched);
    }

    /** Sends one message and receives another at once. */
    public final Status sendRecv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int dest,
                                 final int sendtag, final Object recvbuf, final int recvcount,
                                 final Datatype recvtype, final int source, final int recvtag) throws MPIException {
        checkLive();
        try {
            Args.checkSend(sendcount, sendtype, dest, sendtag, peers());
            Args.checkRecv(recvcount, recvtype, source, recvtag, peers());
            final Span in = source == MPI.PROC_NULL ? null : Span.of(recvbuf);
            if (in != null) {
                in.check(recvcount, recvtype);
            }
            final InFlight r = in == null ? null : startRecv(in, recvcount, recvtype, source, recvtag);
            if (dest != MPI.PROC_NULL) {
                final Span out = Span.of(sendbuf);
                out.check(sendcount, sendtype);
                Messaging.sendBlocking(self(), dest, Tags.make(cid, rank, sendtag), out, sendcount, sendtype, false);
            }
            if (r == null) {
                return Status.empty();
            }
            final weft.ucs.Status st = Messaging.awaitFrom(this, r, source);
            final Status s = Messaging.received(r, recvcount * recvtype.size);
            in.finish();
            if (s.getError() != MPI.SUCCESS) {
                throw Messaging.failure(s, st, "sendRecv");
            }
            return s;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Sends the buffer's content and replaces it with the message received. */
    public final Status sendRecvReplace(final Object buf, final int count, final Datatype type, final int dest,
                                        final int sendtag, final int source, final int recvtag)
        throws MPIException {
        checkLive();
        final Object copy;
        try {
            Args.checkSend(count, type, dest, sendtag, peers());
            final Span span = Span.of(buf);
            span.check(count, type);
            copy = Coll.packed(span, count, type).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
        return sendRecv(copy, Math.toIntExact(count * type.size), MPI.BYTE, dest, sendtag, buf, count, type, source,
            recvtag);
    }

    // ------------------------------------------------------------------ point to point: non-blocking

    /** Starts a standard send from a direct buffer. */
    public final Request iSend(final Buffer buf, final int count, final Datatype type, final int dest,
                               final int tag) throws MPIException {
        return startSend(Span.ofDirect(buf, "buffer"), count, type, dest, tag, false);
    }

    /** Starts a synchronous send: completes once the receiver matched it. */
    public final Request isSend(final Buffer buf, final int count, final Datatype type, final int dest,
                                final int tag) throws MPIException {
        return startSend(Span.ofDirect(buf, "buffer"), count, type, dest, tag, true);
    }

    /** Starts a ready send (here a standard send). */
    public final Request irSend(final Buffer buf, final int count, final Datatype type, final int dest,
                                final int tag) throws MPIException {
        return startSend(Span.ofDirect(buf, "buffer"), count, type, dest, tag, false);
    }

    /** A buffered send, started: it is complete when it returns (the message was copied). */
    public final Request ibSend(final Buffer buf, final int count, final Datatype type, final int dest,
                                final int tag) throws MPIException {
        Span.ofDirect(buf, "buffer");
        bSend(buf, count, type, dest, tag);
        return Request.completed(self(), Status.empty());
    }

    private Request startSend(final Span span, final int count, final Datatype type, final int dest, final int tag,
                              final boolean sync) throws MPIException {
        checkLive();
        try {
            Args.checkSend(count, type, dest, tag, peers());
            if (dest == MPI.PROC_NULL) {
                return Request.completed(self(), Status.empty());
            }
            span.check(count, type);
            final Request r = new Request(self());
            r.started(Request.SEND, Messaging.send(self(), dest, Tags.make(cid, rank, tag), span, count, type, sync),
                span, 0);
            return r;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Starts a receive into a direct buffer. */
    public final Request iRecv(final Buffer buf, final int count, final Datatype type, final int source,
                               final int tag) throws MPIException {
        final Span span = Span.ofDirect(buf, "buffer");
        checkLive();
        try {
            Args.checkRecv(count, type, source, tag, peers());
            if (source == MPI.PROC_NULL) {
                return Request.completed(self(), Status.empty());
            }
            span.check(count, type);
            final Request r = new Request(self());
            r.started(Request.RECV, startRecv(span, count, type, source, tag), span, count * type.size);
            r.source = source;
            return r;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private InFlight startRecv(final Span span, final int count, final Datatype type, final int source, final int tag) {
        return Messaging.recv(this, matchTag(source, tag), Tags.mask(source, tag), span, count, type);
    }

    /** The ucp tag a receive from {@code source} with {@code tag} matches (wildcards as zeros under the mask). */
    private long matchTag(final int source, final int tag) {
        return Tags.make(cid, source == MPI.ANY_SOURCE ? 0 : source, tag == MPI.ANY_TAG ? 0 : tag);
    }

    // ------------------------------------------------------------------ persistent requests

    /** A persistent standard send (started with {@link Prequest#start}). */
    public final Prequest sendInit(final Buffer buf, final int count, final Datatype type, final int dest,
                                   final int tag) throws MPIException {
        return persistent(false, Prequest.STANDARD, buf, count, type, dest, tag);
    }

    /** A persistent buffered send. */
    public final Prequest bSendInit(final Buffer buf, final int count, final Datatype type, final int dest,
                                    final int tag) throws MPIException {
        return persistent(false, Prequest.BUFFERED, buf, count, type, dest, tag);
    }

    /** A persistent synchronous send. */
    public final Prequest sSendInit(final Buffer buf, final int count, final Datatype type, final int dest,
                                    final int tag) throws MPIException {
        return persistent(false, Prequest.SYNCHRONOUS, buf, count, type, dest, tag);
    }

    /** A persistent ready send (here a standard send). */
    public final Prequest rSendInit(final Buffer buf, final int count, final Datatype type, final int dest,
                                    final int tag) throws MPIException {
        return persistent(false, Prequest.STANDARD, buf, count, type, dest, tag);
    }

    /** A persistent receive. */
    public final Prequest recvInit(final Buffer buf, final int count, final Datatype type, final int source,
                                   final int tag) throws MPIException {
        return persistent(true, Prequest.STANDARD, buf, count, type, source, tag);
    }

    private Prequest persistent(final boolean receive, final int mode, final Buffer buf, final int count,
                                final Datatype type, final int peer, final int tag) throws MPIException {
        Span.ofDirect(buf, "buffer");
        checkLive();
        try {
            if (receive) {
                Args.checkRecv(count, type, peer, tag, peers());
            } else {
                Args.checkSend(count, type, peer, tag, peers());
            }
            return new Prequest(self(), receive, mode, buf, count, type, peer, tag);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    // ------------------------------------------------------------------ probe

    /** Waits until a matching message has arrived and describes it, without receiving it. */
    public final Status probe(final int source, final int tag) throws MPIException {
        checkLive();
        try {
            Args.checkRecv(0, MPI.BYTE, source, tag, peers());
            if (source == MPI.PROC_NULL) {
                return Status.empty();
            }
            for (int idle = 0; ; ) {
                final Status s = peek(source, tag);
                if (s != null) {
                    return s;
                }
                idle = Progress.step(session.worker, idle);
            }
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Describes a matching message that has arrived, or returns null. */
    public final Status iProbe(final int source, final int tag) throws MPIException {
        checkLive();
        try {
            Args.checkRecv(0, MPI.BYTE, source, tag, peers());
            if (source == MPI.PROC_NULL) {
                return Status.empty();
            }
            session.worker.progress();
            return peek(source, tag);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private Status peek(final int source, final int tag) {
        final long t = matchTag(source, tag);
        if (session.am != null) {
            return session.am.peek(t, Tags.mask(source, tag));
        }
        final weft.ucp.TagMessage m = session.worker.probeTag(t, Tags.mask(source, tag), false);
        return m == null ? null : new Status(Tags.source(m.tag()), Tags.tag(m.tag()), MPI.SUCCESS, m.length(), false);
    }

    // ------------------------------------------------------------------ pack

    /** Packs {@code incount} elements into {@code outbuf} at {@code position}; returns the new position. */
    public final int pack(final Object inbuf, final int incount, final Datatype type, final byte[] outbuf,
                          final int position) throws MPIException {
        checkLive();
        try {
            return Packing.pack(inbuf, incount, type, outbuf, position);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Unpacks {@code outcount} elements from {@code inbuf} at {@code position}; returns the new position. */
    public final int unpack(final byte[] inbuf, final int position, final Object outbuf, final int outcount,
                            final Datatype type) throws MPIException {
        checkLive();
        try {
            return Packing.unpack(inbuf, position, outbuf, outcount, type);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** The bytes {@link #pack} needs for {@code incount} elements. */
    public final int packSize(final int incount, final Datatype type) throws MPIException {
        checkLive();
        return Math.toIntExact(incount * type.size);
    }

    // ------------------------------------------------------------------ internal

    /** This communicator as the {@link Comm} it always is (the only subclass). */
    final Comm self() {
        return (Comm) this;
    }

    /** The endpoint to communicator rank {@code r} (made on first use). */
    final Endpoint endpoint(final int r) {
        return session.job.endpoint((remote != null ? remote : group).members[r]);
    }

    /** The job rank of communicator (or remote group) rank {@code r}. */
    final int jobRank(final int r) {
        return (remote != null ? remote : group).members[r];
    }

    /** How many ranks messages can be addressed to: the remote group's size on an intercommunicator. */
    final int peers() {
        return remote != null ? remote.members.length : size;
    }

    final int nextCollectiveSeq() {
        final int s = collectiveSeq;
        collectiveSeq = (collectiveSeq + 1) & Tags.TAG_UB;
        return s;
    }

    final void checkLive() throws MPIException {
        MPI.check();
        if (cid < 0) {
            throw new MPIException(MPI.ERR_COMM, "the communicator is null or was freed");
        }
    }

    /**
     * Hands an error to the communicator's handler: under {@link MPI#ERRORS_ARE_FATAL} it ends the job (exit
     * status: the error class) and does not return; otherwise it returns the exception to throw.
     */
    final MPIException fail(final Exception e) {
        final MPIException m;
        if (e instanceof MPIException me) {
            m = me;
        } else if (e instanceof WeftException we) {
            m = new MPIException(we.status() == weft.ucs.Status.INVALID_PARAM ? MPI.ERR_ARG : MPI.ERR_OTHER,
                we.getMessage(), we);
        } else {
            m = new MPIException(MPI.ERR_INTERN, String.valueOf(e), e);
        }
        if (errhandler.fatal && session != null) {
            final String msg = "MPI error on rank " + rank + " of " + (name.isEmpty() ? "a communicator" : name)
                + " (error class " + m.getErrorClass() + ", handler MPI_ERRORS_ARE_FATAL): " + m.getMessage();
            session.job.runtime().abort(m.getErrorClass() == 0 ? 1 : m.getErrorClass(), msg);
        }
        return m;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + (name.isEmpty() ? "cid " + cid : name) + ", rank " + rank + "/"
            + size + "]";
    }
}
