package mpi;

/**
 * A long value and an int index, the layout of {@link MPI#LONG_INT} (for MINLOC and MAXLOC); use the shared instance
 * {@code MPI.longInt}.
 *
 * <pre>{@code
 * ByteBuffer in = MPI.newByteBuffer(MPI.longInt.getExtent());
 * LongInt.Data d = MPI.longInt.getData(in);
 * d.putValue(...); d.putIndex(rank);
 * comm.allReduce(in, out, 1, MPI.LONG_INT, MPI.MINLOC);
 * }</pre>
 */
public final class LongInt extends Pair {
    LongInt() {
        super(MPI.LONG, 8);
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One value-index pair of a buffer. */
    public final class Data extends IndexedData {
        /** The value. */
        public long getValue() {
            return getLong(0);
        }

        /** Sets the value. */
        public void putValue(final long v) {
            putLong(0, v);
        }
    }
}
