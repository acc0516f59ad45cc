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

    /**
     * A graph topology over the first {@code index.length} ranks (collective; the others get a null
     * communicator): node i's neighbours are {@code edges[index[i-1] .. index[i])}. Ranks keep their order.
     */
    public final GraphComm createGraph(final int[] index, final int[] edges, final boolean reorder)
        throws MPIException {
        checkLive();
        try {
            if (index == null || edges == null || index.length > size) {
                throw new MPIException(MPI.ERR_ARG, "a graph needs at most " + size + " nodes and an edges array");
            }
            int prev = 0;
            for (final int i : index) {
                if (i < prev || i > edges.length) {
                    throw new MPIException(MPI.ERR_ARG, "index must be non-decreasing and within the edges");
                }
                prev = i;
            }
            for (final int e : edges) {
                if (e < 0 || e >= index.length) {
                    throw new MPIException(MPI.ERR_RANK, "edge to " + e + " outside the graph of " + index.length);
                }
            }
            final Intracomm part = split(rank < index.length ? 0 : MPI.UNDEFINED, rank);
            return GraphComm.adopt(part, GraphComm.graph(index, edges));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** {@link #createDistGraphAdjacent(int[], int[], int[], int[], Info, boolean)} without weights. */
    public final GraphComm createDistGraphAdjacent(final int[] sources, final int[] destinations, final Info info,
                                                   final boolean reorder) throws MPIException {
        return adjacent(sources, new int[sources.length], destinations, new int[destinations.length], false);
    }

    /** A graph in which each rank gives its own in-edges ({@code sources}) and out-edges (collective). */
    public final GraphComm createDistGraphAdjacent(final int[] sources, final int[] sourceWeights,
                                                   final int[] destinations, final int[] destWeights,
                                                   final Info info, final boolean reorder) throws MPIException {
        return adjacent(sources, sourceWeights, destinations, destWeights, true);
    }

    private GraphComm adjacent(final int[] sources, final int[] sourceWeights, final int[] destinations,
                               final int[] destWeights, final boolean weighted) throws MPIException {
        checkLive();
        try {
            checkRanks(sources);
            checkRanks(destinations);
            if (sourceWeights.length < sources.length || destWeights.length < destinations.length) {
                throw new MPIException(MPI.ERR_ARG, "one weight per edge");
            }
            return GraphComm.adopt(split(0, rank), GraphComm.distributed(sources,
                java.util.Arrays.copyOf(sourceWeights, sources.length), destinations,
                java.util.Arrays.copyOf(destWeights, destinations.length), weighted));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** {@link #createDistGraph(int[], int[], int[], int[], Info, boolean)} without weights. */
    public final GraphComm createDistGraph(final int[] sources, final int[] degrees, final int[] destinations,
                                           final Info info, final boolean reorder) throws MPIException {
        return distGraph(sources, degrees, destinations, null);
    }

    /**
     * A graph in which each rank gives any edges: {@code degrees[i]} edges leave {@code sources[i]}, to the
     * next entries of {@code destinations} (collective: the edges are allgathered so that each rank learns
     * its in-edges, ordered by the rank that gave them).
     */
    public final GraphComm createDistGraph(final int[] sources, final int[] degrees, final int[] destinations,
                                           final int[] weights, final Info info, final boolean reorder)
        throws MPIException {
        return distGraph(sources, degrees, destinations, weights);
    }

    private GraphComm distGraph(final int[] sources, final int[] degrees, final int[] destinations,
                                final int[] weights) throws MPIException {
        checkLive();
        try {
            checkRanks(sources);
            checkRanks(destinations);
            if (degrees.length < sources.length) {
                throw new MPIException(MPI.ERR_ARG, "one degree per source");
            }
            final int[] triples = new int[3 * destinations.length];
            int e = 0;
            for (int i = 0; i < sources.length; i++) {
                for (int k = 0; k < degrees[i]; k++, e++) {
                    if (e >= destinations.length) {
                        throw new MPIException(MPI.ERR_ARG, "the degrees add up to more than the destinations");
                    }
                    triples[3 * e] = sources[i];
                    triples[3 * e + 1] = destinations[e];
                    triples[3 * e + 2] = weights == null ? 0 : weights[e];
                }
            }
            final int[] counts = new int[size];
            final int[][] one = Collectives.blocks(size, 1);
            Collectives.allgatherv(this, Span.of(new int[] {3 * e}), 1, MPI.INT, Span.of(counts), one[0], one[1],
                MPI.INT).run();
            final int[] displs = new int[size];
            int total = 0;
            for (int r = 0; r < size; r++) {
                displs[r] = total;
                total += counts[r];
            }
            final int[] all = new int[total];
            Collectives.allgatherv(this, Span.of(triples), 3 * e, MPI.INT, Span.of(all), counts, displs, MPI.INT)
                .run();
            final java.util.List<int[]> in = new java.util.ArrayList<>();
            final java.util.List<int[]> out = new java.util.ArrayList<>();
            for (int t = 0; t < total; t += 3) {
                if (all[t + 1] == rank) {
                    in.add(new int[] {all[t], all[t + 2]});
                }
                if (all[t] == rank) {
                    out.add(new int[] {all[t + 1], all[t + 2]});
                }
            }
            return GraphComm.adopt(split(0, rank), GraphComm.distributed(column(in, 0), column(in, 1),
                column(out, 0), column(out, 1), weights != null));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private static int[] column(final java.util.List<int[]> rows, final int c) {
        return rows.stream().mapToInt(r -> r[c]).toArray();
    }

    private void checkRanks(final int[] ranks) throws MPIException {
        if (ranks == null) {
            throw new MPIException(MPI.ERR_ARG, "null rank list");
        }
        for (final int r : ranks) {
            if (r < 0 || r >= size) {
                throw new MPIException(MPI.ERR_RANK, "rank " + r + " outside [0, " + size + ")");
            }
        }
    }

    /** Rank i gets {@code sendbuf}'s combination over ranks 0..i. */
    public final void scan(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
                           final Op op) throws MPIException {
        checkLive();
        try {
            complete(scanOf(sendbuf, recvbuf, count, type, op, false));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
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
        checkLive();
        try {
            complete(scanOf(recvbuf, recvbuf, count, type, op, false));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
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
        checkLive();
        try {
            complete(scanOf(sendbuf, recvbuf, count, type, op, true));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
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
        checkLive();
        try {
            complete(scanOf(buf, buf, count, type, op, true));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
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

    /** Splits by shared-memory node ({@link #TYPE_SHARED}): the ranks of one node form a communicator. */
    public final Intracomm splitType(final int splitType, final int key, final Info info) throws MPIException {
        checkLive();
        if (splitType != TYPE_SHARED && splitType != MPI.UNDEFINED) {
            throw fail(new MPIException(MPI.ERR_ARG, "unknown split type " + splitType));
        }
        return split(splitType == MPI.UNDEFINED ? MPI.UNDEFINED : session.job.runtime().nodeId(), key);
    }

    /**
     * The communicator of {@code group}, collective over the group's members only (the others need not call):
     * the members agree on a context id through the group's first member, with messages tagged {@code tag}.
     */
    public final Intracomm createGroup(final Group group, final int tag) throws MPIException {
        checkLive();
        try {
            if (group == null) {
                throw new MPIException(MPI.ERR_GROUP, "null group");
            }
            final int me = group.indexOf(session.job.rank());
            if (me < 0) {
                throw new MPIException(MPI.ERR_GROUP, "createGroup is called by the group's members only");
            }
            final int[] ranks = new int[group.members.length];
            for (int i = 0; i < ranks.length; i++) {
                ranks[i] = this.group.indexOf(group.members[i]);
                if (ranks[i] < 0) {
                    throw new MPIException(MPI.ERR_GROUP, "job rank " + group.members[i] + " is not in " + this);
                }
            }
            final int[] cid = {session.proposeCid()};
            if (me == 0) {
                final int[] other = new int[1];
                for (int i = 1; i < ranks.length; i++) {
                    recv(other, 1, MPI.INT, ranks[i], tag);
                    cid[0] = Math.max(cid[0], other[0]);
                }
                for (int i = 1; i < ranks.length; i++) {
                    send(cid, 1, MPI.INT, ranks[i], tag);
                }
            } else {
                send(cid, 1, MPI.INT, ranks[0], tag);
                recv(cid, 1, MPI.INT, ranks[0], tag);
            }
            session.takeCid(cid[0]);
            return made(group, cid[0]);
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    @Override
    public Intracomm iDup() throws MPIException {
        return dup();
    }

    // ------------------------------------------------------------------ dynamic processes: not supported

    private static MPIException unsupported(final String call) {
        return new MPIException(MPI.ERR_UNSUPPORTED_OPERATION, call + " is not supported: Weft's MPI runs the "
            + "ranks its launcher started (no spawning, ports or name service)");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static String openPort() throws MPIException {
        throw unsupported("MPI_Open_port");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static String openPort(final Info info) throws MPIException {
        throw unsupported("MPI_Open_port");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static void closePort(final String name) throws MPIException {
        throw unsupported("MPI_Close_port");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public final Intercomm accept(final String port, final int root) throws MPIException {
        throw fail(unsupported("MPI_Comm_accept"));
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public final Intercomm accept(final String port, final Info info, final int root) throws MPIException {
        throw fail(unsupported("MPI_Comm_accept"));
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public final Intercomm connect(final String port, final int root) throws MPIException {
        throw fail(unsupported("MPI_Comm_connect"));
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public final Intercomm connect(final String port, final Info info, final int root) throws MPIException {
        throw fail(unsupported("MPI_Comm_connect"));
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static void publishName(final String service, final String port) throws MPIException {
        throw unsupported("MPI_Publish_name");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static void publishName(final String service, final Info info, final String port) throws MPIException {
        throw unsupported("MPI_Publish_name");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static void unpublishName(final String service, final String port) throws MPIException {
        throw unsupported("MPI_Unpublish_name");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static void unpublishName(final String service, final Info info, final String port)
        throws MPIException {
        throw unsupported("MPI_Unpublish_name");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static String lookupName(final String service) throws MPIException {
        throw unsupported("MPI_Lookup_name");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public static String lookupName(final String service, final Info info) throws MPIException {
        throw unsupported("MPI_Lookup_name");
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public final Intercomm spawn(final String command, final String[] argv, final int maxprocs, final Info info,
                                 final int root, final int[] errcodes) throws MPIException {
        throw fail(unsupported("MPI_Comm_spawn"));
    }

    /** Not supported: ERR_UNSUPPORTED_OPERATION. */
    public final Intercomm spawnMultiple(final String[] commands, final String[][] argv, final int[] maxprocs,
                                         final Info[] info, final int root, final int[] errcodes)
        throws MPIException {
        throw fail(unsupported("MPI_Comm_spawn_multiple"));
    }
}
