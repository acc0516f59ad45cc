package mpi;

/** A graph communicator's whole graph ({@link GraphComm#getDims()}): MPI's index and edges arrays. */
public final class GraphParms {
    private final int[] index;
    private final int[] edges;

    GraphParms(final int[] index, final int[] edges) {
        this.index = index;
        this.edges = edges;
    }

    /** The number of nodes. */
    public int getIndexCount() {
        return index.length;
    }

    /** The number of edges of nodes 0..i together. */
    public int getIndex(final int i) {
        return index[i];
    }

    /** The number of edges. */
    public int getEdgeCount() {
        return edges.length;
    }

    /** Edge {@code i}: the neighbour it leads to. */
    public int getEdge(final int i) {
        return edges[i];
    }
}
