package mpi;

import java.util.Arrays;

/**
 * A communicator with a graph topology: a whole graph given by every rank ({@link Intracomm#createGraph}),
 * or each rank's own edges ({@link Intracomm#createDistGraph}, {@link Intracomm#createDistGraphAdjacent}).
 * Its neighbours are what the neighbour collectives exchange with.
 */
public final class GraphComm extends Intracomm {
    /** The whole graph (createGraph), else null. */
    private final int[] index;
    private final int[] edges;
    private final int[] sources;
    private final int[] sourceWeights;
    private final int[] destinations;
    private final int[] destWeights;
    private final boolean weighted;

    private GraphComm(final int[] index, final int[] edges, final int[] sources, final int[] sourceWeights,
                      final int[] destinations, final int[] destWeights, final boolean weighted) {
        this.index = index;
        this.edges = edges;
        this.sources = sources;
        this.sourceWeights = sourceWeights;
        this.destinations = destinations;
        this.destWeights = destWeights;
        this.weighted = weighted;
    }

    /** A graph of {@code index.length} nodes (MPI's index/edges arrays); neighbours are symmetric. */
    static GraphComm graph(final int[] index, final int[] edges) {
        return new GraphComm(index.clone(), edges.clone(), null, null, null, null, false);
    }

    /** A distributed graph: this rank's in- and out-edges. */
    static GraphComm distributed(final int[] sources, final int[] sourceWeights, final int[] destinations,
                                 final int[] destWeights, final boolean weighted) {
        return new GraphComm(null, null, sources.clone(), sourceWeights.clone(), destinations.clone(),
            destWeights.clone(), weighted);
    }

    /** A copy with its own message space (collective). */
    @Override
    public GraphComm dup() throws MPIException {
        return dupInto(new GraphComm(index, edges, sources, sourceWeights, destinations, destWeights, weighted));
    }

    /** The same as {@link #dup}; the hints are ignored. */
    @Override
    public GraphComm dupWithInfo(final Info info) throws MPIException {
        return dup();
    }

    @Override
    public GraphComm clone() {
        try {
            return dup();
        } catch (final MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The whole graph of a communicator made by {@code createGraph}. */
    public GraphParms getDims() throws MPIException {
        checkLive();
        if (index == null) {
            throw fail(new MPIException(MPI.ERR_TOPOLOGY, "a distributed graph has no whole-graph description"));
        }
        return new GraphParms(index.clone(), edges.clone());
    }

    /** The neighbours of {@code rank} in a graph made by {@code createGraph}. */
    public int[] getNeighbors(final int rank) throws MPIException {
        checkLive();
        if (index == null) {
            throw fail(new MPIException(MPI.ERR_TOPOLOGY, "use getDistGraphNeighbors on a distributed graph"));
        }
        if (rank < 0 || rank >= index.length) {
            throw fail(new MPIException(MPI.ERR_RANK, "rank " + rank + " outside the graph of " + index.length));
        }
        return Arrays.copyOfRange(edges, rank == 0 ? 0 : index[rank - 1], index[rank]);
    }

    /** This rank's in- and out-neighbours. */
    public DistGraphNeighbors getDistGraphNeighbors() throws MPIException {
        checkLive();
        if (index != null) {
            final int[] n = getNeighbors(rank);
            return new DistGraphNeighbors(n, new int[n.length], n, new int[n.length], false);
        }
        return new DistGraphNeighbors(sources.clone(), sourceWeights.clone(), destinations.clone(),
            destWeights.clone(), weighted);
    }

    /** The rank this process would have in a graph of {@code index.length} nodes, or {@link MPI#UNDEFINED}. */
    public int map(final int[] index, final int[] edges) throws MPIException {
        checkLive();
        return rank < index.length ? rank : MPI.UNDEFINED;
    }

    @Override
    int topology() {
        return index != null ? MPI.GRAPH : MPI.DIST_GRAPH;
    }

    @Override
    Neighbours neighbours() throws MPIException {
        if (index != null) {
            final int[] n = getNeighbors(rank);
            final int[] sub = Neighbours.occurrences(n);
            return new Neighbours(n, sub, n.clone(), sub.clone());
        }
        return new Neighbours(sources, Neighbours.occurrences(sources), destinations,
            Neighbours.occurrences(destinations));
    }

    /** Gives {@code target} the group and message space of {@code made} (a null communicator stays null). */
    static GraphComm adopt(final Intracomm made, final GraphComm target) throws MPIException {
        if (!made.isNull()) {
            target.setup(made.session, made.group, made.cid, "");
            target.setErrhandler(made.getErrhandler());
        }
        return target;
    }
}
