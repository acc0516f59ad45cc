package mpi;

/**
 * What a receive, probe or completed request learned: the source rank and tag of the message, its size
 * ({@link #getCount}), an error class for requests completed by the wait/test families, whether it was
 * cancelled, and for {@code waitAny}/{@code testAny} the index of the request.
 */
public final class Status {
    private final int source;
    private final int tag;
    private int error;
    private long bytes;
    private boolean cancelled;
    private int index = MPI.UNDEFINED;

    Status(final int source, final int tag, final int error, final long bytes, final boolean cancelled) {
        this.source = source;
        this.tag = tag;
        this.error = error;
        this.bytes = bytes;
        this.cancelled = cancelled;
    }

    /** The status of a receive from {@link MPI#PROC_NULL}, or of a finished send. */
    static Status empty() {
        return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0, false);
    }

    Status withIndex(final int i) {
        final Status s = new Status(source, tag, error, bytes, cancelled);
        s.index = i;
        return s;
    }

    /**
     * The number of {@code datatype} elements received, or {@link MPI#UNDEFINED} when the bytes received are
     * not a whole number of them.
     */
    public int getCount(final Datatype datatype) throws MPIException {
        MPI.check();
        if (datatype.size == 0) {
            return bytes == 0 ? 0 : MPI.UNDEFINED;
        }
        return bytes % datatype.size == 0 ? (int) (bytes / datatype.size) : MPI.UNDEFINED;
    }

    /**
     * The number of base elements of {@code datatype} received (partial elements of a derived type count),
     * or {@link MPI#UNDEFINED}.
     */
    public int getElements(final Datatype datatype) throws MPIException {
        MPI.check();
        return bytes % datatype.baseSize == 0 ? (int) (bytes / datatype.baseSize) : MPI.UNDEFINED;
    }

    /** As {@link #getElements}, as a {@link Count}. */
    public Count getElementsX(final Datatype datatype) throws MPIException {
        return new Count(getElements(datatype));
    }

    /** Sets the number of {@code datatype} elements this status reports (for generalized requests). */
    public void setElements(final Datatype datatype, final int count) throws MPIException {
        MPI.check();
        bytes = (long) count * datatype.baseSize;
    }

    /** As {@link #setElements} with a {@link Count}. */
    public void setElementsX(final Datatype datatype, final Count count) throws MPIException {
        setElements(datatype, (int) count.getCount());
    }

    /** Sets whether this status reports a cancelled request. */
    public void setCancelled(final boolean flag) throws MPIException {
        MPI.check();
        cancelled = flag;
    }

    /** True if the request was cancelled instead of completing. */
    public boolean isCancelled() throws MPIException {
        MPI.check();
        return cancelled;
    }

    /** The sender's rank in the communicator ({@link MPI#PROC_NULL} for a receive from it). */
    public int getSource() {
        return source;
    }

    /** The message's tag. */
    public int getTag() {
        return tag;
    }

    /** The error class of the request ({@link MPI#SUCCESS} when it succeeded). */
    public int getError() {
        return error;
    }

    /** The index of the request in the array given to {@code waitAny}/{@code testAny} etc. */
    public int getIndex() {
        return index;
    }

    long bytes() {
        return bytes;
    }

    @Override
    public String toString() {
        return "Status[source " + source + ", tag " + tag + ", " + bytes + " B, error " + error
            + (cancelled ? ", cancelled" : "") + "]";
    }
}
