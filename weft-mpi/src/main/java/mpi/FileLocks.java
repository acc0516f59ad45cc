package mpi;

import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Byte-range locks of one open MPI file, between processes and between the threads of one: open file description
 * locks ({@code F_OFD_SETLKW}) on a descriptor of the file's own, which conflict with every other open of the file
 * (other ranks, another {@link File} of the same path in this process) and wait rather than fail, and a lock
 * that lets one thread of those sharing this open hold ranges at a time: the kernel neither sets them against
 * each other nor keeps their ranges apart (two shared ranges of one open merge, and unlocking one would drop
 * the other's overlap). On a file system without these locks ({@link #supported} false, found at open) every
 * lock is a no-op and {@link FileIo} does not sieve writes.
 *
 * <p>Who takes what ({@link FileIo}): a write shares the range it touches, a sieved write (read, patch, write back
 * holes and all) and an atomic-mode write hold it alone, an atomic-mode read shares it. So a sieved write never
 * puts back stale bytes over what another rank wrote into its holes meanwhile, and plain writes never wait for
 * each other. A file opened write-only has a descriptor that cannot take shared locks: its writes hold their
 * ranges alone.
 *
 * <pre>{@code
 * try (FileLocks.Held h = locks.lock(from, to, true)) {
 *     ... read, patch, write back [from, to)
 * }
 * }</pre>
 */
final class FileLocks implements AutoCloseable {
    private static final long TYPE = LibC.FLOCK.byteOffset(MemoryLayout.PathElement.groupElement("l_type"));
    private static final long START = LibC.FLOCK.byteOffset(MemoryLayout.PathElement.groupElement("l_start"));
    private static final long LEN = LibC.FLOCK.byteOffset(MemoryLayout.PathElement.groupElement("l_len"));

    private final int fd;
    private final boolean canShare;
    private final boolean supported;
    /** Set by {@link #close} under {@code threads}: a closed descriptor's number may be another file's. */
    private boolean closed;
    private final ReentrantLock threads = new ReentrantLock();
    /** The struct flock of every call: used only by the thread holding {@code threads}. */
    private final Arena arena = Arena.ofShared();
    private final MemorySegment flock = arena.allocate(LibC.FLOCK); // zeroed: SEEK_SET, l_pid 0

    private FileLocks(final int fd, final boolean canShare, final boolean supported) {
        this.fd = fd;
        this.canShare = canShare;
        this.supported = supported;
    }

    /** True if the file system keeps these locks (else every lock is a no-op). */
    boolean supported() {
        return supported;
    }

    /**
     * A lock descriptor for {@code path}, opened with the access {@code amode} gives the file, and whether its
     * file system keeps such locks (a question that changes nothing: {@code F_OFD_GETLK}).
     */
    static FileLocks open(final Path path, final int amode) throws MPIException {
        final int access = (amode & MPI.MODE_RDWR) != 0 ? LibC.O_RDWR
            : (amode & MPI.MODE_WRONLY) != 0 ? LibC.O_WRONLY : LibC.O_RDONLY;
        final boolean canShare = access != LibC.O_WRONLY;
        try (Arena a = Arena.ofConfined()) {
            final int fd = LibC.open(a.allocateFrom(path.toString()), access | LibC.O_CLOEXEC, 0);
            if (fd < 0) {
                throw new MPIException(MPI.ERR_IO, "cannot open " + path + " for its byte-range locks: "
                    + LibC.strerror(-fd));
            }
            final MemorySegment probe = a.allocate(LibC.FLOCK);
            probe.set(ValueLayout.JAVA_SHORT, TYPE, canShare ? LibC.F_RDLCK : LibC.F_WRLCK);
            probe.set(ValueLayout.JAVA_LONG, LEN, 1);
            final int r = LibC.fcntl(fd, LibC.F_OFD_GETLK, probe);
            return new FileLocks(fd, canShare,
                r >= 0 || r != -LibC.EINVAL && r != -LibC.ENOLCK && r != -LibC.EOPNOTSUPP);
        }
    }

    /** A held range: closing it releases it. */
    final class Held implements AutoCloseable {
        private final long from;
        private final long to;

        private Held(final long from, final long to) {
            this.from = from;
            this.to = to;
        }

        @Override
        public void close() throws MPIException {
            try {
                set(LibC.F_UNLCK, from, to);
            } finally {
                threads.unlock();
            }
        }
    }

    /** Holds [{@code from}, {@code to}) of the file, alone ({@code exclusive}) or shared, waiting as long as needed. */
    Held lock(final long from, final long to, final boolean exclusive) throws MPIException {
        threads.lock();
        try {
            set(exclusive || !canShare ? LibC.F_WRLCK : LibC.F_RDLCK, from, to);
            return new Held(from, to);
        } catch (final MPIException | RuntimeException e) {
            threads.unlock();
            throw e;
        }
    }

    private void set(final short type, final long from, final long to) throws MPIException {
        if (closed) {
            throw new MPIException(MPI.ERR_FILE, "the file is closed");
        }
        if (to <= from || !supported) {
            return; // nothing touched (a zero length would mean "to the end of the file"), or no locks here
        }
        flock.set(ValueLayout.JAVA_SHORT, TYPE, type);
        flock.set(ValueLayout.JAVA_LONG, START, from);
        flock.set(ValueLayout.JAVA_LONG, LEN, to - from);
        int r;
        do {
            r = LibC.fcntl(fd, LibC.F_OFD_SETLKW, flock);
        } while (r == -LibC.EINTR);
        if (r < 0) {
            throw new MPIException(MPI.ERR_IO, "byte-range lock of [" + from + ", " + to + ") failed: "
                + LibC.strerror(-r));
        }
    }

    @Override
    public void close() {
        threads.lock();
        try {
            if (!closed) {
                closed = true;
                LibC.close(fd);
                arena.close();
            }
        } finally {
            threads.unlock();
        }
    }
}
