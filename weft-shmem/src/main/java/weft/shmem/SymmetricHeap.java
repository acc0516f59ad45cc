package weft.shmem;

import weft.ucp.MemoryMap;

import java.lang.foreign.MemorySegment;

/**
 * The symmetric heap of one PE: one {@link MemoryMap} mapped with {@code FIXED | SYMMETRIC_RKEY}, so that
 * every PE's heap starts at the same address and a symmetric address is valid on every PE as it is (no
 * translation: remote address = local address). The first {@link #serviceBytes()} bytes are the layer's
 * own (team synchronization words and scratch); {@link HeapAllocator} manages the rest.
 */
final class SymmetricHeap implements AutoCloseable {
    private final MemoryMap map;
    private final MemorySegment memory;
    private final long base;
    private final long size;
    private final long serviceBytes;
    private final HeapAllocator allocator;
    private final int segmentIndex;

    SymmetricHeap(final UcpPeers peers, final long size, final long serviceBytes) {
        this.map = peers.context().memMap(size, MemoryMap.FIXED | MemoryMap.SYMMETRIC_RKEY);
        try {
            this.memory = map.segment();
            this.base = map.address();
            this.size = size;
            this.serviceBytes = serviceBytes;
            this.allocator = new HeapAllocator(serviceBytes, size);
            this.segmentIndex = peers.addSegment(base, size, map.packRkey());
        } catch (final RuntimeException e) {
            map.close();
            throw e;
        }
    }

    /** The whole heap of this PE. */
    MemorySegment memory() {
        return memory;
    }

    /** The heap's address on every PE. */
    long base() {
        return base;
    }

    long size() {
        return size;
    }

    long serviceBytes() {
        return serviceBytes;
    }

    int segmentIndex() {
        return segmentIndex;
    }

    HeapAllocator allocator() {
        return allocator;
    }

    /** The slice of this PE's heap at {@code offset}. */
    MemorySegment slice(final long offset, final long length) {
        return memory.asSlice(offset, length);
    }

    /**
     * The heap offset of {@code [segment, +bytes)}.
     *
     * @throws IllegalArgumentException when those bytes are not all inside the symmetric heap
     */
    long offsetOf(final MemorySegment segment, final long bytes, final String what) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException(what + " must be symmetric (a slice of the symmetric heap from "
                + "malloc/calloc/align), not Java heap memory");
        }
        if (bytes > segment.byteSize()) {
            throw new IllegalArgumentException(what + " has " + segment.byteSize() + " bytes, the operation needs "
                + bytes);
        }
        final long off = segment.address() - base;
        if (off < 0 || bytes < 0 || off > size - bytes) {
            throw new IllegalArgumentException(what + " [0x" + Long.toHexString(segment.address()) + ", +" + bytes
                + ") is not inside the symmetric heap [0x" + Long.toHexString(base) + ", 0x"
                + Long.toHexString(base + size) + "): pass a slice of memory from malloc/calloc/align");
        }
        return off;
    }

    @Override
    public void close() {
        map.close();
    }
}
