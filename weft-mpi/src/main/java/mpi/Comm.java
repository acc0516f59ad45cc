package mpi;

import weft.ucp.Endpoint;
import weft.ucs.WeftException;

import java.nio.Buffer;

/**
 * A communicator (MPI_Comm): a group of ranks and a private message space. Point-to-point calls and the
 * collectives of MPI live here; {@link Intracomm} adds the calls that make new communicators.
 *
 * <p>Buffers: blocking calls take Java arrays of primitives or {@code java.nio} buffers; non-blocking calls
 * take direct buffers ({@link MPI#newIntBuffer} ...), since they keep using the memory after they return. A
 * buffer's element 0 is where the data starts (use {@link MPI#slice} for an offset); counts are in elements
 * of the datatype.
 *
 * <p>Errors go to the communicator's error handler: by default ({@link MPI#ERRORS_ARE_FATAL}) they end the
 * job; after {@code setErrhandler(MPI.ERRORS_RETURN)} they are thrown as {@link MPIException}s.
 */
public class Comm {
    Session session;
    Group group;
    int rank = MPI.UNDEFINED;
    int size;
    /** Even context id of point-to-point traffic; cid + 1 carries the collectives. */
    int cid = -1;
    private int collectiveSeq;
    Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    private String name = "";
    private final Attributes attributes = new Attributes();

