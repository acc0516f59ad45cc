package weft.uct.shm;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The wakeup channel of an interface: a non-blocking AF_UNIX datagram socket bound to an
 * abstract address (nothing on disk). A sender that clears the FIFO's ARMED flag sends one byte
 * to it; the receiver sleeps in poll/epoll on {@link #fd()}.
 */
final class WakeupSocket implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment scratch = arena.allocate(64);
    private final byte[] name;
    private int fd;

    WakeupSocket(final String abstractName) {
        this.name = abstractName.getBytes(StandardCharsets.US_ASCII);
        fd = LibC.socket(LibC.AF_UNIX, LibC.SOCK_DGRAM | LibC.SOCK_NONBLOCK | LibC.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new WeftException(Status.IO_ERROR, "shm: socket(AF_UNIX): " + LibC.strerror(-fd));
        }
        final MemorySegment addr = sockaddr(arena, name);
        final int r = LibC.bind(fd, addr, (int) addr.byteSize());
        if (r < 0) {
            LibC.close(fd);
            arena.close();
            throw new WeftException(Status.IO_ERROR, "shm: bind(@" + abstractName + "): " + LibC.strerror(-r));
        }
    }

    /** A sockaddr_un for the abstract name (leading NUL), sized exactly. */
    static MemorySegment sockaddr(final Arena arena, final byte[] name) {
        final MemorySegment a = arena.allocate(2 + 1 + name.length, 8);
        a.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) LibC.AF_UNIX);
        a.set(ValueLayout.JAVA_BYTE, 2, (byte) 0);
        MemorySegment.copy(name, 0, a, ValueLayout.JAVA_BYTE, 3, name.length);
        return a;
    }

    byte[] name() {
        return name.clone();
    }

    int fd() {
        return fd;
    }

    /** Reads every queued datagram. */
    void drain() {
        while (LibC.recv(fd, scratch.address(), scratch.byteSize(), LibC.MSG_DONTWAIT) >= 0) {
            // discard: a datagram only means "look at the FIFO"
        }
    }

    /**
     * Sends one wakeup byte from {@code fd} to {@code addr}. A full socket buffer (EAGAIN) means
     * a wakeup is already queued; a missing peer (ECONNREFUSED) is reported by liveness checks.
     */
    static void signal(final int fd, final MemorySegment one, final MemorySegment addr) {
        LibC.sendto(fd, one.address(), 1, LibC.MSG_DONTWAIT | LibC.MSG_NOSIGNAL, addr, (int) addr.byteSize());
    }

    @Override
    public synchronized void close() {
        if (fd >= 0) {
            LibC.close(fd);
            fd = -1;
            arena.close();
        }
    }
}
