package mpi;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;

/**
 * Opening a {@link File}, collectively: the access mode is checked (MPI's rules), rank 0 of the communicator
 * opens first (it alone creates the file, so MODE_EXCL lets exactly one open succeed) and tells the others
 * how it went; then the others open, and all agree on the outcome, so that either every rank has the file
 * open or every rank fails with an error and holds nothing.
 */
final class FileOpen {
    private static final int ACCESS = MPI.MODE_RDONLY | MPI.MODE_WRONLY | MPI.MODE_RDWR;
    private static final int KNOWN = ACCESS | MPI.MODE_CREATE | MPI.MODE_EXCL | MPI.MODE_DELETE_ON_CLOSE
        | MPI.MODE_UNIQUE_OPEN | MPI.MODE_APPEND | MPI.MODE_SEQUENTIAL;

    /** What an open leaves: the file's own communicator, the channel, the shared pointer, the size at open. */
    record Opened(Comm comm, Path path, FileIo io, SharedPointer shared, long size) {
    }

    private FileOpen() {
    }

    static Opened open(final Comm comm, final String filename, final int amode) throws MPIException {
        MPI.check();
        if (comm == null) {
            throw new MPIException(MPI.ERR_COMM, "null communicator");
        }
        comm.checkLive();
        if (comm.isInter()) {
            throw new MPIException(MPI.ERR_COMM, "files are opened on intracommunicators");
        }
        checkAmode(amode);
        final Path path = path(filename);
        final Comm c = comm.dup();
        c.errhandler = MPI.ERRORS_RETURN;
        FileChannel ch = null;
        FileLocks locks = null;
        try {
            MPIException mine = null;
            if (c.rank == 0) {
                try {
                    ch = channel(path, amode, true);
                    locks = FileLocks.open(path, amode);
                } catch (final MPIException e) {
                    mine = e;
                }
            }
            agree(c, mine, true);
            if (c.rank != 0) {
                try {
                    ch = channel(path, amode, false);
                    locks = FileLocks.open(path, amode);
                } catch (final MPIException e) {
                    mine = e;
                }
            }
            agree(c, mine, false);
            final FileIo io = new FileIo(ch, locks, (amode & MPI.MODE_RDWR) != 0);
            final SharedPointer shared = SharedPointer.create(c);
            final long size = io.size();
            if ((amode & MPI.MODE_APPEND) != 0) {
                if (c.rank == 0) {
                    shared.set(size);
                }
                c.barrier();
            }
            return new Opened(c, path, io, shared, size);
        } catch (final MPIException | RuntimeException e) {
            closeQuietly(ch, e);
            if (locks != null) {
                locks.close();
            }
            try {
                c.free();
            } catch (final MPIException f) {
                e.addSuppressed(f);
            }
            throw e;
        }
    }

    /**
     * Every rank learns the worst error class any rank met (or rank 0's alone when {@code fromRoot}) and
     * throws if there was one: its own error, or one naming the rank that failed.
     */
    static void agree(final Comm c, final MPIException mine, final boolean fromRoot) throws MPIException {
        final int[] cls = {mine == null ? 0 : mine.getErrorClass()};
        if (fromRoot) {
            c.bcast(cls, 1, MPI.INT, 0);
        } else {
            c.allReduce(cls, 1, MPI.INT, MPI.MAX);
        }
        if (mine != null) {
            throw mine;
        }
        if (cls[0] != 0) {
            throw new MPIException(cls[0], (fromRoot ? "rank 0" : "another rank") + " of the file's communicator "
                + "failed (error class " + cls[0] + ")");
        }
    }

