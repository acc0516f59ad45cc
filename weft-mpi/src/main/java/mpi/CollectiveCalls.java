package mpi;

import java.nio.Buffer;

/**
 * The collective half of a communicator that {@link Comm} builds on: how a collective runs (its schedule
 * built after its arguments are checked, then run to the end or started as a request, errors to the error
 * handler) and the reductions (reduce, allreduce, reduce-scatter). Package-private: users see these calls
 * on {@link Comm}.
 */
abstract class CollectiveCalls extends PointToPoint {
    CollectiveCalls() {
    }

    // ------------------------------------------------------------------ running a collective

    /** Builds a collective's schedule (checking its arguments first). */
    @FunctionalInterface
    interface Build {
        Schedule schedule() throws MPIException;
    }

    /**
     * Runs a blocking collective's schedule to its end, then gives it back to the communicator for the next one.
     * Callers build the schedule and catch for the error handler themselves, with no lambda: a blocking
     * collective allocates nothing once warm.
     */
    final void complete(final Schedule s) throws MPIException {
        s.run();
        s.recycle();
    }

    /** Starts a collective and returns its request. */
    final Request started(final Build b) throws MPIException {
        checkLive();
        try {
            return Request.collective(self(), b.schedule());
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** The span of a direct buffer (a heap buffer is refused: IllegalArgumentException), checked. */
    static Span direct(final Buffer buf, final int count, final Datatype type) throws MPIException {
        final Span s = Span.ofDirect(buf, "buffer");
        Args.checkData(count, type);
        s.check(count, type);
        return s;
    }

    /** Direct-buffer check of every buffer of a non-blocking call, before any other check. */
    static void directs(final Buffer... bufs) {
        for (final Buffer b : bufs) {
            if (b != null) {
                Span.ofDirect(b, "buffer");
            }
        }
    }

    // ------------------------------------------------------------------ reductions

    /** Combines every rank's {@code sendbuf} with {@code op} into {@code root}'s {@code recvbuf}. */
    public final void reduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                             final Op op, final int root) throws MPIException {
        checkLive();
        try {
            complete(reduceOf(sendbuf, recvbuf, count, type, op, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #reduce(Object, Object, int, Datatype, Op, int)}. */
    public final Request iReduce(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type,
                                 final Op op, final int root) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> reduceOf(sendbuf, recvbuf, count, type, op, root));
    }

    /** In-place reduce: {@code buf} is the input everywhere and the result at the root. */
    public final void reduce(final Object buf, final int count, final Datatype type, final Op op, final int root)
        throws MPIException {
        checkLive();
        try {
            complete(reduceOf(buf, buf, count, type, op, root));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place reduce. */
    public final Request iReduce(final Buffer buf, final int count, final Datatype type, final Op op,
                                 final int root) throws MPIException {
        directs(buf);
        return started(() -> reduceOf(buf, buf, count, type, op, root));
    }

    private Schedule reduceOf(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                              final Op op, final int root) throws MPIException {
        if (remote != null) {
            InterCollectives.checkRoot(root, peers());
            Args.checkOp(op, type);
            final Span in = root >= 0 ? Args.data(sendbuf, count, type) : null;
            final Span out = root == MPI.ROOT ? Args.data(recvbuf, count, type) : null;
            return InterCollectives.reduce(self(), in, out, count, type, op, root);
        }
        Args.checkRoot(root, size);
        Args.checkOp(op, type);
        final Span in = Args.data(sendbuf, count, type);
        final Span out = rank == root ? (recvbuf == sendbuf ? in : Args.data(recvbuf, count, type)) : null;
        return ReduceCollectives.reduce(self(), in, out, count, type, op, root);
    }

    /** Every rank gets the combination of every rank's {@code sendbuf}. */
    public final void allReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                                final Op op) throws MPIException {
        checkLive();
        try {
            complete(allReduceOf(sendbuf, recvbuf, count, type, op));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #allReduce(Object, Object, int, Datatype, Op)}. */
    public final Request iAllReduce(final Buffer sendbuf, final Buffer recvbuf, final int count,
                                    final Datatype type, final Op op) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> allReduceOf(sendbuf, recvbuf, count, type, op));
    }

    /** In-place allreduce. */
    public final void allReduce(final Object buf, final int count, final Datatype type, final Op op)
        throws MPIException {
        checkLive();
        try {
            complete(allReduceOf(buf, buf, count, type, op));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place allreduce. */
    public final Request iAllReduce(final Buffer buf, final int count, final Datatype type, final Op op)
        throws MPIException {
        directs(buf);
        return started(() -> allReduceOf(buf, buf, count, type, op));
    }

    private Schedule allReduceOf(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                                 final Op op) throws MPIException {
        Args.checkOp(op, type);
        final Span in = Args.data(sendbuf, count, type);
        final Span out = recvbuf == sendbuf ? in : Args.data(recvbuf, count, type);
        if (remote != null) {
            return InterCollectives.allreduce(self(), in, out, count, type, op);
        }
        if (op.isCommutative() && count * type.size >= session.thresholds.allreduceLarge() && count >= size
            && size > 2) {
            return ReduceCollectives.ringAllreduce(self(), in, out, count, type, op);
        }
        return ReduceCollectives.allreduce(self(), in, out, count, type, op);
    }

    /** Combines every rank's {@code sendbuf}; rank i gets block i ({@code recvcounts[i]} elements). */
    public final void reduceScatter(final Object sendbuf, final Object recvbuf, final int[] recvcounts,
                                    final Datatype type, final Op op) throws MPIException {
        checkLive();
        try {
            complete(reduceScatterOf(sendbuf, recvbuf, recvcounts, type, op));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #reduceScatter(Object, Object, int[], Datatype, Op)}. */
    public final Request iReduceScatter(final Buffer sendbuf, final Buffer recvbuf, final int[] recvcounts,
                                        final Datatype type, final Op op) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> reduceScatterOf(sendbuf, recvbuf, recvcounts, type, op));
    }

    /** In-place reduce-scatter: the input is {@code buf}, the result goes to its start. */
    public final void reduceScatter(final Object buf, final int[] counts, final Datatype type, final Op op)
        throws MPIException {
        checkLive();
        try {
            complete(reduceScatterOf(buf, buf, counts, type, op));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place reduce-scatter. */
    public final Request iReduceScatter(final Buffer buf, final int[] counts, final Datatype type, final Op op)
        throws MPIException {
        directs(buf);
        return started(() -> reduceScatterOf(buf, buf, counts, type, op));
    }

    /** {@link #reduceScatter} with {@code recvcount} elements for every rank. */
    public final void reduceScatterBlock(final Object sendbuf, final Object recvbuf, final int recvcount,
                                         final Datatype type, final Op op) throws MPIException {
        checkLive();
        try {
            complete(reduceScatterOf(sendbuf, recvbuf, Collectives.blocks(size, recvcount)[0], type, op));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking {@link #reduceScatterBlock(Object, Object, int, Datatype, Op)}. */
    public final Request iReduceScatterBlock(final Buffer sendbuf, final Buffer recvbuf, final int recvcount,
                                             final Datatype type, final Op op) throws MPIException {
        directs(sendbuf, recvbuf);
        return started(() -> reduceScatterOf(sendbuf, recvbuf, Collectives.blocks(size, recvcount)[0], type, op));
    }

    /** In-place {@link #reduceScatterBlock}. */
    public final void reduceScatterBlock(final Object buf, final int recvcount, final Datatype type, final Op op)
        throws MPIException {
        checkLive();
        try {
            complete(reduceScatterOf(buf, buf, Collectives.blocks(size, recvcount)[0], type, op));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Non-blocking in-place {@link #reduceScatterBlock}. */
    public final Request iReduceScatterBlock(final Buffer buf, final int recvcount, final Datatype type,
                                             final Op op) throws MPIException {
        directs(buf);
        return started(() -> reduceScatterOf(buf, buf, Collectives.blocks(size, recvcount)[0], type, op));
    }

    private Schedule reduceScatterOf(final Object sendbuf, final Object recvbuf, final int[] counts,
                                     final Datatype type, final Op op) throws MPIException {
        Args.checkOp(op, type);
        final int total = Args.total(counts, size);
        final Span in = Args.data(sendbuf, total, type);
        final Span out = recvbuf == sendbuf ? in : Args.data(recvbuf, counts[rank], type);
        if (remote != null) {
            return InterCollectives.reduceScatter(self(), in, out, counts, total, type, op);
        }
        return ReduceCollectives.reduceScatter(self(), in, out, counts, type, op);
    }

    /** {@code inOutBuf = inBuf op inOutBuf}, locally. */
    public static void reduceLocal(final Object inBuf, final Object inOutBuf, final int count, final Datatype type,
                                   final Op op) throws MPIException {
        MPI.check();
        Args.checkOp(op, type);
        final Span in = Args.data(inBuf, count, type);
        final Span io = Args.data(inOutBuf, count, type);
        final java.lang.foreign.MemorySegment a = Coll.packed(in, count, type);
        final java.lang.foreign.MemorySegment b = Coll.packed(io, count, type);
        op.apply(a, 0, b, 0, count, type);
        TypeCursor.unpack(b, 0, io, count, type);
        io.finish();
    }
}
