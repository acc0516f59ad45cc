package weft.uct.tcp;

import weft.ucs.sys.LibC;

/**
 * The pipe one {@link TcpChannel} splices large put payloads through (from {@code WEFT_TCP_SPLICE_THRESH}
 * to {@code WEFT_TCP_SPLICE_MAX} bytes): user pages go into it by {@code vmsplice} and from it into the
 * socket by {@code splice}, so the sending kernel refers to the pages instead of copying them (on
 * loopback the receiver copies straight from the sender's pages). The socket, and the peer's receive
 * queue, refer to those pages until the peer has read them, which is why only memory that must not
 * change before the peer's acknowledgement (a put's) may be spliced. Opened on the first splice; a
 * kernel that refuses a pipe or gives one too small to pay ({@link #MIN_PIPE}) marks it
 * {@link #failed} for good, and the channel writes the ordinary way.
 *
 * <p>Single threaded (the interface's progress thread).
 */
final class TcpSplicePipe {
    /** The smallest splice pipe worth using (unless a smaller one was asked for). */
    private static final int MIN_PIPE = 256 << 10;

    private int readFd = -1;
    private int writeFd = -1;
    private boolean failed;
    /** Spliced bytes in the pipe, not yet in the socket: they leave before anything queued. */
    long bytes;

    /** True once the kernel refused a pipe or a vmsplice: nothing more is spliced here. */
    boolean failed() {
        return failed;
    }

    /** Opens the pipe if needed, asking for {@code size} bytes; false (and failed) if it cannot pay. */
    boolean open(final int size) {
        if (readFd >= 0) {
            return true;
        }
        final int[] fds = new int[2];
        if (LibC.pipe2(fds, LibC.O_NONBLOCK | LibC.O_CLOEXEC) < 0) {
            failed = true;
            return false;
        }
        // the kernel may give less than asked (fs.pipe-max-size; beyond the per-user budget
        // fs.pipe-user-pages-soft, new pipes get 2 pages): a small pipe costs two calls per few
        // pages, more than the copy it saves (1 MiB puts: 7.3 GB/s through a 1 MiB pipe, 6.5
        // through 256 KiB, 4.7 through 64 KiB, as fast as copying), so then this connection copies
        LibC.fcntl(fds[1], LibC.F_SETPIPE_SZ, size);
        final int got = LibC.fcntl(fds[1], LibC.F_GETPIPE_SZ, 0);
        if (got < Math.min(size, MIN_PIPE)) {
            LibC.close(fds[0]);
            LibC.close(fds[1]);
            failed = true;
            return false;
        }
        readFd = fds[0];
        writeFd = fds[1];
        return true;
    }

    /** vmsplices the memory of one iovec entry at {@code iov} into the pipe: bytes taken, or marks failed. */
    long fillFrom(final long iov) {
        final long v = LibC.vmsplice(writeFd, iov, 1, LibC.SPLICE_F_NONBLOCK);
        if (v <= 0) {
            failed = true; // a kernel that refuses this memory: splice nothing more here
            return 0;
        }
        bytes = v;
        return v;
    }

    /** Splices the pipe's bytes into socket {@code fd}: bytes moved, or -errno. */
    long drainTo(final int fd) {
        final long s = LibC.splice(readFd, fd, bytes, LibC.SPLICE_F_MOVE | LibC.SPLICE_F_NONBLOCK);
        if (s > 0) {
            bytes -= s;
        }
        return s;
    }

    /** Closes the pipe (its pages are released with it); a later splice opens a new one. Idempotent. */
    void close() {
        if (readFd >= 0) {
            LibC.close(readFd);
            LibC.close(writeFd);
            readFd = -1;
            writeFd = -1;
        }
        bytes = 0;
    }
}
