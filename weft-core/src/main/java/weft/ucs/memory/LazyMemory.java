package weft.ucs.memory;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Zero-filled private memory whose pages cost nothing until first written: an anonymous mapping, where
 * {@link Arena#allocate} would touch (zero) every page at once. For buffers sized for the worst case that
 * usually see little of it (a tcp connection's receive and send rings, one pair per peer), so that resident
 * memory grows with the traffic, not with the number of peers.
 */
public final class LazyMemory {
    private LazyMemory() {
    }

    /**
     * Maps {@code length} bytes (page aligned), unmapped when {@code arena} closes.
     *
     * @throws WeftException NO_MEMORY if the mapping fails
     */
    @SuppressWarnings("restricted") // a view of the mapping this method made: its size is the mapping's
    public static MemorySegment allocate(final Arena arena, final long length) {
        final long addr = LibC.mmap(0, length, LibC.PROT_READ | LibC.PROT_WRITE,
            LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS | LibC.MAP_NORESERVE, -1, 0);
        if (addr < 0 && addr > -4096) {
            throw new WeftException(Status.NO_MEMORY, "cannot map " + length + " bytes: errno " + -addr);
        }
        return MemorySegment.ofAddress(addr).reinterpret(length, arena, s -> LibC.munmap(addr, length));
    }
}
