package mpi;

/**
 * The argument checks of a {@link File}'s accesses against its access mode and view: each throws the
 * {@link MPIException} MPI names (ERR_READ_ONLY, ERR_ACCESS, ERR_UNSUPPORTED_OPERATION, ERR_TYPE ...).
 */
final class FileChecks {
    private FileChecks() {
    }

    /** A buffer of {@code count} elements of {@code type}: a usable type and a buffer large enough. */
    static Span checked(final Span s, final int count, final Datatype type) throws MPIException {
        Args.checkData(count, type);
        s.check(count, type);
        return s;
    }

    /** The file may be written (not opened MODE_RDONLY). */
    static void write(final int amode) throws MPIException {
        if ((amode & MPI.MODE_RDONLY) != 0) {
            throw new MPIException(MPI.ERR_READ_ONLY, "the file was opened read-only (MODE_RDONLY)");
        }
    }

    private static void access(final int amode, final boolean write) throws MPIException {
        if (write) {
            write(amode);
        } else if ((amode & MPI.MODE_WRONLY) != 0) {
            throw new MPIException(MPI.ERR_ACCESS, "the file was opened write-only (MODE_WRONLY)");
        }
    }

    /** {@code what} (an explicit offset, the individual pointer) is not for a MODE_SEQUENTIAL file. */
    static void notSequential(final int amode, final String what) throws MPIException {
        if ((amode & MPI.MODE_SEQUENTIAL) != 0) {
            throw new MPIException(MPI.ERR_UNSUPPORTED_OPERATION, what + " on a file opened with MODE_SEQUENTIAL "
                + "(only the shared file pointer moves there)");
        }
    }

    /** The etypes of {@code view} that {@code count} elements of {@code type} make, checked against the access mode. */
    static long etypes(final int amode, final FileLayout view, final boolean write, final int count,
                       final Datatype type) throws MPIException {
        access(amode, write);
        final long bytes = count * type.size;
        if (bytes % view.etype.size != 0) {
            throw new MPIException(MPI.ERR_TYPE, count + " element(s) of " + type + " are not a whole number of "
                + "etypes of " + view.etype.size + " B");
        }
        return bytes / view.etype.size;
    }
}
