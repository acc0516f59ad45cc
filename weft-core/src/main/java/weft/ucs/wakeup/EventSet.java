package weft.ucs.wakeup;

import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * An epoll set: a worker sleeps here until one of its interfaces' event fds is readable.
 * {@link #fd()} can itself be added to the application's own poll/epoll loop. Single threaded
 * except {@link #close()}.
 */
public final class EventSet implements AutoCloseable {
    // struct epoll_event is packed only on x86_64 (12 bytes, data at 4); aarch64 pads it to 16, data at 8
    private static final boolean PACKED = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> true;
        default -> false;
    };
    private static final long EVENT_SIZE = PACKED ? 12 : 16;
    private static final long DATA_OFFSET = PACKED ? 4 : 8;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment events;
    private final MemorySegment ctl;
    private final int maxEvents;
    private int fd;

    public EventSet(final int maxEvents) {
        this.maxEvents = maxEvents;
        this.events = arena.allocate(EVENT_SIZE * maxEvents, 8);
        this.ctl = arena.allocate(EVENT_SIZE, 8);
        this.fd = (int) LibC.check(LibC.epollCreate1(LibC.EPOLL_CLOEXEC), "epoll_create1");
    }

    /** The epoll descriptor. */
    public int fd() {
        return fd;
    }

    /** Watches {@code watched} for {@code mask} (EPOLLIN...), reporting {@code data} when ready. */
    public void add(final int watched, final int mask, final long data) {
        ctl(LibC.EPOLL_CTL_ADD, watched, mask, data);
    }

    public void modify(final int watched, final int mask, final long data) {
        ctl(LibC.EPOLL_CTL_MOD, watched, mask, data);
    }

    /** Stops watching; ignores descriptors that were not watched. */
    public void remove(final int watched) {
        final int r = LibC.epollCtl(fd, LibC.EPOLL_CTL_DEL, watched, ctl);
        if (r < 0 && r != -LibC.ENOENT && r != -LibC.EBADF) {
            LibC.check(r, "epoll_ctl(DEL)");
        }
    }

    private void ctl(final int op, final int watched, final int mask, final long data) {
        ctl.set(JAVA_INT_UNALIGNED, 0, mask);
        ctl.set(JAVA_LONG_UNALIGNED, DATA_OFFSET, data);
        LibC.check(LibC.epollCtl(fd, op, watched, ctl), "epoll_ctl");
    }

    /**
     * Waits up to {@code timeoutMs} (-1 = forever, 0 = poll) for events.
     *
     * @return the number of ready entries (read them with {@link #readyData}/{@link #readyMask}),
     *     0 on timeout or EINTR
     */
    public int await(final int timeoutMs) {
        final int r = LibC.epollWait(fd, events.address(), maxEvents, timeoutMs);
        if (r == -LibC.EINTR) {
            return 0;
        }
        return (int) LibC.check(r, "epoll_wait");
    }

    public long readyData(final int i) {
        return events.get(JAVA_LONG_UNALIGNED, i * EVENT_SIZE + DATA_OFFSET);
    }

    public int readyMask(final int i) {
        return events.get(JAVA_INT, i * EVENT_SIZE);
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
