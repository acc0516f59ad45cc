package weft.ucs.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import weft.uct.AllocationMeter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data-path calls (send, recv, read, write, epoll_wait, ...) run without errno capture and read errno
 * only when a call fails: the errors must still be exact, and the calls (failing with EAGAIN included) must
 * allocate nothing.
 */
class LibCDataPathTest {

    private static final int ENOTSOCK = 88;

    private Arena arena;
    private int efd;
    private int sock;
    private int ep;

    @BeforeEach
    void open() {
        arena = Arena.ofConfined();
        efd = LibC.eventfd(0, LibC.EFD_NONBLOCK | LibC.EFD_CLOEXEC);
        sock = LibC.socket(LibC.AF_UNIX, LibC.SOCK_DGRAM | LibC.SOCK_NONBLOCK, 0);
        ep = LibC.epollCreate1(LibC.EPOLL_CLOEXEC);
        assertTrue(efd >= 0 && sock >= 0 && ep >= 0, "eventfd " + efd + ", socket " + sock + ", epoll " + ep);
    }

    @AfterEach
    void close() {
        LibC.close(ep);
        LibC.close(sock);
        LibC.close(efd);
        arena.close();
    }

    @Test
    void shouldReportTheExactErrnoOfAFailedCall() {
        final MemorySegment buf = arena.allocate(8, 8);
        assertEquals(-LibC.EAGAIN, LibC.read(efd, buf.address(), 8), "empty eventfd");
        buf.set(ValueLayout.JAVA_LONG, 0, 3);
        assertEquals(8, LibC.write(efd, buf.address(), 8));
        buf.set(ValueLayout.JAVA_LONG, 0, 0);
        assertEquals(8, LibC.read(efd, buf.address(), 8));
        assertEquals(3, buf.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(-LibC.EAGAIN, LibC.recv(sock, buf.address(), 8, LibC.MSG_DONTWAIT), "nothing to receive");
        // errors other than EAGAIN take the confirming path: the errno must be the real one
        assertEquals(-ENOTSOCK, LibC.recv(efd, buf.address(), 8, LibC.MSG_DONTWAIT));
        assertEquals(-ENOTSOCK, LibC.send(efd, buf.address(), 8, LibC.MSG_DONTWAIT | LibC.MSG_NOSIGNAL));
        assertEquals(-LibC.EINVAL, LibC.read(efd, buf.address(), 4), "eventfd reads are 8 bytes");
        assertEquals(-LibC.EBADF, LibC.epollWait(-1, buf.address(), 1, 0));
        assertEquals(-LibC.EBADF, LibC.writev(-1, buf.address(), 0));
        assertEquals(0, LibC.epollWait(ep, buf.address(), 1, 0), "no event registered");
    }

    @Test
    @Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
    void shouldNotAllocateOnTheDataPath() {
        final MemorySegment buf = arena.allocate(16, 8);
        final long[] sink = new long[1];
        final Runnable round = () -> {
            for (int i = 0; i < 10_000; i++) {
                sink[0] += LibC.read(efd, buf.address(), 8); // EAGAIN
                buf.set(ValueLayout.JAVA_LONG, 0, 1);
                sink[0] += LibC.write(efd, buf.address(), 8);
                sink[0] += LibC.read(efd, buf.address(), 8);
                sink[0] += LibC.recv(sock, buf.address(), 8, LibC.MSG_DONTWAIT); // EAGAIN
                sink[0] += LibC.epollWait(ep, buf.address(), 1, 0);
            }
        };
        // a one-off JIT transient shows in one window, a per-call allocation (40 B x 50k calls) in all of them
        AllocationMeter.fewestBytes("10k rounds of eventfd read/write, recv and epoll_wait", round, 256, 30_000);
        assertTrue(sink[0] != 0);
    }
}
