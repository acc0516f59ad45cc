package weft.uct;

import java.lang.foreign.MemorySegment;

/**
 * Memory allocated or registered by a {@link MemoryDomain}. The segment is valid until
 * {@link MemoryDomain#deregister} (or {@link MemoryDomain#free}) is called.
 */
public interface MemoryHandle {
    /** The local memory. */
    MemorySegment segment();

    /** Start address of the memory (what a peer passes as the remote address). */
    default long address() {
        return segment().address();
    }

    default long length() {
        return segment().byteSize();
    }

    /** The domain that owns this handle. */
    MemoryDomain domain();
}
