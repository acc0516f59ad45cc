package mpi;

/**
 * A short value and an int index, the layout of {@link MPI#SHORT_INT} (for MINLOC and MAXLOC); use the shared instance
 * {@code MPI.shortInt}.
 *
 * <pre>{@code
 * ByteBuffer in = MPI.newByteBuffer(MPI.shortInt.getExtent());
 * ShortInt.Data d = MPI.shortInt.getData(in);
 * d.putValue(...); d.putIndex(rank);
 * comm.allReduce(in, out, 1, MPI.SHORT_INT, MPI.MINLOC);
 * }</pre>
 */
public final class ShortInt extends Pair {
    ShortInt() {
        super(MPI.SHORT, 4);
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One value-index pair of a buffer. */
    public final class Data extends IndexedData {
        /** The value. */
        public short getValue() {
            return getShort(0);
        }

        /** Sets the value. */
        public void putValue(final short v) {
            putShort(0, v);
        }
    }
}
