package mpi;

import java.nio.Buffer;

/**
 * A communicator (MPI_Comm): a group of ranks and a private message space, with MPI's point-to-point calls
 * (inherited) and collectives (here); {@link Intracomm} adds the calls that make new communicators.
 *
 * <p>Buffers: blocking calls take Java arrays of primitives or {@code java.nio} buffers; non-blocking calls
 * ({@code iSend}, {@code iBcast}, ...) take direct buffers ({@link MPI#newIntBuffer} ...), since they keep
 * using the memory after they return. A buffer's element 0 is where the data starts (use {@link MPI#slice}
 * for an offset); counts are in elements of the datatype.
 *
 * <p>Errors go to the communicator's error handler: by default ({@link MPI#ERRORS_ARE_FATAL}) they end the
 * job; after {@code setErrhandler(MPI.ERRORS_RETURN)} they are thrown as {@link MPIException}s.
 *
 * <p>Collectives: every rank calls the same collectives in the same order. A non-blocking collective moves
 * on whenever its request is tested or waited for.
 */
public class Comm extends CollectiveCalls implements Freeable, Cloneable {
    Comm() {
    }

    /** A new communicator with the same group and its own message space (collective). */
    public Comm dup() throws MPIException {
        return dupInto(new Comm());
    }

    /** The same as {@link #dup}; the hints are ignored. */
    public Comm dupWithInfo(final Info info) throws MPIException {
        return dup();
    }

