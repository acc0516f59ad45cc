package mpi;

/**
 * Two ints: a value and an index, the layout of {@link MPI#INT2} (for MINLOC and MAXLOC); use the shared instance
 * {@code MPI.int2}.
 *
 * <pre>{@code
 * ByteBuffer in = MPI.newByteBuffer(MPI.int2.getExtent());
 * Int2.Data d = MPI.int2.getData(in);
 * d.putValue(...); d.putIndex(rank);
 * comm.allReduce(in, out, 1, MPI.INT2, MPI.MINLOC);
 * }</pre>
 */
public final class Int2 extends Pair {
    Int2() {
        super(MPI.INT, 4);
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One value-index pair of a buffer. */
    public final class Data extends IndexedData {
        /** The value. */
        public int getValue() {
            return getInt(0);
        }

        /** Sets the value. */
        public void putValue(final int v) {
            putInt(0, v);
        }
    }
}
