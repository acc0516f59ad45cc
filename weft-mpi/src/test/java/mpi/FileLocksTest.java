package mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FileLocks} in this JVM: what another open of the file sees of a held range ({@code F_OFD_GETLK} from a
 * descriptor of the test's own: the lock type that would conflict with a request, or none), a second open in
 * the same process waiting for the first, a write-only open holding even its "shared" ranges alone, and no
 * lock call on a closed descriptor.
 */
@Timeout(60)
class FileLocksTest {
    private static final long TYPE = LibC.FLOCK.byteOffset(MemoryLayout.PathElement.groupElement("l_type"));
    private static final long START = LibC.FLOCK.byteOffset(MemoryLayout.PathElement.groupElement("l_start"));
    private static final long LEN = LibC.FLOCK.byteOffset(MemoryLayout.PathElement.groupElement("l_len"));

    /** The type of the lock that conflicts with a {@code type} request over [from, to) by another open, or F_UNLCK. */
    private static short conflict(final Path file, final short type, final long from, final long to) {
        try (Arena a = Arena.ofConfined()) {
            final int fd = LibC.open(a.allocateFrom(file.toString()), LibC.O_RDWR | LibC.O_CLOEXEC, 0);
            assertTrue(fd >= 0, "open: " + fd);
            try {
                final MemorySegment f = a.allocate(LibC.FLOCK);
                f.set(ValueLayout.JAVA_SHORT, TYPE, type);
                f.set(ValueLayout.JAVA_LONG, START, from);
                f.set(ValueLayout.JAVA_LONG, LEN, to - from);
                assertEquals(0, LibC.fcntl(fd, LibC.F_OFD_GETLK, f));
                return f.get(ValueLayout.JAVA_SHORT, TYPE);
            } finally {
                LibC.close(fd);
            }
        }
    }

    @Test
    void heldRangesAreSeenByOtherOpensAndReleased(@TempDir final Path dir) throws Exception {
        final Path file = Files.write(dir.resolve("f"), new byte[64]);
        try (FileLocks locks = FileLocks.open(file, MPI.MODE_RDWR)) {
            assertTrue(locks.supported(), "this file system keeps OFD locks");
            try (FileLocks.Held h = locks.lock(8, 16, true)) {
                assertEquals(LibC.F_WRLCK, conflict(file, LibC.F_RDLCK, 12, 13), "an exclusive range bars readers");
                assertEquals(LibC.F_UNLCK, conflict(file, LibC.F_WRLCK, 16, 32), "only [8, 16) is held");
            }
            assertEquals(LibC.F_UNLCK, conflict(file, LibC.F_WRLCK, 0, 64), "released");
            try (FileLocks.Held h = locks.lock(0, 32, false)) {
                assertEquals(LibC.F_UNLCK, conflict(file, LibC.F_RDLCK, 4, 8), "a shared range admits readers");
                assertEquals(LibC.F_RDLCK, conflict(file, LibC.F_WRLCK, 4, 8), "and bars a writer");
            }
        }
        try (FileLocks writeOnly = FileLocks.open(file, MPI.MODE_WRONLY);
             FileLocks.Held h = writeOnly.lock(0, 8, false)) {
            assertEquals(LibC.F_WRLCK, conflict(file, LibC.F_RDLCK, 0, 8), "a write-only open cannot share");
        }
    }

    @Test
    void aSecondOpenInThisProcessWaitsForTheFirst(@TempDir final Path dir) throws Exception {
        final Path file = Files.write(dir.resolve("f"), new byte[64]);
        try (FileLocks first = FileLocks.open(file, MPI.MODE_RDWR);
             FileLocks second = FileLocks.open(file, MPI.MODE_RDWR)) {
            final AtomicBoolean released = new AtomicBoolean();
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final CountDownLatch asking = new CountDownLatch(1);
            final CountDownLatch got = new CountDownLatch(1);
            final Thread t;
            try (FileLocks.Held h = first.lock(0, 16, true)) {
                t = Thread.ofPlatform().start(() -> {
                    asking.countDown();
                    try (FileLocks.Held mine = second.lock(8, 24, false)) {
                        if (!released.get()) {
                            failed.set(new AssertionError("the second open got [8, 24) while the first held [0, 16)"));
                        }
                        got.countDown();
                    } catch (final MPIException | RuntimeException e) {
                        failed.set(e);
                    }
                });
                assertTrue(asking.await(30, TimeUnit.SECONDS));
                // a second open that did not wait would get its range now, while this one is held
                assertFalse(got.await(200, TimeUnit.MILLISECONDS), "the second open did not wait");
                released.set(true);
            }
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive(), "the second open never got its range");
            assertNull(failed.get());
        }
    }

    @Test
    void aClosedFileTakesNoLock(@TempDir final Path dir) throws Exception {
        final Path file = Files.write(dir.resolve("f"), new byte[8]);
        final FileLocks locks = FileLocks.open(file, MPI.MODE_RDWR);
        locks.close();
        locks.close(); // once is enough; twice must not close another file's descriptor
        final MPIException e = assertThrows(MPIException.class, () -> locks.lock(0, 8, true));
        assertEquals(MPI.ERR_FILE, e.getErrorClass());
    }
}
