package weft.ucs.wakeup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.sys.LibC;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EventFdTest {
    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    void shouldWakeAnEpollWaitFromAnotherThread() throws Exception {
        try (EventFd efd = new EventFd(); EventSet set = new EventSet(4)) {
            set.add(efd.fd(), LibC.EPOLLIN, 0xABCDEF0123L);
            final Thread signaller = new Thread(() -> {
                try {
                    Thread.sleep(100);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                efd.signal();
            });
            final long start = System.nanoTime();
            signaller.start();
            final int n = set.await(10_000);
            final long waitedMs = (System.nanoTime() - start) / 1_000_000;
            signaller.join(5000);
            assertEquals(1, n);
            assertTrue(waitedMs >= 50 && waitedMs < 9000, "woke after " + waitedMs + " ms");
            assertEquals(0xABCDEF0123L, set.readyData(0), "data word comes back unchanged");
            assertTrue((set.readyMask(0) & LibC.EPOLLIN) != 0);
            assertTrue(efd.drain());
            assertFalse(efd.drain(), "drained: no longer readable");
            assertEquals(0, set.await(0), "nothing ready after drain");
        }
    }

    @Test
    void shouldTimeOutWithZero() {
        try (EventFd efd = new EventFd(); EventSet set = new EventSet(1)) {
            set.add(efd.fd(), LibC.EPOLLIN, 1);
            final long start = System.nanoTime();
            assertEquals(0, set.await(50));
            assertTrue(System.nanoTime() - start >= 40_000_000L, "waited the timeout");
            efd.signal();
            efd.signal();
            assertEquals(1, set.await(0), "two signals, one readable fd");
            set.modify(efd.fd(), LibC.EPOLLOUT, 2);
            assertEquals(1, set.await(0));
            assertEquals(2, set.readyData(0));
            set.remove(efd.fd());
            assertEquals(0, set.await(0), "removed fds report nothing");
            set.remove(efd.fd()); // removing twice is ignored
            assertThrows(UncheckedIOException.class, () -> set.add(-5, LibC.EPOLLIN, 0), "bad fd is an error");
        }
    }

    @Test
    void shouldReportSeveralReadyFds() {
        try (EventFd x = new EventFd(); EventFd y = new EventFd(); EventSet set = new EventSet(4)) {
            set.add(x.fd(), LibC.EPOLLIN, 10);
            set.add(y.fd(), LibC.EPOLLIN, 20);
            x.signal();
            y.signal();
            assertEquals(2, set.await(1000));
            assertEquals(30, set.readyData(0) + set.readyData(1), "both data words, packed 12-byte events");
        }
    }

    @Test
    void shouldReleaseDescriptorsOnClose() throws IOException {
        final long before = openFds();
        for (int i = 0; i < 20; i++) {
            final EventFd efd = new EventFd();
            final EventSet set = new EventSet(2);
            set.add(efd.fd(), LibC.EPOLLIN, i);
            assertEquals(before + 2, openFds());
            set.close();
            efd.close();
            efd.close(); // idempotent
            set.close();
            efd.signal(); // a no-op after close
            assertFalse(efd.drain());
        }
        assertEquals(before, openFds());
    }
}
