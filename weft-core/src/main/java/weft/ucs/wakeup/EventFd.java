package weft.ucs.wakeup;

import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A Linux eventfd: any thread of this process {@link #signal()}s, the owner waits for it to
 * become readable (via an {@link EventSet}) and {@link #drain()}s it. Non-blocking.
 */
public final class EventFd implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment one;
    private final MemorySegment sink;
    private volatile int fd;

    public EventFd() {
        one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1L);
        sink = arena.allocate(JAVA_LONG);
        fd = (int) LibC.check(LibC.eventfd(0, LibC.EFD_NONBLOCK | LibC.EFD_CLOEXEC), "eventfd");
    }

    public int fd() {
        return fd;
    }

    /**
     * Makes the fd readable. Safe from any thread; a no-op after close. Holds the monitor that
     * {@link #close()} takes, so a concurrent close cannot free the fd number (which the process may
     * reuse for another file at once) or the source word between the check and the write. The
     * write is a system call anyway; an uncontended monitor adds nothing measurable.
     */
    public synchronized void signal() {
        final int f = fd;
        if (f >= 0) {
            LibC.write(f, one.address(), 8);
        }
    }

    /** Resets the fd to non-readable; returns true if it had been signalled. */
    public boolean drain() {
        return LibC.read(fd, sink.address(), 8) == 8;
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
