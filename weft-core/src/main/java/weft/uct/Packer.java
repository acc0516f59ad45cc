package weft.uct;

import java.lang.foreign.MemorySegment;

/**
 * Writes a bcopy payload straight into a transport buffer (UCT's pack callback). Implementations
 * are reusable objects holding their own source state, so that a send allocates nothing.
 */
@FunctionalInterface
public interface Packer {
    /**
     * Packs into {@code dest} at {@code offset}, at most {@code capacity} bytes.
     *
     * @return the number of bytes written (0..capacity)
     */
    long pack(MemorySegment dest, long offset, long capacity);
}
