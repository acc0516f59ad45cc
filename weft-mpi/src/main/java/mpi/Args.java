package mpi;

/** Checks of the arguments of communication calls, each failing with the MPI error class it names. */
final class Args {
    private Args() {
    }

    static void checkData(final int count, final Datatype type) throws MPIException {
        if (type == null) {
            throw new MPIException(MPI.ERR_TYPE, "null datatype");
        }
        type.checkUsable();
        if (count < 0) {
            throw new MPIException(MPI.ERR_COUNT, "negative count " + count);
        }
    }

    static void checkSend(final int count, final Datatype type, final int dest, final int tag, final int size)
        throws MPIException {
        checkData(count, type);
        if (tag < 0 || tag > Tags.TAG_UB) {
            throw new MPIException(MPI.ERR_TAG, "send tag " + tag + " outside [0, " + Tags.TAG_UB + "]");
        }
        if (dest != MPI.PROC_NULL && (dest < 0 || dest >= size)) {
            throw new MPIException(MPI.ERR_RANK, "destination rank " + dest + " outside [0, " + size + ")");
        }
    }

    static void checkRecv(final int count, final Datatype type, final int source, final int tag, final int size)
        throws MPIException {
        checkData(count, type);
        if (tag != MPI.ANY_TAG && (tag < 0 || tag > Tags.TAG_UB)) {
            throw new MPIException(MPI.ERR_TAG, "receive tag " + tag + " outside [0, " + Tags.TAG_UB + "] and not "
                + "ANY_TAG");
        }
        if (source != MPI.PROC_NULL && source != MPI.ANY_SOURCE && (source < 0 || source >= size)) {
            throw new MPIException(MPI.ERR_RANK, "source rank " + source + " outside [0, " + size + ")");
        }
    }

    /** The span of {@code count} elements of {@code type} at {@code buf}, checked. */
    static Span data(final Object buf, final int count, final Datatype type) throws MPIException {
        checkData(count, type);
        final Span s = Span.of(buf);
        s.check(count, type);
        return s;
    }

    /** The span of per-rank blocks ({@code counts[i]} elements at {@code displs[i]} extents), each checked. */
    static Span blocks(final Object buf, final int[] counts, final int[] displs, final Datatype type, final int size)
        throws MPIException {
        checkData(0, type);
        if (counts == null || displs == null || counts.length < size || displs.length < size) {
            throw new MPIException(MPI.ERR_ARG, "counts and displacements need an entry per rank (" + size + ")");
        }
        final Span s = Span.of(buf);
        for (int i = 0; i < size; i++) {
            s.at(displs[i] * type.extent()).check(counts[i], type);
        }
        return s;
    }

    /** The span of per-rank blocks with a type each, at byte displacements, each checked. */
    static Span typedBlocks(final Object buf, final int[] counts, final int[] displs, final Datatype[] types,
                            final int size) throws MPIException {
        if (counts == null || displs == null || types == null || counts.length < size || displs.length < size
            || types.length < size) {
            throw new MPIException(MPI.ERR_ARG, "counts, displacements and types must have one entry per rank ("
                + size + ")");
        }
        final Span s = Span.of(buf);
        for (int i = 0; i < size; i++) {
            checkData(counts[i], types[i]);
            s.at(displs[i]).check(counts[i], types[i]);
        }
        return s;
    }

    /** The sum of per-rank counts. */
    static int total(final int[] counts, final int size) throws MPIException {
        if (counts == null || counts.length < size) {
            throw new MPIException(MPI.ERR_ARG, "counts need an entry per rank (" + size + ")");
        }
        int t = 0;
        for (int i = 0; i < size; i++) {
            if (counts[i] < 0) {
                throw new MPIException(MPI.ERR_COUNT, "negative count " + counts[i]);
            }
            t = Math.addExact(t, counts[i]);
        }
        return t;
    }

    static void checkRoot(final int root, final int size) throws MPIException {
        if (root < 0 || root >= size) {
            throw new MPIException(MPI.ERR_ROOT, "root " + root + " outside [0, " + size + ")");
        }
    }

    /** A form of a rooted collective used at the wrong rank. */
    static void checkIs(final boolean ok, final String what) throws MPIException {
        if (!ok) {
            throw new MPIException(MPI.ERR_ROOT, what);
        }
    }

    static void checkOp(final Op op, final Datatype type) throws MPIException {
        if (op == null) {
            throw new MPIException(MPI.ERR_OP, "null operation");
        }
        type.checkUsable();
        op.check(type);
    }
}