    /** {@link #dup}, for code that cannot take the checked exception (it becomes an IllegalStateException). */
    @Override
    public Comm clone() {
        try {
            return dup();
        } catch (final MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** {@link #dup}, completed before it returns (a valid schedule for a non-blocking duplicate). */
    public Comm iDup() throws MPIException {
        return dup();
    }

    /** Frees the communicator once this rank's operations on it are done (here: at once, as {@link #free}). */
    public final void disconnect() throws MPIException {
        free();
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
        ReduceCollectives.allreduce(this, s, s, 1, MPI.INT, MPI.MAX).run();
        session.takeCid(v[0]);
        return v[0];
    }

    /**
     * An intercommunicator between {@code localComm} (this rank's group) and the group whose leader is
     * {@code remoteLeader} in this communicator (the peer communicator, used by the two leaders only, with
     * {@code tag}). Collective over both groups.
     */
    public final Intercomm createIntercomm(final Comm localComm, final int localLeader, final int remoteLeader,
                                           final int tag) throws MPIException {
        localComm.checkLive();
        try {
            return Intercomm.create(localComm, localLeader, this, remoteLeader, tag);
        } catch (final MPIException | RuntimeException e) {
            throw localComm.fail(e);
        }
    }

    // ------------------------------------------------------------------ barrier, broadcast

    /** Returns once every rank of the communicator has called it. */
    public final void barrier() throws MPIException {
        checkLive();
        try {
            complete(barrierOf());
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** A barrier that completes once every rank has started it. */
    public final Request iBarrier() throws MPIException {
        return started(this::barrierOf);
    }

    private Schedule barrierOf() {
        return remote != null ? InterCollectives.barrier(this) : Collectives.barrier(this);
    }

    /** Copies {@code root}'s buffer to every rank. */
    public final void bcast(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        checkLive();
        try {
            complete(bcastOf(Args.data(buf, count, type), count, type, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #bcast}. */
    public final Request iBcast(final Buffer buf, final int count, final Datatype type, final int root)
        throws MPIException {
        directs(buf);
        return started(() -> bcastOf(direct(buf, count, type), count, type, root));
    }

    private Schedule bcastOf(final Span buf, final int count, final Datatype type, final int root)
        throws MPIException {
        if (remote != null) {
            InterCollectives.checkRoot(root, peers());
            return InterCollectives.bcast(this, buf, count, type, root);
        }
        Args.checkRoot(root, size);
        final weft.mpi.MpiConfig.Thresholds t = session.thresholds;
        if (count * type.size >= t.bcastLarge() && size >= t.bcastLargeMinRanks()) {
            return Collectives.bcastLarge(this, buf, count, type, root);
        }
        return Collectives.bcast(this, buf, count, type, root);
    }

    // ------------------------------------------------------------------ gather

    /** Gathers {@code sendcount} elements from every rank into {@code root}'s buffer, in rank order. */
    public final void gather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf,
                             final int recvcount, final Datatype recvtype, final int root) throws MPIException {
        checkLive();
        try {
            complete(gatherOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #gather(Object, int, Datatype, Object, int, Datatype, int)}. */
    public final Request iGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                 final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
        throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> gatherOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** In-place gather: the root's own block is already in place in {@code buf}; the others send {@code buf}. */
    public final void gather(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        checkLive();
        try {
            complete(gatherInPlace(buf, count, type, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place gather. */
    public final Request iGather(final Buffer buf, final int count, final Datatype type, final int root)
        throws MPIException {
        directs(buf);
        return started(() -> gatherInPlace(buf, count, type, root));
    }

    private Schedule gatherOf(final Object sendbuf, final int sendcount, final Datatype sendtype,
                              final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
        throws MPIException {
        if (remote != null) {
            final int[][] b = Collectives.blocks(peers(), recvcount);
            return gathervOf(root == MPI.ROOT ? null : sendbuf, sendcount, sendtype, root == MPI.ROOT ? recvbuf : null,
                b[0], b[1], recvtype, root);
        }
        Args.checkRoot(root, size);
        final Span send = Args.data(sendbuf, sendcount, sendtype);
        final int[][] b = Collectives.blocks(size, recvcount);
        final Span recv = rank == root ? Args.blocks(recvbuf, b[0], b[1], recvtype, size) : null;
        return Collectives.gatherv(this, send, sendcount, sendtype, recv, b[0], b[1], recvtype, root);
    }

    private Schedule gatherInPlace(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        if (remote != null) {
            // no own block to keep in place: buf is the root's receive buffer, the remote ranks' send buffer
            return gatherOf(buf, count, type, buf, count, type, root);
        }
        Args.checkRoot(root, size);
        final int[][] b = Collectives.blocks(size, count);
        if (rank == root) {
            final Span recv = Args.blocks(buf, b[0], b[1], type, size);
            return Collectives.gatherv(this, null, 0, type, recv, b[0], b[1], type, root);
        }
        return Collectives.gatherv(this, Args.data(buf, count, type), count, type, null, b[0], b[1], type, root);
    }

    /** Gathers {@code recvcount[i]} elements from rank i at {@code displs[i]} (in extents) of the root's buffer. */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
                              final Object recvbuf, final int[] recvcount, final int[] displs,
                              final Datatype recvtype, final int root) throws MPIException {
        checkLive();
        try {
            complete(gathervOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #gatherv(Object, int, Datatype, Object, int[], int[], Datatype, int)}. */
    public final Request iGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                  final Buffer recvbuf, final int[] recvcount, final int[] displs,
                                  final Datatype recvtype, final int root) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> gathervOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root));
    }

    /** In-place {@link #gatherv} at the root (its block already in place). */
    public final void gatherv(final Object recvbuf, final int[] recvcount, final int[] displs,
                              final Datatype recvtype, final int root) throws MPIException {
        checkLive();
        try {
            complete(gathervOf(null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place {@link #gatherv} at the root. */
    public final Request iGatherv(final Buffer recvbuf, final int[] recvcount, final int[] displs,
                                  final Datatype recvtype, final int root) throws MPIException {
        directs(recvbuf);
        return started(() -> gathervOf(null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root));
    }

    /** {@link #gatherv} at a rank other than the root. */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int root)
        throws MPIException {
        checkLive();
        try {
            complete(gathervOf(sendbuf, sendcount, sendtype, null, null, null, sendtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #gatherv} at a rank other than the root. */
    public final Request iGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                  final int root) throws MPIException {
        directs(sendbuf);
        return started(() -> gathervOf(sendbuf, sendcount, sendtype, null, null, null, sendtype, root));
    }

    /** A gatherv: a null send buffer is the root's in-place form, a null receive buffer a non-root's form. */
    private Schedule gathervOf(final Object sendbuf, final int sendcount, final Datatype sendtype,
                               final Object recvbuf, final int[] recvcount, final int[] displs,
                               final Datatype recvtype, final int root) throws MPIException {
        if (remote != null) {
            InterCollectives.checkRoot(root, peers());
            Args.checkIs(recvbuf != null || root != MPI.ROOT, "the root of gatherv must give its receive buffer");
            Args.checkIs(sendbuf != null || root < 0, "gatherv at the remote group's ranks needs a send buffer");
            final Span send = root >= 0 ? Args.data(sendbuf, sendcount, sendtype) : null;
            final Span recv = root == MPI.ROOT ? Args.blocks(recvbuf, recvcount, displs, recvtype, peers()) : null;
            return InterCollectives.gatherv(this, send, sendcount, sendtype, recv, recvcount, displs, recvtype, root);
        }
        Args.checkRoot(root, size);
        Args.checkIs(sendbuf != null || rank == root, "gatherv without a send buffer is the root's in-place form");
        Args.checkIs(recvbuf != null || rank != root, "the root of gatherv must give its receive buffer");
        final Span send = sendbuf == null ? null : Args.data(sendbuf, sendcount, sendtype);
        final Span recv = rank == root ? Args.blocks(recvbuf, recvcount, displs, recvtype, size) : null;
        return Collectives.gatherv(this, send, sendcount, sendtype, recv, recvcount, displs, recvtype, root);
    }

    // ------------------------------------------------------------------ scatter

    /** Sends block i ({@code sendcount} elements) of the root's buffer to rank i. */
    public final void scatter(final Object sendbuf, final int sendcount, final Datatype sendtype,
                              final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
        throws MPIException {
        checkLive();
        try {
            complete(scatterOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #scatter(Object, int, Datatype, Object, int, Datatype, int)}. */
    public final Request iScatter(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                  final Buffer recvbuf, final int recvcount, final Datatype recvtype,
                                  final int root) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> scatterOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** In-place scatter: the root keeps its block in {@code buf}; the others receive into {@code buf}. */
    public final void scatter(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        checkLive();
        try {
            complete(scatterInPlace(buf, count, type, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place scatter. */
    public final Request iScatter(final Buffer buf, final int count, final Datatype type, final int root)
        throws MPIException {
        directs(buf);
        return started(() -> scatterInPlace(buf, count, type, root));
    }

    private Schedule scatterOf(final Object sendbuf, final int sendcount, final Datatype sendtype,
                               final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
        throws MPIException {
        if (remote != null) {
            final int[][] b = Collectives.blocks(peers(), sendcount);
            return scattervOf(root == MPI.ROOT ? sendbuf : null, b[0], b[1], sendtype,
                root == MPI.ROOT ? null : recvbuf, recvcount, recvtype, root);
        }
        Args.checkRoot(root, size);
        final int[][] b = Collectives.blocks(size, sendcount);
        final Span send = rank == root ? Args.blocks(sendbuf, b[0], b[1], sendtype, size) : null;
        return Collectives.scatterv(this, send, b[0], b[1], sendtype, Args.data(recvbuf, recvcount, recvtype),
            recvcount, recvtype, root);
    }

    private Schedule scatterInPlace(final Object buf, final int count, final Datatype type, final int root)
        throws MPIException {
        if (remote != null) {
            // buf is the root's send buffer and the remote ranks' receive buffer
            return scatterOf(buf, count, type, buf, count, type, root);
        }
        Args.checkRoot(root, size);
        final int[][] b = Collectives.blocks(size, count);
        if (rank == root) {
            final Span send = Args.blocks(buf, b[0], b[1], type, size);
            return Collectives.scatterv(this, send, b[0], b[1], type, null, 0, type, root);
        }
        return Collectives.scatterv(this, null, b[0], b[1], type, Args.data(buf, count, type), count, type, root);
    }

    /** Sends {@code sendcount[i]} elements at {@code displs[i]} (in extents) of the root's buffer to rank i. */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs,
                               final Datatype sendtype, final Object recvbuf, final int recvcount,
                               final Datatype recvtype, final int root) throws MPIException {
        checkLive();
        try {
            complete(scattervOf(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #scatterv(Object, int[], int[], Datatype, Object, int, Datatype, int)}. */
    public final Request iScatterv(final Buffer sendbuf, final int[] sendcount, final int[] displs,
                                   final Datatype sendtype, final Buffer recvbuf, final int recvcount,
                                   final Datatype recvtype, final int root) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> scattervOf(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** In-place {@link #scatterv} at the root (it keeps its block where it is). */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs,
                               final Datatype sendtype, final int root) throws MPIException {
        checkLive();
        try {
            complete(scattervOf(sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place {@link #scatterv} at the root. */
    public final Request iScatterv(final Buffer sendbuf, final int[] sendcount, final int[] displs,
                                   final Datatype sendtype, final int root) throws MPIException {
        directs(sendbuf);
        return started(() -> scattervOf(sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root));
    }

    /** {@link #scatterv} at a rank other than the root. */
    public final void scatterv(final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
        throws MPIException {
        checkLive();
        try {
            complete(scattervOf(null, null, null, recvtype, recvbuf, recvcount, recvtype, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #scatterv} at a rank other than the root. */
    public final Request iScatterv(final Buffer recvbuf, final int recvcount, final Datatype recvtype,
                                   final int root) throws MPIException {
        directs(recvbuf);
        return started(() -> scattervOf(null, null, null, recvtype, recvbuf, recvcount, recvtype, root));
    }

    /** A scatterv: a null receive buffer is the root's in-place form, a null send buffer a non-root's form. */
    private Schedule scattervOf(final Object sendbuf, final int[] sendcount, final int[] displs,
                                final Datatype sendtype, final Object recvbuf, final int recvcount,
                                final Datatype recvtype, final int root) throws MPIException {
        if (remote != null) {
            InterCollectives.checkRoot(root, peers());
            Args.checkIs(sendbuf != null || root != MPI.ROOT, "the root of scatterv must give its send buffer");
            Args.checkIs(recvbuf != null || root < 0, "scatterv at the remote group's ranks needs a receive buffer");
            final Span send = root == MPI.ROOT ? Args.blocks(sendbuf, sendcount, displs, sendtype, peers()) : null;
            final Span recv = root >= 0 ? Args.data(recvbuf, recvcount, recvtype) : null;
            return InterCollectives.scatterv(this, send, sendcount, displs, sendtype, recv, recvcount, recvtype, root);
        }
        Args.checkRoot(root, size);
        Args.checkIs(recvbuf != null || rank == root, "scatterv without a receive buffer is the root's in-place form");
        Args.checkIs(sendbuf != null || rank != root, "the root of scatterv must give its send buffer");
        final Span send = rank == root ? Args.blocks(sendbuf, sendcount, displs, sendtype, size) : null;
        final Span recv = recvbuf == null ? null : Args.data(recvbuf, recvcount, recvtype);
        return Collectives.scatterv(this, send, sendcount, displs, sendtype, recv, recvcount, recvtype, root);
    }

    // ------------------------------------------------------------------ allgather, all-to-all

    /** Every rank gets every rank's {@code sendcount} elements, in rank order. */
    public final void allGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        checkLive();
        try {
            complete(allGatherOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #allGather(Object, int, Datatype, Object, int, Datatype)}. */
    public final Request iAllGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                    final Buffer recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> allGatherOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    /** In-place allgather: each rank's block is already at its place in {@code buf}. */
    public final void allGather(final Object buf, final int count, final Datatype type) throws MPIException {
        checkLive();
        try {
            complete(allGatherOf(null, 0, type, buf, count, type));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place allgather. */
    public final Request iAllGather(final Buffer buf, final int count, final Datatype type) throws MPIException {
        directs(buf);
        return started(() -> allGatherOf(null, 0, type, buf, count, type));
    }

    private Schedule allGatherOf(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                 final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        final int[][] b = Collectives.blocks(peers(), recvcount);
        return allGathervOf(sendbuf, sendcount, sendtype, recvbuf, b[0], b[1], recvtype);
    }

    /** Every rank gets {@code recvcount[i]} elements from rank i at {@code displs[i]} (in extents). */
    public final void allGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                 final Object recvbuf, final int[] recvcount, final int[] displs,
                                 final Datatype recvtype) throws MPIException {
        checkLive();
        try {
            complete(allGathervOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #allGatherv(Object, int, Datatype, Object, int[], int[], Datatype)}. */
    public final Request iAllGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                     final Buffer recvbuf, final int[] recvcount, final int[] displs,
                                     final Datatype recvtype) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> allGathervOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype));
    }

    /** In-place {@link #allGatherv}. */
    public final void allGatherv(final Object recvbuf, final int[] recvcount, final int[] displs,
                                 final Datatype recvtype) throws MPIException {
        checkLive();
        try {
            complete(allGathervOf(null, 0, recvtype, recvbuf, recvcount, displs, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place {@link #allGatherv}. */
    public final Request iAllGatherv(final Buffer buf, final int[] count, final int[] displs, final Datatype type)
        throws MPIException {
        directs(buf);
        return started(() -> allGathervOf(null, 0, type, buf, count, displs, type));
    }

    private Schedule allGathervOf(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                  final Object recvbuf, final int[] recvcount, final int[] displs,
                                  final Datatype recvtype) throws MPIException {
        final Span send = sendbuf == null ? null : Args.data(sendbuf, sendcount, sendtype);
        final Span recv = Args.blocks(recvbuf, recvcount, displs, recvtype, peers());
        if (remote != null) {
            if (send == null) {
                throw new MPIException(MPI.ERR_ARG, "allGather(v) on an intercommunicator has no in-place form");
            }
            return InterCollectives.allgatherv(this, send, sendcount, sendtype, recv, recvcount, displs, recvtype);
        }
        return Collectives.allgatherv(this, send, sendcount, sendtype, recv, recvcount, displs, recvtype);
    }

    /** Block i of every rank's send buffer goes to rank i, which keeps it as block (sender's rank). */
    public final void allToAll(final Object sendbuf, final int sendcount, final Datatype sendtype,
                               final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        checkLive();
        try {
            complete(allToAllOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #allToAll}. */
    public final Request iAllToAll(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                   final Buffer recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> allToAllOf(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    private Schedule allToAllOf(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        final int[][] s = Collectives.blocks(peers(), sendcount);
        final int[][] r = Collectives.blocks(peers(), recvcount);
        return allToAllvOf(sendbuf, s[0], s[1], sendtype, recvbuf, r[0], r[1], recvtype);
    }

    /** {@link #allToAll} with a count and displacement (in extents) per rank on both sides. */
    public final void allToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
                                final Datatype sendtype, final Object recvbuf, final int[] recvcount,
                                final int[] rdispls, final Datatype recvtype) throws MPIException {
        checkLive();
        try {
            complete(allToAllvOf(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #allToAllv}. */
    public final Request iAllToAllv(final Buffer sendbuf, final int[] sendcount, final int[] sdispls,
                                    final Datatype sendtype, final Buffer recvbuf, final int[] recvcount,
                                    final int[] rdispls, final Datatype recvtype) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> allToAllvOf(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls,
            recvtype));
    }

    private Schedule allToAllvOf(final Object sendbuf, final int[] sendcount, final int[] sdispls,
                                 final Datatype sendtype, final Object recvbuf, final int[] recvcount,
                                 final int[] rdispls, final Datatype recvtype) throws MPIException {
        final Span send = Args.blocks(sendbuf, sendcount, sdispls, sendtype, peers());
        final Span recv = Args.blocks(recvbuf, recvcount, rdispls, recvtype, peers());
        if (remote != null) {
            return InterCollectives.alltoallv(this, send, sendcount, sdispls, sendtype, recv, recvcount, rdispls,
                recvtype);
        }
        return Collectives.alltoallv(this, send, sendcount, sdispls, sendtype, recv, recvcount, rdispls, recvtype);
    }

    /** {@link #allToAllv} with a datatype per rank and displacements in bytes. */
    public final void allToAllw(final Object sendBuf, final int[] sendCount, final int[] sDispls,
                                final Datatype[] sendTypes, final Object recvBuf, final int[] recvCount,
                                final int[] rDispls, final Datatype[] recvTypes) throws MPIException {
        checkLive();
        try {
            complete(allToAllwOf(sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount, rDispls, recvTypes));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #allToAllw}. */
    public final Request iAllToAllw(final Buffer sendBuf, final int[] sendCount, final int[] sDispls,
                                    final Datatype[] sendTypes, final Buffer recvBuf, final int[] recvCount,
                                    final int[] rDispls, final Datatype[] recvTypes) throws MPIException {
        directs(sendBuf, recvBuf);
        return started(() -> allToAllwOf(sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount, rDispls,
            recvTypes));
    }

    private Schedule allToAllwOf(final Object sendBuf, final int[] sendCount, final int[] sDispls,
                                 final Datatype[] sendTypes, final Object recvBuf, final int[] recvCount,
                                 final int[] rDispls, final Datatype[] recvTypes) throws MPIException {
        final Span send = Args.typedBlocks(sendBuf, sendCount, sDispls, sendTypes, peers());
        final Span recv = Args.typedBlocks(recvBuf, recvCount, rDispls, recvTypes, peers());
        return remote != null
            ? InterCollectives.alltoallw(this, send, sendCount, sDispls, sendTypes, recv, recvCount, rDispls, recvTypes)
            : Collectives.alltoallw(this, send, sendCount, sDispls, sendTypes, recv, recvCount, rDispls, recvTypes);
    }

    // ------------------------------------------------------------------ neighbour collectives (topologies)

    /** Sends this rank's block to every neighbour and receives one block from each, in neighbour order. */
    public final void neighborAllGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                        final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        checkLive();
        try {
            complete(neighbourGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #neighborAllGather}. */
    public final Request iNeighborAllGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                            final Buffer recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> neighbourGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    private Schedule neighbourGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                     final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        final int[][] b = Collectives.blocks(neighbours().in().length, recvcount);
        return neighbourGatherv(sendbuf, sendcount, sendtype, recvbuf, b[0], b[1], recvtype);
    }

    /** {@link #neighborAllGather} with a count and displacement (in extents) per in-neighbour. */
    public final void neighborAllGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                         final Object recvbuf, final int[] recvcount, final int[] displs,
                                         final Datatype recvtype) throws MPIException {
        checkLive();
        try {
            complete(neighbourGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #neighborAllGatherv}. */
    public final Request iNeighborAllGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                             final Buffer recvbuf, final int[] recvcount, final int[] displs,
                                             final Datatype recvtype) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> neighbourGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype));
    }

    private Schedule neighbourGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                      final Object recvbuf, final int[] recvcount, final int[] displs,
                                      final Datatype recvtype) throws MPIException {
        final Neighbours nb = neighbours();
        final Span send = Args.data(sendbuf, sendcount, sendtype);
        final Span recv = Args.blocks(recvbuf, recvcount, displs, recvtype, nb.in().length);
        return NeighbourCollectives.allgatherv(this, nb, send, sendcount, sendtype, recv, recvcount, displs,
            recvtype);
    }

    /** Block j goes to out-neighbour j; block i comes from in-neighbour i. */
    public final void neighborAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                       final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        checkLive();
        try {
            complete(neighbourAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #neighborAllToAll}. */
    public final Request iNeighborAllToAll(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
                                           final Buffer recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> neighbourAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    private Schedule neighbourAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype,
                                       final Object recvbuf, final int recvcount, final Datatype recvtype)
        throws MPIException {
        final Neighbours nb = neighbours();
        final int[][] s = Collectives.blocks(nb.out().length, sendcount);
        final int[][] r = Collectives.blocks(nb.in().length, recvcount);
        return neighbourAllToAllv(sendbuf, s[0], s[1], sendtype, recvbuf, r[0], r[1], recvtype);
    }

    /** {@link #neighborAllToAll} with a count and displacement (in extents) per neighbour on both sides. */
    public final void neighborAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
                                        final Datatype sendtype, final Object recvbuf, final int[] recvcount,
                                        final int[] rdispls, final Datatype recvtype) throws MPIException {
        checkLive();
        try {
            complete(neighbourAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #neighborAllToAllv}. */
    public final Request iNeighborAllToAllv(final Buffer sendbuf, final int[] sendcount, final int[] sdispls,
                                            final Datatype sendtype, final Buffer recvbuf, final int[] recvcount,
                                            final int[] rdispls, final Datatype recvtype) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> neighbourAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls,
            recvtype));
    }

    private Schedule neighbourAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
                                        final Datatype sendtype, final Object recvbuf, final int[] recvcount,
                                        final int[] rdispls, final Datatype recvtype) throws MPIException {
        final Neighbours nb = neighbours();
        final Span send = Args.blocks(sendbuf, sendcount, sdispls, sendtype, nb.out().length);
        final Span recv = Args.blocks(recvbuf, recvcount, rdispls, recvtype, nb.in().length);
        return NeighbourCollectives.alltoallv(this, nb, send, sendcount, sdispls, sendtype, recv, recvcount,
            rdispls, recvtype);
    }
}