    /** Checks an access mode as MPI does: one access flag, no creation when read-only, no read-write sequential. */
    static void checkAmode(final int amode) throws MPIException {
        if ((amode & ~KNOWN) != 0) {
            throw new MPIException(MPI.ERR_AMODE, "unknown access mode bits 0x" + Integer.toHexString(amode & ~KNOWN));
        }
        if (Integer.bitCount(amode & ACCESS) != 1) {
            throw new MPIException(MPI.ERR_AMODE, "an access mode needs exactly one of MODE_RDONLY, MODE_WRONLY and "
                + "MODE_RDWR (amode " + amode + ")");
        }
        if ((amode & MPI.MODE_RDONLY) != 0 && (amode & (MPI.MODE_CREATE | MPI.MODE_EXCL)) != 0) {
            throw new MPIException(MPI.ERR_AMODE, "MODE_RDONLY with MODE_CREATE or MODE_EXCL");
        }
        if ((amode & MPI.MODE_RDWR) != 0 && (amode & MPI.MODE_SEQUENTIAL) != 0) {
            throw new MPIException(MPI.ERR_AMODE, "MODE_RDWR with MODE_SEQUENTIAL");
        }
    }

    static Path path(final String filename) throws MPIException {
        if (filename == null || filename.isEmpty()) {
            throw new MPIException(MPI.ERR_BAD_FILE, "no file name");
        }
        try {
            return Path.of(filename);
        } catch (final InvalidPathException e) {
            throw new MPIException(MPI.ERR_BAD_FILE, "bad file name " + filename + ": " + e.getMessage(), e);
        }
    }

    private static FileChannel channel(final Path path, final int amode, final boolean creator) throws MPIException {
        if (Files.isDirectory(path)) {
            throw new MPIException(MPI.ERR_BAD_FILE, path + " is a directory");
        }
        final Set<StandardOpenOption> options = EnumSet.noneOf(StandardOpenOption.class);
        if ((amode & (MPI.MODE_RDONLY | MPI.MODE_RDWR)) != 0) {
            options.add(StandardOpenOption.READ);
        }
        if ((amode & (MPI.MODE_WRONLY | MPI.MODE_RDWR)) != 0) {
            options.add(StandardOpenOption.WRITE);
        }
        if (creator && (amode & MPI.MODE_CREATE) != 0) {
            options.add((amode & MPI.MODE_EXCL) != 0 ? StandardOpenOption.CREATE_NEW : StandardOpenOption.CREATE);
        }
        try {
            return FileChannel.open(path, options);
        } catch (final IOException e) {
            throw FileIo.error(e, "open of " + path);
        }
    }

    private static void closeQuietly(final FileChannel ch, final Exception cause) {
        if (ch != null) {
            try {
                ch.close();
            } catch (final IOException e) {
                cause.addSuppressed(e);
            }
        }
    }

    /** Deletes a file (MPI_File_delete): ERR_NO_SUCH_FILE when it is missing. */
    static void delete(final String filename) throws MPIException {
        MPI.check();
        final Path path = path(filename);
        try {
            Files.delete(path);
        } catch (final IOException e) {
            throw FileIo.error(e, "delete of " + path);
        }
    }

    /** A step rank 0 runs for every rank ({@link #atRoot}). */
    @FunctionalInterface
    interface RootCall {
        long run() throws MPIException;
    }

    /** Rank 0 runs {@code step} after the ranks met, and every rank gets its result or its error class. */
    static long atRoot(final Comm comm, final RootCall step) throws MPIException {
        comm.barrier();
        final long[] out = new long[2];
        MPIException mine = null;
        if (comm.rank == 0) {
            try {
                out[0] = step.run();
            } catch (final MPIException e) {
                mine = e;
            } catch (final RuntimeException e) {
                mine = new MPIException(MPI.ERR_INTERN, String.valueOf(e), e);
            }
            out[1] = mine == null ? 0 : mine.getErrorClass();
        }
        comm.bcast(out, 2, MPI.LONG, 0);
        if (mine != null) {
            throw mine;
        }
        if (out[1] != 0) {
            throw new MPIException((int) out[1], "rank 0 of the file's communicator failed (error class " + out[1]
                + ")");
        }
        return out[0];
    }
}
