package weft.ucs.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The setup path's calls share one call shape (six 64-bit arguments, a 64-bit result): their results, the
 * narrowing of C {@code int} results (-1 must stay -1 whatever the high half of the register holds), errno,
 * and pointer arguments must be what each C prototype gives. The data path's calls share the same shape
 * without errno capture: their results and the errno of a failure (read again through the capturing twin).
 */
class LibCSetupCallsTest {
    private static final int ENOENT = 2;
    private static final int EBADF = 9;

    @Test
    void errorsComeBackAsMinusErrnoThroughTheSharedShape() {
        try (Arena a = Arena.ofConfined()) {
            assertEquals(-EBADF, LibC.close(-1));
            assertEquals(-EBADF, LibC.fchmod(-1, 0600));
            assertEquals(-EBADF, LibC.ftruncate(-1, 4096));
            assertEquals(-EBADF, LibC.lseek(-1, 0, LibC.SEEK_END));
            assertEquals(-EBADF, LibC.listen(-1, 1));
            assertEquals(-EBADF, LibC.fcntl(-1, LibC.F_GETFD, 0));
            assertEquals(-ENOENT, LibC.open(a.allocateFrom("/nonexistent/weft/" + System.nanoTime()),
                LibC.O_RDONLY | LibC.O_CLOEXEC, 0));
            assertEquals(-LibC.EINVAL, LibC.mmap(0, 0, LibC.PROT_READ, LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS, -1, 0));
        }
    }

    @Test
    void resultsAndPointerArgumentsMatchTheCPrototypes() {
        try (Arena a = Arena.ofConfined()) {
            final int fd = LibC.memfdCreate(a.allocateFrom("weft-setup-test"), LibC.MFD_CLOEXEC);
            assertTrue(fd >= 0, "memfd_create: " + fd);
            try {
                assertEquals(0, LibC.ftruncate(fd, 3 * 4096 + 5));
                assertEquals(3 * 4096 + 5, LibC.lseek(fd, 0, LibC.SEEK_END), "a 64-bit result");
                final long map = LibC.mmap(0, 4096, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_SHARED, fd, 4096);
                assertTrue(map > 0, "mmap: " + map);
                MemorySegment.ofAddress(map).reinterpret(4096).set(ValueLayout.JAVA_LONG, 8, 0x1122334455667788L);
                assertEquals(0, LibC.munmap(map, 4096));
                assertTrue(LibC.fcntl(fd, LibC.F_GETFD, 0) >= 0);
            } finally {
                assertEquals(0, LibC.close(fd));
            }
            final int s = LibC.socket(LibC.AF_INET, LibC.SOCK_STREAM | LibC.SOCK_CLOEXEC, 0);
            assertTrue(s >= 0, "socket: " + s);
            try {
                final MemorySegment sin = a.allocate(LibC.SOCKADDR_IN_SIZE);
                sin.set(ValueLayout.JAVA_SHORT, 0, (short) LibC.AF_INET);
                sin.set(ValueLayout.JAVA_INT, 4, 0x0100007f); // 127.0.0.1, port 0
                assertEquals(0, LibC.bind(s, sin, (int) LibC.SOCKADDR_IN_SIZE));
                assertEquals(0, LibC.listen(s, 4));
                final MemorySegment got = a.allocate(LibC.SOCKADDR_IN_SIZE);
                final MemorySegment len = a.allocateFrom(ValueLayout.JAVA_INT, (int) LibC.SOCKADDR_IN_SIZE);
                assertEquals(0, LibC.getsockname(s, got, len));
                assertEquals(LibC.SOCKADDR_IN_SIZE, len.get(ValueLayout.JAVA_INT, 0), "written through a pointer");
                assertTrue((got.get(LibC.SHORT_BE, 2) & 0xffff) != 0, "the kernel chose a port");
                assertEquals(0, LibC.setsockoptInt(s, LibC.SOL_SOCKET, LibC.SO_KEEPALIVE, 1));
                final MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
                final MemorySegment vlen = a.allocateFrom(ValueLayout.JAVA_INT, 4);
                assertEquals(0, LibC.getsockopt(s, LibC.SOL_SOCKET, LibC.SO_KEEPALIVE, v, vlen));
                assertEquals(1, v.get(ValueLayout.JAVA_INT, 0));
            } finally {
                assertEquals(0, LibC.close(s));
            }
            final int[] pair = new int[2];
            assertEquals(0, LibC.pipe2(pair, LibC.O_CLOEXEC));
            assertTrue(pair[0] >= 0 && pair[1] >= 0 && pair[0] != pair[1]);
            assertEquals(0, LibC.close(pair[0]));
            assertEquals(0, LibC.close(pair[1]));
        }
    }

    @Test
    void heapMemoryIsRefusedWhereThePrototypeTakesAPointer() {
        final MemorySegment heap = MemorySegment.ofArray(new byte[64]);
        assertThrows(IllegalArgumentException.class, () -> LibC.open(heap, LibC.O_RDONLY, 0));
        assertThrows(IllegalArgumentException.class, () -> LibC.bind(3, heap, 16));
    }

    @Test
    void dataPathCallsGiveTheirResultsAndErrno() {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment buf = a.allocate(64);
            assertEquals(-EBADF, LibC.read(-1, buf.address(), 8));
            assertEquals(-EBADF, LibC.write(-1, buf.address(), 8));
            assertEquals(-EBADF, LibC.send(-1, buf.address(), 8, 0));
            assertEquals(-EBADF, LibC.recv(-1, buf.address(), 8, 0));
            assertEquals(-EBADF, LibC.epollWait(-1, buf.address(), 1, 0), "an int result: -1 narrowed");
            final MemorySegment iov = a.allocate(16); // one iovec: 8 bytes at buf + 32
            iov.set(ValueLayout.JAVA_LONG, 0, buf.address() + 32);
            iov.set(ValueLayout.JAVA_LONG, 8, 8);
            assertEquals(-LibC.ESRCH, LibC.processVmReadv(Integer.MAX_VALUE, iov.address(), 1, iov.address(), 1),
                "no such process");
            assertEquals("Bad file descriptor", LibC.strerror(EBADF));
            final int[] pair = new int[2];
            assertEquals(0, LibC.pipe2(pair, LibC.O_CLOEXEC | LibC.O_NONBLOCK));
            try {
                assertEquals(-LibC.EAGAIN, LibC.read(pair[0], buf.address(), 8), "an empty pipe");
                buf.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
                assertEquals(8, LibC.write(pair[1], buf.address(), 8));
                assertEquals(8, LibC.read(pair[0], buf.address() + 8, 16), "a 64-bit count");
                assertEquals(0x1122334455667788L, buf.get(ValueLayout.JAVA_LONG, 8));
                final int ep = LibC.epollCreate1(0);
                assertTrue(ep >= 0, "epoll_create1: " + ep);
                try {
                    assertEquals(0, LibC.epollWait(ep, buf.address(), 1, 0), "nothing registered");
                } finally {
                    assertEquals(0, LibC.close(ep));
                }
            } finally {
                assertEquals(0, LibC.close(pair[0]));
                assertEquals(0, LibC.close(pair[1]));
            }
        }
    }

    @Test
    void getpidIsThisProcess() {
        assertEquals(ProcessHandle.current().pid(), LibC.getpid());
    }
}
