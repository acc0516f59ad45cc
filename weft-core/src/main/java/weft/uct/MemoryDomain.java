package weft.uct;

import java.lang.foreign.MemorySegment;

/**
 * Allocates and registers memory for remote access and handles remote keys (UCT's md). One per
 * transport per process is typical; thread safe unless a transport says otherwise.
 *
 * <p>Remote keys are bytes: {@link #packRkey} on the owner, sent to the peer by any means,
 * {@link #unpackRkey} there. The packed format is versioned; garbage, truncated or foreign bytes
 * give {@link weft.ucs.WeftException} with INVALID_RKEY, never a crash.
 */
public interface MemoryDomain extends AutoCloseable {
    /**
     * Registration flag: the caller registers this memory identically in every process and wants
     * keys that are equal across processes where the domain allows it ({@link
     * MemoryDomainAttributes#SYMMETRIC_RKEY}); other domains ignore it.
     */
    int REG_SYMMETRIC = 1;

    /** Name of the domain (usually the transport name). */
    String name();

    MemoryDomainAttributes attributes();

    /** Allocates {@code length} bytes that peers can access (requires ALLOC). */
    MemoryHandle allocate(long length);

    /** Registers existing memory (requires REG). */
    MemoryHandle register(MemorySegment segment);

    /**
     * Registers existing memory with {@link #REG_SYMMETRIC} or 0. Registering memory that is already
     * registered (or lies inside a registered region) with the same flags is a cache lookup in domains
     * that register; every call still needs its own {@link #deregister}.
     */
    default MemoryHandle register(MemorySegment segment, int flags) {
        return register(segment);
    }

    /**
     * Allocates {@code length} bytes mapped exactly at {@code address} (requires {@link
     * MemoryDomainAttributes#FIXED}); fails with INVALID_ADDRESS if any of that range is mapped already.
     */
    default MemoryHandle allocateFixed(long address, long length) {
        throw new weft.ucs.WeftException(weft.ucs.Status.UNSUPPORTED, name() + ": cannot allocate at a fixed address");
    }

    /** Deregisters / frees; the handle must not be used afterwards. Idempotent. */
    void deregister(MemoryHandle handle);

    /** Packs a remote key for {@code handle}. */
    byte[] packRkey(MemoryHandle handle);

    /** Unpacks a remote key packed by a peer's {@link #packRkey}. */
    RemoteKey unpackRkey(byte[] packed);

    /**
     * Total order on unpacked keys (-1, 0, +1); 0 means interchangeable, so a caller may keep one
     * copy for many peers. Default compares the packed identity bytes of the keys.
     */
    int compareRkeys(RemoteKey a, RemoteKey b);

    /** Releases the domain; handles still registered are released too. */
    @Override
    void close();
}
