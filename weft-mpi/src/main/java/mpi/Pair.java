package mpi;

/**
 * The value-index pair structs ({@link Int2}, {@link ShortInt}, ...): the value at 0, the int index at its C
 * offset, and the index accessors their {@code Data} classes share.
 */
abstract class Pair extends Struct {
    private final int indexOffset;

    Pair(final Datatype value, final int indexAt) {
        addField(value, (int) value.size, 1);
        setOffset(indexAt);
        indexOffset = addInt();
    }

    /** The index of one pair of a buffer. */
    abstract class IndexedData extends Struct.Data {
        /** The index. */
        public int getIndex() {
            return getInt(indexOffset);
        }

        /** Sets the index. */
        public void putIndex(final int v) {
            putInt(indexOffset, v);
        }
    }
}
