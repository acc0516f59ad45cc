package mpi;

/** A rank's in- and out-neighbours in a graph topology, with the edges' weights if given. */
public final class DistGraphNeighbors {
    private final int[] sources;
    private final int[] sourceWeights;
    private final int[] destinations;
    private final int[] destWeights;
    private final boolean weighted;

    DistGraphNeighbors(final int[] sources, final int[] sourceWeights, final int[] destinations,
                       final int[] destWeights, final boolean weighted) {
        this.sources = sources;
        this.sourceWeights = sourceWeights;
        this.destinations = destinations;
        this.destWeights = destWeights;
        this.weighted = weighted;
    }

    /** The number of edges into this rank. */
    public int getInDegree() {
        return sources.length;
    }

    /** The number of edges out of this rank. */
    public int getOutDegree() {
        return destinations.length;
    }

    /** Whether the edges carry weights. */
    public boolean isWeighted() {
        return weighted;
    }

    /** The rank at the other end of in-edge {@code i}. */
    public int getSource(final int i) {
        return sources[i];
    }

    /** The weight of in-edge {@code i}. */
    public int getSourceWeight(final int i) {
        return sourceWeights[i];
    }

    /** The rank at the other end of out-edge {@code i}. */
    public int getDestination(final int i) {
        return destinations[i];
    }

    /** The weight of out-edge {@code i}. */
    public int getDestinationWeight(final int i) {
        return destWeights[i];
    }
}
