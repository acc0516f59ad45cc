package weft.uct;

import java.lang.foreign.MemorySegment;

/**
 * An unpacked remote key: permission and means to access a peer's registered region
 * {@code [base, base + length)}. Obtained from {@link MemoryDomain#unpackRkey}; release with
 * {@link #close()}.
 */
public interface RemoteKey extends AutoCloseable {
    /** Remote start address of the region this key grants. */
    long base();

    /** Length in bytes of the region. */
    long length();

    /** True if {@code [address, address + len)} lies inside the region. */
    default boolean contains(final long address, final long len) {
        return len >= 0 && address >= base() && address - base() <= length() - len;
    }

    /**
     * A local view of remote memory {@code [address, address + len)}, where the transport can map
     * it (UCT's rkey_ptr; used for shmem_ptr). Throws {@link weft.ucs.WeftException} with
     * UNSUPPORTED when it cannot, or OUT_OF_RANGE when the range is outside the region.
     */
    MemorySegment ptr(long address, long len);

    /** Releases local resources (mappings) of the key. Idempotent. */
    @Override
    void close();
}
