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
    /** Name of the domain (usually the transport name). */
    String name();

    MemoryDomainAttributes attributes();

    /** Allocates {@code length} bytes that peers can access (requires ALLOC). */
    MemoryHandle allocate(long length);

    /** Registers existing memory (requires REG). */
    MemoryHandle register(MemorySegment segment);

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
