package mpi;

/**
 * A double value and an int index, the layout of {@link MPI#DOUBLE_INT} (for MINLOC and MAXLOC); use the
 * shared instance {@code MPI.doubleInt}.
 *
 * <pre>{@code
 * ByteBuffer in = MPI.newByteBuffer(MPI.doubleInt.getExtent());
 * DoubleInt.Data d = MPI.doubleInt.getData(in);
 * d.putValue(...); d.putIndex(rank);
 * comm.allReduce(in, out, 1, MPI.DOUBLE_INT, MPI.MINLOC);
 * }</pre>
 */
public final class DoubleInt extends Pair {
    DoubleInt() {
        super(MPI.DOUBLE, 8);
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One value-index pair of a buffer. */
    public final class Data extends IndexedData {
        /** The value. */
        public double getValue() {
            return getDouble(0);
        }

        /** Sets the value. */
        public void putValue(final double v) {
            putDouble(0, v);
        }
    }
}
