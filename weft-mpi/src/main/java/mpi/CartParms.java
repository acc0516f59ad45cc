package mpi;

/** A Cartesian communicator's shape and this rank's place in it ({@link CartComm#getTopo()}). */
public final class CartParms {
    private final int[] dims;
    private final boolean[] periods;
    private final int[] coords;

    CartParms(final int[] dims, final boolean[] periods, final int[] coords) {
        this.dims = dims;
        this.periods = periods;
        this.coords = coords;
    }

    /** The number of dimensions. */
    public int getDimCount() {
        return dims.length;
    }

    /** The extent of dimension {@code i}. */
    public int getDim(final int i) {
        return dims[i];
    }

    /** Whether dimension {@code i} wraps around. */
    public boolean getPeriod(final int i) {
        return periods[i];
    }

    /** This rank's coordinate in dimension {@code i}. */
    public int getCoord(final int i) {
        return coords[i];
    }
}
