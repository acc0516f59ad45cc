package mpi;

import java.nio.Buffer;
import java.util.Arrays;
import java.util.Comparator;

/**
 * A communicator of one group ({@link MPI#COMM_WORLD}, {@link MPI#COMM_SELF} and those made from them): adds
 * the calls that make new communicators ({@link #split}, {@link #create}, {@link #dup}) and the prefix
 * reductions ({@link #scan}, {@link #exScan}).
 *
 * <pre>{@code
 * Intracomm row = MPI.COMM_WORLD.split(rank / 4, rank);   // ranks in groups of 4
 * int[] v = {rank};
 * row.allReduce(v, 1, MPI.INT, MPI.SUM);                  // sums within the row
 * }</pre>
 */
public class Intracomm extends Comm {
    Intracomm() {
    }

    /** A new communicator with the same ranks and its own message space (collective). */
    @Override
    public Intracomm dup() throws MPIException {
        return dupInto(new Intracomm());
    }

    /** The same as {@link #dup}; the hints are ignored. */
    @Override
    public Intracomm dupWithInfo(final Info info) throws MPIException {
        return dup();
    }

    @Override
    public Intracomm clone() {
        try {
            return dup();
        } catch (final MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * Splits the communicator (collective): the ranks that give the same {@code colour} form a new
     * communicator, ordered by {@code key} and then by their rank here. A rank that gives
     * {@link MPI#UNDEFINED} gets a null communicator ({@link #isNull()}).
     */
    public final Intracomm split(final int colour, final int key) throws MPIException {
        checkLive();
        try {
            if (colour < 0 && colour != MPI.UNDEFINED) {
                throw new MPIException(MPI.ERR_ARG, "a colour must be non-negative or MPI.UNDEFINED, got " + colour);
            }
            final int[] mine = {colour, key};
            final int[] all = new int[2 * size];
            final int[][] b = Collectives.blocks(size, 2);
            Collectives.allgatherv(this, Span.of(mine), 2, MPI.INT, Span.of(all), b[0], b[1], MPI.INT).run();
            final int newCid = agreeOnCid();
            if (colour == MPI.UNDEFINED) {
                return new Intracomm();
            }
            final Integer[] ranks = new Integer[size];
            int n = 0;
            for (int r = 0; r < size; r++) {
                if (all[2 * r] == colour) {
                    ranks[n++] = r;
                }
            }
            final Integer[] chosen = Arrays.copyOf(ranks, n);
            Arrays.sort(chosen, Comparator.<Integer>comparingInt(r -> all[2 * r + 1]).thenComparingInt(r -> r));
            final int[] members = new int[n];
            for (int i = 0; i < n; i++) {
                members[i] = group.members[chosen[i]];
            }
            return made(new Group(members), newCid);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /**
     * The communicator of {@code group}, a subset of this one's (collective over this communicator; every
     * rank gives the same group). Ranks outside the group get a null communicator.
     */
    public final Intracomm create(final Group group) throws MPIException {
        checkLive();
        try {
            if (group == null) {
                throw new MPIException(MPI.ERR_GROUP, "null group");
            }
            for (final int m : group.members) {
                if (this.group.indexOf(m) < 0) {
                    throw new MPIException(MPI.ERR_GROUP, "job rank " + m + " of the group is not in " + this);
                }
            }
            final int newCid = agreeOnCid();
            return group.indexOf(session.job.rank()) < 0 ? new Intracomm() : made(group, newCid);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private Intracomm made(final Group g, final int newCid) throws MPIException {
        final Intracomm c = new Intracomm();
        c.setup(session, g, newCid, "");
        c.setErrhandler(getErrhandler());
        return c;
    }

    /**
     * A Cartesian grid of {@code dims} over the first ranks of this communicator (collective; ranks beyond the
     * grid get a null communicator). Ranks keep their order: {@code reorder} is accepted and not used.
     */
    public final CartComm createCart(final int[] dims, final boolean[] periods, final boolean reorder)
        throws MPIException {
        checkLive();
        try {
            if (dims == null || periods == null || dims.length != periods.length) {
                throw new MPIException(MPI.ERR_DIMS, "dims and periods must have one entry per dimension");
            }
            for (final int d : dims) {
                if (d < 1) {
                    throw new MPIException(MPI.ERR_DIMS, "a grid dimension must be at least 1, got " + d);
                }
            }
            final int cells = CartComm.product(dims);
            if (cells > size) {
                throw new MPIException(MPI.ERR_DIMS, "a grid of " + cells + " ranks does not fit in " + size);
            }
            return CartComm.adopt(split(rank < cells ? 0 : MPI.UNDEFINED, rank), new CartComm(dims, periods));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Rank i gets {@code sendbuf}'s combination over ranks 0..i. */
    public final void scan(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                           final Op op) throws MPIException {
        blocking(() -> scanOf(sendbuf, recvbuf, count, type, op, false));
    }

    /** Non-blocking {@link #scan(Object, Object, int, Datatype, Op)}. */
    public final Request iScan(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type,
                               final Op op) throws MPIException {
        Span.ofDirect(sendbuf, "send buffer");
        Span.ofDirect(recvbuf, "receive buffer");
        return started(() -> scanOf(sendbuf, recvbuf, count, type, op, false));
    }

    /** In-place {@link #scan}. */
    public final void scan(final Object recvbuf, final int count, final Datatype type, final Op op)
        throws MPIException {
        blocking(() -> scanOf(recvbuf, recvbuf, count, type, op, false));
    }

    /** Non-blocking in-place {@link #scan}. */
    public final Request iScan(final Buffer buf, final int count, final Datatype type, final Op op)
        throws MPIException {
        Span.ofDirect(buf, "buffer");
        return started(() -> scanOf(buf, buf, count, type, op, false));
    }

    /** Rank i gets {@code sendbuf}'s combination over ranks 0..i-1 (rank 0's buffer is left as it was). */
    public final void exScan(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                             final Op op) throws MPIException {
        blocking(() -> scanOf(sendbuf, recvbuf, count, type, op, true));
    }

    /** Non-blocking {@link #exScan(Object, Object, int, Datatype, Op)}. */
    public final Request iExScan(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type,
                                 final Op op) throws MPIException {
        Span.ofDirect(sendbuf, "send buffer");
        Span.ofDirect(recvbuf, "receive buffer");
        return started(() -> scanOf(sendbuf, recvbuf, count, type, op, true));
    }

    /** In-place {@link #exScan}. */
    public final void exScan(final Object buf, final int count, final Datatype type, final Op op)
        throws MPIException {
        blocking(() -> scanOf(buf, buf, count, type, op, true));
    }

    /** Non-blocking in-place {@link #exScan}. */
    public final Request iExScan(final Buffer buf, final int count, final Datatype type, final Op op)
        throws MPIException {
        Span.ofDirect(buf, "buffer");
        return started(() -> scanOf(buf, buf, count, type, op, true));
    }

    private Schedule scanOf(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                            final Op op, final boolean exclusive) throws MPIException {
        Args.checkOp(op, type);
        final Span in = Args.data(sendbuf, count, type);
        final Span out = recvbuf == sendbuf ? in : Args.data(recvbuf, count, type);
        return ReduceCollectives.scan(this, in, out, count, type, op, exclusive);
    }
}
