package weft.ucs.memory;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A shared mapping of an anonymous memory file ({@code memfd_create}): the owner {@link #create}s
 * it; any process of the same user {@link #attach}es it by opening {@code /proc/<pid>/fd/<fd>}.
 * Nothing is ever created in a file system, so a crash leaves no file behind, and the memory of
 * a dead owner stays valid for as long as an attacher keeps it mapped.
 *
 * <p>The file is owner-only (0600) and sealed against shrinking and growing, so an attacher that
 * checked the size once can never take SIGBUS by touching the mapping. The file name embeds a
 * caller-chosen unique name: {@link #attach} checks it, so a reused fd number or pid never maps
 * the wrong memory. Setup path only (allocates, makes system calls).
 */
public final class SharedMemory implements AutoCloseable {
    private static final String MEMFD_PREFIX = "/memfd:";
    static final long PAGE = 4096;

    private final String name;
    private final long address;
    private final long mappedSize;
    private final MemorySegment segment;
    private int fd;
    private boolean closed;

    @SuppressWarnings("restricted") // a view of the mapping this object made: its size is the mapping's
    private SharedMemory(final String name, final int fd, final long address, final long mappedSize,
                         final long size) {
        this.name = name;
        this.fd = fd;
        this.address = address;
        this.mappedSize = mappedSize;
        this.segment = MemorySegment.ofAddress(address).reinterpret(size);
    }

    /** Rounds {@code size} up to whole pages (at least one). */
    public static long pageAlign(final long size) {
        return Math.max(PAGE, (size + PAGE - 1) & -PAGE);
    }

    /**
     * Creates a sealed owner-only memory file of {@code size} bytes (rounded up to pages for the
     * file, exactly {@code size} for {@link #segment()}) and maps it shared, read-write.
     *
     * @param name unique name; peers pass it to {@link #attach} to prove identity
     */
    public static SharedMemory create(final String name, final long size) {
        return create(name, size, 0);
    }

    /**
     * As {@link #create(String, long)}, mapped exactly at {@code address} (page aligned) in this
     * process when it is not 0; fails with INVALID_ADDRESS if that range is in use.
     */
    public static SharedMemory create(final String name, final long size, final long address) {
        if (address != 0) {
            FixedMapping.checkRange(address, size);
        }
        if (size < 0 || pageAlign(size) < size) {
            throw new WeftException(Status.INVALID_PARAM, "impossible shared memory size " + size);
        }
        final long fileSize = pageAlign(size);
        final int fd;
        try (Arena a = Arena.ofConfined()) {
            fd = LibC.memfdCreate(a.allocateFrom(name), LibC.MFD_CLOEXEC | LibC.MFD_ALLOW_SEALING);
        }
        if (fd < 0) {
            throw new WeftException(Status.NO_MEMORY, "memfd_create(" + name + "): " + LibC.strerror(-fd));
        }
        try {
            check(LibC.fchmod(fd, 0600), "fchmod", name);
            check(LibC.ftruncate(fd, fileSize), "ftruncate", name);
            check(LibC.fcntl(fd, LibC.F_ADD_SEALS, LibC.F_SEAL_SHRINK | LibC.F_SEAL_GROW | LibC.F_SEAL_SEAL),
                "fcntl(F_ADD_SEALS)", name);
            final long addr;
            if (address == 0) {
                addr = LibC.mmap(0, fileSize, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_SHARED, fd, 0);
                check(addr, "mmap", name);
            } else {
                addr = FixedMapping.placed(LibC.mmap(address, fileSize, LibC.PROT_READ | LibC.PROT_WRITE,
                    LibC.MAP_SHARED | LibC.MAP_FIXED_NOREPLACE, fd, 0), address, fileSize, "memory file " + name);
            }
            return new SharedMemory(name, fd, addr, fileSize, size);
        } catch (final RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    /**
     * Maps the memory file {@code fd} of process {@code pid}, which must be the sealed memory file
     * named {@code name} of at least {@code size} bytes.
     *
     * @throws WeftException INVALID_ADDRESS if the process or file is gone, is not that file,
     *                       or is too small
     */
    public static SharedMemory attach(final int pid, final int fd, final String name, final long size) {
        final String link = "/proc/" + pid + "/fd/" + fd;
        final String target;
        try {
            target = Files.readSymbolicLink(Path.of(link)).toString();
        } catch (final IOException | UnsupportedOperationException e) {
            throw new WeftException(Status.INVALID_ADDRESS, "cannot attach " + link + " (process or file gone): " + e);
        }
        if (!target.equals(MEMFD_PREFIX + name + " (deleted)") && !target.equals(MEMFD_PREFIX + name)) {
            throw new WeftException(Status.INVALID_ADDRESS, link + " is '" + target + "', not memory file " + name);
        }
        final int local;
        try (Arena a = Arena.ofConfined()) {
            local = LibC.open(a.allocateFrom(link), LibC.O_RDWR | LibC.O_CLOEXEC, 0);
        }
        if (local < 0) {
            throw new WeftException(Status.INVALID_ADDRESS, "open(" + link + "): " + LibC.strerror(-local));
        }
        try {
            final long fileSize = LibC.lseek(local, 0, LibC.SEEK_END);
            final int seals = LibC.fcntl(local, LibC.F_GET_SEALS, 0);
            if (seals < 0 || (seals & LibC.F_SEAL_SHRINK) == 0) {
                throw new WeftException(Status.INVALID_ADDRESS, link + " is not a sealed memory file");
            }
            final long mapSize = pageAlign(size);
            if (mapSize < size) { // a size within a page of Long.MAX_VALUE: rounding up wrapped around
                throw new WeftException(Status.INVALID_ADDRESS, link + ": impossible size " + size);
            }
            if (fileSize < mapSize) {
                throw new WeftException(Status.INVALID_ADDRESS, link + " has " + fileSize + " bytes, need " + mapSize);
            }
            final long addr = LibC.mmap(0, mapSize, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_SHARED, local, 0);
            if (addr < 0) {
                throw new WeftException(Status.INVALID_ADDRESS, "mmap(" + link + "): " + LibC.strerror((int) -addr));
            }
            return new SharedMemory(name, -1, addr, mapSize, size);
        } finally {
            LibC.close(local); // the mapping keeps the file alive
        }
    }

    /**
     * True if {@code fd} of process {@code pid} still is the memory file {@code name} (the owner
     * has not closed it). One readlink; setup path.
     */
    public static boolean isLive(final int pid, final int fd, final String name) {
        try {
            final String target = Files.readSymbolicLink(Path.of("/proc/" + pid + "/fd/" + fd)).toString();
            return target.equals(MEMFD_PREFIX + name + " (deleted)") || target.equals(MEMFD_PREFIX + name);
        } catch (final IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static void check(final long r, final String what, final String name) {
        if (r < 0) {
            throw new WeftException(Status.NO_MEMORY, what + " of memory file " + name + ": " + LibC.strerror((int) -r));
        }
    }

    /** The mapped memory ({@code size} bytes as created / attached). */
    public MemorySegment segment() {
        return segment;
    }

    /** Local start address of the mapping. */
    public long address() {
        return address;
    }

    /** Size of the segment in bytes. */
    public long size() {
        return segment.byteSize();
    }

    /** The owner's descriptor of the memory file ({@code -1} for an attachment). */
    public int fd() {
        return fd;
    }

    /** The unique name of the memory file. */
    public String name() {
        return name;
    }

    /** Unmaps (and for the owner closes the file). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LibC.munmap(address, mappedSize);
        if (fd >= 0) {
            LibC.close(fd);
            fd = -1;
        }
    }
}
