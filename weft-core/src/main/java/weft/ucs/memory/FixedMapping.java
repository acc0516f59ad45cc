package weft.ucs.memory;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.lang.foreign.MemorySegment;

/**
 * Private anonymous memory mapped exactly at a chosen virtual address ({@code MAP_FIXED_NOREPLACE}),
 * so that processes that map the same range all see their memory at the same address. Never
 * replaces an existing mapping: a range that is (partly) taken is an INVALID_ADDRESS error. Setup
 * path only.
 */
public final class FixedMapping implements AutoCloseable {
    private final long address;
    private final long mappedSize;
    private final MemorySegment segment;
    private boolean closed;

    @SuppressWarnings("restricted") // a view of the mapping this object made: its size is the mapping's
    private FixedMapping(final long address, final long mappedSize, final long size) {
        this.address = address;
        this.mappedSize = mappedSize;
        this.segment = MemorySegment.ofAddress(address).reinterpret(size);
    }

    /**
     * Maps {@code size} bytes (whole pages) of zeroed read-write memory at {@code address}.
     *
     * @throws WeftException INVALID_PARAM for an unaligned or impossible range, INVALID_ADDRESS if
     *                       the range is taken, NO_MEMORY if the kernel refuses
     */
    public static FixedMapping map(final long address, final long size) {
        final long mapSize = SharedMemory.pageAlign(size);
        checkRange(address, size);
        final long r = LibC.mmap(address, mapSize, LibC.PROT_READ | LibC.PROT_WRITE,
            LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS | LibC.MAP_NORESERVE | LibC.MAP_FIXED_NOREPLACE, -1, 0);
        return new FixedMapping(placed(r, address, mapSize, "anonymous memory"), mapSize, size);
    }

    /** Fails unless {@code [address, +size)} is a page-aligned range of the user address space. */
    static void checkRange(final long address, final long size) {
        if (size < 0 || address <= 0 || (address & (SharedMemory.PAGE - 1)) != 0
            || address + SharedMemory.pageAlign(size) < address || address + SharedMemory.pageAlign(size) > 1L << 47) {
            throw new WeftException(Status.INVALID_PARAM, "fixed mapping [0x" + Long.toHexString(address) + ", +" + size
                + "): the address must be page aligned and the range inside the user address space");
        }
    }

    /**
     * Checks the result of an mmap asked for at {@code want}: returns it, or unmaps a mapping the
     * kernel placed elsewhere (kernels before 4.17 treat the flag as a hint) and throws.
     */
    static long placed(final long r, final long want, final long mapSize, final String what) {
        if (r == -LibC.EEXIST) {
            throw new WeftException(Status.INVALID_ADDRESS, "cannot map " + what + " at 0x" + Long.toHexString(want)
                + " (+" + mapSize + "): the address range is already in use");
        }
        if (r < 0) {
            throw new WeftException(Status.NO_MEMORY, "mmap of " + what + " at 0x" + Long.toHexString(want) + ": "
                + LibC.strerror((int) -r));
        }
        if (r != want) {
            LibC.munmap(r, mapSize);
            throw new WeftException(Status.INVALID_ADDRESS, "cannot map " + what + " at 0x" + Long.toHexString(want)
                + ": the kernel placed it at 0x" + Long.toHexString(r) + " (range in use, or no MAP_FIXED_NOREPLACE)");
        }
        return r;
    }

    /** The mapped memory ({@code size} bytes as asked). */
    public MemorySegment segment() {
        return segment;
    }

    /** The start address (the one asked for). */
    public long address() {
        return address;
    }

    /** Unmaps. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            LibC.munmap(address, mappedSize);
        }
    }
}
