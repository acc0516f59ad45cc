package mpi;

/** A count that may exceed an {@code int} (MPI_Count). */
public final class Count {
    private final long count;

    /** A count of {@code count}. */
    public Count(final long count) {
        this.count = count;
    }

    /** The count. */
    public long getCount() {
        return count;
    }

    @Override
    public String toString() {
        return Long.toString(count);
    }
}
