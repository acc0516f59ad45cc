package mpi;

/**
 * A float value and an int index, the layout of {@link MPI#FLOAT_INT} (for MINLOC and MAXLOC); use the shared instance
 * {@code MPI.floatInt}.
 *
 * <pre>{@code
 * ByteBuffer in = MPI.newByteBuffer(MPI.floatInt.getExtent());
 * FloatInt.Data d = MPI.floatInt.getData(in);
 * d.putValue(...); d.putIndex(rank);
 * comm.allReduce(in, out, 1, MPI.FLOAT_INT, MPI.MINLOC);
 * }</pre>
 */
public final class FloatInt extends Pair {
    FloatInt() {
        super(MPI.FLOAT, 4);
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One value-index pair of a buffer. */
    public final class Data extends IndexedData {
        /** The value. */
        public float getValue() {
            return getFloat(0);
        }

        /** Sets the value. */
        public void putValue(final float v) {
            putFloat(0, v);
        }
    }
}