    Comm() {
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

    /** A new communicator with the same group and its own message space (collective). */
    public Comm dup() throws MPIException {
        return dupInto(new Comm());
    }

    /** The same as {@link #dup}; the hints are ignored. */
    public Comm dupWithInfo(final Info info) throws MPIException {
        return dup();
    }

    final <C extends Comm> C dupInto(final C c) throws MPIException {
        checkLive();
        try {
            final int newCid = agreeOnCid();
            c.setup(session, group, newCid, "");
            c.errhandler = errhandler;
            return c;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /**
     * Every rank's lowest free context id, maximized over the communicator: a pair free at every member
     * (collective; ranks outside a new communicator still take the id so that all stay in step).
     */
    final int agreeOnCid() throws MPIException {
        final int[] v = {session.proposeCid()};
        final Span s = Span.of(v);
        ReduceCollectives.allreduce(this, s, s, 1, MPI.INT, MPI.MAX);
        session.takeCid(v[0]);
        return v[0];
    }

    /** Marks the communicator freed; later calls on it fail with ERR_COMM. */
    public final void free() throws MPIException {
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

    /** False: intercommunicators are not made by this implementation yet. */
    public final boolean isInter() throws MPIException {
        checkLive();
        return false;
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

    /** Raises error {@code errorCode} through this communicator's handler. */
    public void callErrhandler(final int errorCode) throws MPIException {
        checkLive();
        throw fail(new MPIException(errorCode, "error " + errorCode + " raised by callErrhandler"));
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
            Args.checkSend(count, type, dest, tag, size);
            if (dest == MPI.PROC_NULL) {
                return;
            }
            session.buffered.send(this, Args.data(buf, count, type), count, type, dest, Tags.make(cid, rank, tag));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private void blockingSend(final Object buf, final int count, final Datatype type, final int dest, final int tag,
                              final boolean sync) throws MPIException {
        checkLive();
        try {
            Args.checkSend(count, type, dest, tag, size);
            if (dest == MPI.PROC_NULL) {
                return;
            }
            final Span span = Span.of(buf);
            span.check(count, type);
            Messaging.awaitSend(Messaging.send(this, dest, Tags.make(cid, rank, tag), span, count, type, sync));
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
        checkLive();
        try {
            Args.checkRecv(count, type, source, tag, size);
            if (source == MPI.PROC_NULL) {
                return Status.empty();
            }
            final Span span = Span.of(buf);
            span.check(count, type);
            final weft.ucp.Request r = startRecv(span, count, type, source, tag);
            final weft.ucs.Status st = r.awaitStatus();
            final Status s = Messaging.received(r, count * type.size);
            span.finish();
            if (s.getError() != MPI.SUCCESS) {
                throw Messaging.failure(s, st, "recv");
            }
            return s;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Sends one message and receives another at once. */
    public final Status sendRecv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int dest,
                                 final int sendtag, final Object recvbuf, final int recvcount,
                                 final Datatype recvtype, final int source, final int recvtag) throws MPIException {
        checkLive();
        try {
            Args.checkSend(sendcount, sendtype, dest, sendtag, size);
            Args.checkRecv(recvcount, recvtype, source, recvtag, size);
            final Span in = source == MPI.PROC_NULL ? null : Span.of(recvbuf);
            if (in != null) {
                in.check(recvcount, recvtype);
            }
            final weft.ucp.Request r = in == null ? null : startRecv(in, recvcount, recvtype, source, recvtag);
            if (dest != MPI.PROC_NULL) {
                final Span out = Span.of(sendbuf);
                out.check(sendcount, sendtype);
                Messaging.awaitSend(Messaging.send(this, dest, Tags.make(cid, rank, sendtag), out, sendcount,
                    sendtype, false));
            }
            if (r == null) {
                return Status.empty();
            }
            final weft.ucs.Status st = r.awaitStatus();
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
            Args.checkSend(count, type, dest, sendtag, size);
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
        return Request.completed(this, Status.empty());
    }

    private Request startSend(final Span span, final int count, final Datatype type, final int dest, final int tag,
                              final boolean sync) throws MPIException {
        checkLive();
        try {
            Args.checkSend(count, type, dest, tag, size);
            if (dest == MPI.PROC_NULL) {
                return Request.completed(this, Status.empty());
            }
            span.check(count, type);
            final Request r = new Request(this);
            r.started(Request.SEND, Messaging.send(this, dest, Tags.make(cid, rank, tag), span, count, type, sync),
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
            Args.checkRecv(count, type, source, tag, size);
            if (source == MPI.PROC_NULL) {
                return Request.completed(this, Status.empty());
            }
            span.check(count, type);
            final Request r = new Request(this);
            r.started(Request.RECV, startRecv(span, count, type, source, tag), span, count * type.size);
            return r;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private weft.ucp.Request startRecv(final Span span, final int count, final Datatype type, final int source,
                                       final int tag) {
        final long t = Tags.make(cid, source == MPI.ANY_SOURCE ? 0 : source, tag == MPI.ANY_TAG ? 0 : tag);
        return Messaging.recv(session.worker, t, Tags.mask(source, tag), span, count, type);
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
                Args.checkRecv(count, type, peer, tag, size);
            } else {
                Args.checkSend(count, type, peer, tag, size);
            }
            return new Prequest(this, receive, mode, buf, count, type, peer, tag);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    // ------------------------------------------------------------------ probe

    /** Waits until a matching message has arrived and describes it, without receiving it. */
    public final Status probe(final int source, final int tag) throws MPIException {
        checkLive();
        try {
            Args.checkRecv(0, MPI.BYTE, source, tag, size);
            if (source == MPI.PROC_NULL) {
                return Status.empty();
            }
            for (int spins = 0; ; spins++) {
                final Status s = peek(source, tag);
                if (s != null) {
                    return s;
                }
                if (session.worker.progress() == 0 && spins > 1000) {
                    Thread.yield();
                }
            }
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Describes a matching message that has arrived, or returns null. */
    public final Status iProbe(final int source, final int tag) throws MPIException {
        checkLive();
        try {
            Args.checkRecv(0, MPI.BYTE, source, tag, size);
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
        final long t = Tags.make(cid, source == MPI.ANY_SOURCE ? 0 : source, tag == MPI.ANY_TAG ? 0 : tag);
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

    // ------------------------------------------------------------------ collectives

    /** Returns once every rank of the communicator has called it. */
    public final void barrier() throws MPIException {
        collective(() -> Collectives.barrier(this));
    }

    /** Copies {@code root}'s buffer to every rank. */
    public final void bcast(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            Collectives.bcast(this, Args.data(buf, count, type), count, type, root);
        });
    }

    /** Gathers {@code sendcount} elements from every rank into {@code root}'s buffer, in rank order. */
    public final void gather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf,
                             final int recvcount, final Datatype recvtype, final int root) throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            final Span send = Args.data(sendbuf, sendcount, sendtype);
            final int[][] b = Collectives.blocks(size, recvcount);
            final Span recv = rank == root ? Args.blocks(recvbuf, b[0], b[1], recvtype, size) : null;
            Collectives.gatherv(this, send, sendcount, sendtype, recv, b[0], b[1], recvtype, root);
        });
    }

    /** In-place gather: the root's own block is already in place in {@code buf}; the others send {@code buf}. */
    public final void gather(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            final int[][] b = Collectives.blocks(size, count);
            if (rank == root) {
                final Span recv = Args.blocks(buf, b[0], b[1], type, size);
                Collectives.gatherv(this, null, 0, type, recv, b[0], b[1], type, root);
            } else {
                Collectives.gatherv(this, Args.data(buf, count, type), count, type, null, b[0], b[1], type, root);
            }
        });
    }

    /** Gathers {@code recvcount[i]} elements from rank i at {@code displs[i]} (in extents) of the root's buffer. */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
                              final Object recvbuf, final int[] recvcount, final int[] displs,
                              final Datatype recvtype, final int root) throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            final Span send = Args.data(sendbuf, sendcount, sendtype);
            final Span recv = rank == root ? Args.blocks(recvbuf, recvcount, displs, recvtype, size) : null;
            Collectives.gatherv(this, send, sendcount, sendtype, recv, recvcount, displs, recvtype, root);
        });
    }

    /** In-place {@link #gatherv} at the root (its block already in place). */
    public final void gatherv(final Object recvbuf, final int[] recvcount, final int[] displs,
                              final Datatype recvtype, final int root) throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            Args.checkIs(rank == root, "the in-place gatherv without a send buffer is the root's form");
            final Span recv = Args.blocks(recvbuf, recvcount, displs, recvtype, size);
            Collectives.gatherv(this, null, 0, recvtype, recv, recvcount, displs, recvtype, root);
        });
    }

    /** {@link #gatherv} at a rank other than the root. */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int root)
        throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            Args.checkIs(rank != root, "the root of gatherv must give its receive buffer");
            Collectives.gatherv(this, Args.data(sendbuf, sendcount, sendtype), sendcount, sendtype, null, null, null,
                sendtype, root);
        });
    }

    /** Sends block i ({@code sendcount} elements) of the root's buffer to rank i. */
    public final void scatter(final Object sendbuf, final int sendcount, final Datatype sendtype,
                              final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
        throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            final int[][] b = Collectives.blocks(size, sendcount);
            final Span send = rank == root ? Args.blocks(sendbuf, b[0], b[1], sendtype, size) : null;
            Collectives.scatterv(this, send, b[0], b[1], sendtype, Args.data(recvbuf, recvcount, recvtype), recvcount,
                recvtype, root);
        });
    }

    /** In-place scatter: the root keeps its block in {@code buf}; the others receive into {@code buf}. */
    public final void scatter(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            final int[][] b = Collectives.blocks(size, count);
            if (rank == root) {
                final Span send = Args.blocks(buf, b[0], b[1], type, size);
                Collectives.scatterv(this, send, b[0], b[1], type, null, 0, type, root);
            } else {
                Collectives.scatterv(this, null, b[0], b[1], type, Args.data(buf, count, type), count, type, root);
            }
        });
    }

    /** Sends {@code sendcount[i]} elements at {@code displs[i]} (in extents) of the root's buffer to rank i. */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs,
                               final Datatype sendtype, final Object recvbuf, final int recvcount,
                               final Datatype recvtype, final int root) throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            final Span send = rank == root ? Args.blocks(sendbuf, sendcount, displs, sendtype, size) : null;
            Collectives.scatterv(this, send, sendcount, displs, sendtype, Args.data(recvbuf, recvcount, recvtype),
                recvcount, recvtype, root);
        });
    }

    /** In-place {@link #scatterv} at the root (it keeps its block where it is). */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs,
                               final Datatype sendtype, final int root) throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            Args.checkIs(rank == root, "the in-place scatterv without a receive buffer is the root's form");
            final Span send = Args.blocks(sendbuf, sendcount, displs, sendtype, size);
            Collectives.scatterv(this, send, sendcount, displs, sendtype, null, 0, sendtype, root);
        });
    }

    /** {@link #scatterv} at a rank other than the root. */
    public final void scatterv(final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
        throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            Args.checkIs(rank != root, "the root of scatterv must give its send buffer");
            Collectives.scatterv(this, null, null, null, recvtype, Args.data(recvbuf, recvcount, recvtype), recvcount,
                recvtype, root);
        });
    }

    /** Every rank gets every rank's {@code sendcount} elements, in rank order. */
    public final void allGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        collective(() -> {
            final int[][] b = Collectives.blocks(size, recvcount);
            Collectives.allgatherv(this, Args.data(sendbuf, sendcount, sendtype), sendcount, sendtype,
                Args.blocks(recvbuf, b[0], b[1], recvtype, size), b[0], b[1], recvtype);
        });
    }

    /** In-place allgather: each rank's block is already at its place in {@code buf}. */
    public final void allGather(final Object buf, final int count, final Datatype type) throws MPIException {
        collective(() -> {
            final int[][] b = Collectives.blocks(size, count);
            Collectives.allgatherv(this, null, 0, type, Args.blocks(buf, b[0], b[1], type, size), b[0], b[1], type);
        });
    }

    /** Every rank gets {@code recvcount[i]} elements from rank i at {@code displs[i]} (in extents). */
    public final void allGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                 final Object recvbuf, final int[] recvcount, final int[] displs,
                                 final Datatype recvtype) throws MPIException {
        collective(() -> Collectives.allgatherv(this, Args.data(sendbuf, sendcount, sendtype), sendcount, sendtype,
            Args.blocks(recvbuf, recvcount, displs, recvtype, size), recvcount, displs, recvtype));
    }

    /** In-place {@link #allGatherv}. */
    public final void allGatherv(final Object recvbuf, final int[] recvcount, final int[] displs,
                                 final Datatype recvtype) throws MPIException {
        collective(() -> {
            final Span recv = Args.blocks(recvbuf, recvcount, displs, recvtype, size);
            Collectives.allgatherv(this, null, 0, recvtype, recv, recvcount, displs, recvtype);
        });
    }

    /** Block i of every rank's send buffer goes to rank i, which keeps it as block (sender's rank). */
    public final void allToAll(final Object sendbuf, final int sendcount, final Datatype sendtype,
                               final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        collective(() -> {
            final int[][] s = Collectives.blocks(size, sendcount);
            final int[][] r = Collectives.blocks(size, recvcount);
            Collectives.alltoallv(this, Args.blocks(sendbuf, s[0], s[1], sendtype, size), s[0], s[1], sendtype,
                Args.blocks(recvbuf, r[0], r[1], recvtype, size), r[0], r[1], recvtype);
        });
    }

    /** {@link #allToAll} with a count and displacement (in extents) per rank on both sides. */
    public final void allToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
                                final Datatype sendtype, final Object recvbuf, final int[] recvcount,
                                final int[] rdispls, final Datatype recvtype) throws MPIException {
        collective(() -> {
            final Span send = Args.blocks(sendbuf, sendcount, sdispls, sendtype, size);
            final Span recv = Args.blocks(recvbuf, recvcount, rdispls, recvtype, size);
            Collectives.alltoallv(this, send, sendcount, sdispls, sendtype, recv, recvcount, rdispls, recvtype);
        });
    }

    /** Combines every rank's {@code sendbuf} with {@code op} into {@code root}'s {@code recvbuf}. */
    public final void reduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                             final Op op, final int root) throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            Args.checkOp(op, type);
            final Span in = Args.data(sendbuf, count, type);
            ReduceCollectives.reduce(this, in, rank == root ? Args.data(recvbuf, count, type) : null, count, type, op,
                root);
        });
    }

    /** In-place reduce: {@code buf} is the input everywhere and the result at the root. */
    public final void reduce(final Object buf, final int count, final Datatype type, final Op op, final int root)
        throws MPIException {
        collective(() -> {
            Args.checkRoot(root, size);
            Args.checkOp(op, type);
            final Span s = Args.data(buf, count, type);
            ReduceCollectives.reduce(this, s, s, count, type, op, root);
        });
    }

    /** Every rank gets the combination of every rank's {@code sendbuf}. */
    public final void allReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                                final Op op) throws MPIException {
        collective(() -> {
            Args.checkOp(op, type);
            final Span in = Args.data(sendbuf, count, type);
            ReduceCollectives.allreduce(this, in, Args.data(recvbuf, count, type), count, type, op);
        });
    }

    /** In-place allreduce. */
    public final void allReduce(final Object buf, final int count, final Datatype type, final Op op)
        throws MPIException {
        collective(() -> {
            Args.checkOp(op, type);
            final Span s = Args.data(buf, count, type);
            ReduceCollectives.allreduce(this, s, s, count, type, op);
        });
    }

    /** Combines every rank's {@code sendbuf}; rank i gets block i ({@code recvcounts[i]} elements). */
    public final void reduceScatter(final Object sendbuf, final Object recvbuf, final int[] recvcounts,
                                    final Datatype type, final Op op) throws MPIException {
        collective(() -> {
            Args.checkOp(op, type);
            final int total = Args.total(recvcounts, size);
            final Span in = Args.data(sendbuf, total, type);
            ReduceCollectives.reduceScatter(this, in, Args.data(recvbuf, recvcounts[rank], type), recvcounts, type, op);
        });
    }

    /** In-place reduce-scatter: the input is {@code buf}, the result goes to its start. */
    public final void reduceScatter(final Object buf, final int[] counts, final Datatype type, final Op op)
        throws MPIException {
        collective(() -> {
            Args.checkOp(op, type);
            final Span s = Args.data(buf, Args.total(counts, size), type);
            ReduceCollectives.reduceScatter(this, s, s, counts, type, op);
        });
    }

    /** {@link #reduceScatter} with {@code recvcount} elements for every rank. */
    public final void reduceScatterBlock(final Object sendbuf, final Object recvbuf, final int recvcount,
                                         final Datatype type, final Op op) throws MPIException {
        reduceScatter(sendbuf, recvbuf, Collectives.blocks(size, recvcount)[0], type, op);
    }

    /** In-place {@link #reduceScatterBlock}. */
    public final void reduceScatterBlock(final Object buf, final int recvcount, final Datatype type, final Op op)
        throws MPIException {
        reduceScatter(buf, Collectives.blocks(size, recvcount)[0], type, op);
    }

    /** {@code inOutBuf = inBuf op inOutBuf}, locally. */
    public static void reduceLocal(final Object inBuf, final Object inOutBuf, final int count, final Datatype type,
                                   final Op op) throws MPIException {
        MPI.check();
        Args.checkData(count, type);
        op.check(type);
        final Span in = Span.of(inBuf);
        final Span io = Span.of(inOutBuf);
        in.check(count, type);
        io.check(count, type);
        final java.lang.foreign.MemorySegment a = Coll.packed(in, count, type);
        final java.lang.foreign.MemorySegment b = Coll.packed(io, count, type);
        op.apply(a, 0, b, 0, count, type);
        TypeCursor.unpack(b, 0, io, count, type);
        io.finish();
    }

    /** A collective's body: validation and algorithm, whose errors go to the error handler. */
    @FunctionalInterface
    interface Body {
        void run() throws MPIException;
    }

    final void collective(final Body body) throws MPIException {
        checkLive();
        try {
            body.run();
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    // ------------------------------------------------------------------ internal

    /** The endpoint to communicator rank {@code r} (made on first use). */
    final Endpoint endpoint(final int r) {
        return session.job.endpoint(group.members[r]);
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
