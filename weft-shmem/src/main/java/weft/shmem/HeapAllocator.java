package weft.shmem;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The symmetric heap's allocator, on offsets only: an address-ordered free list (first fit, split on
 * allocation, coalesced with both neighbours on free). It is deterministic, so PEs that make the same
 * calls in the same order get the same offsets, which is what makes the heap symmetric.
 *
 * <pre>{@code
 * HeapAllocator a = new HeapAllocator(4096, 1 << 20);
 * long p = a.allocate(100, 0);     // an offset >= 4096, a multiple of MIN_ALIGN, or -1 when full
 * a.free(p);
 * }</pre>
 */
final class HeapAllocator {
    /** Every block starts on this boundary and has a multiple of it as its length (room for 16-byte atomics). */
    static final long MIN_ALIGN = 16;

    private final long start;
    private final long end;
    /** Free blocks: offset → length, never two adjacent ones. */
    private final TreeMap<Long, Long> free = new TreeMap<>();
    /** Live blocks: offset → length. */
    private final Map<Long, Long> used = new HashMap<>();
    private long usedBytes;

    /** Manages {@code [start, end)}; both are rounded inwards to {@link #MIN_ALIGN}. */
    HeapAllocator(final long start, final long end) {
        this.start = roundUp(start, MIN_ALIGN);
        this.end = end & -MIN_ALIGN;
        if (this.end > this.start) {
            free.put(this.start, this.end - this.start);
        }
    }

    /**
     * Reserves {@code size} bytes aligned to {@code alignment} (0 = {@link #MIN_ALIGN}).
     *
     * @return the offset, or -1 when no free block can hold it
     * @throws IllegalArgumentException for a negative size or an alignment that is not a power of two
     */
    long allocate(final long size, final long alignment) {
        if (size < 0) {
            throw new IllegalArgumentException("negative size " + size);
        }
        if (alignment < 0 || (alignment & (alignment - 1)) != 0) {
            throw new IllegalArgumentException("alignment " + alignment + " is not a power of two");
        }
        final long align = Math.max(alignment, MIN_ALIGN);
        if (size > end - start) {
            return -1;
        }
        final long len = roundUp(Math.max(size, 1), MIN_ALIGN);
        for (final Map.Entry<Long, Long> e : free.entrySet()) {
            final long blockStart = e.getKey();
            final long blockEnd = blockStart + e.getValue();
            final long at = roundUp(blockStart, align);
            if (at + len <= blockEnd) {
                free.remove(blockStart);
                if (at > blockStart) {
                    free.put(blockStart, at - blockStart);
                }
                if (at + len < blockEnd) {
                    free.put(at + len, blockEnd - at - len);
                }
                used.put(at, len);
                usedBytes += len;
                return at;
            }
        }
        return -1;
    }

    /**
     * Grows or shrinks the block at {@code offset} in place when the space after it allows.
     *
     * @return true if the block now holds {@code size} bytes; false if it must move (nothing changed)
     */
    boolean resizeInPlace(final long offset, final long size) {
        final long len = lengthOf(offset);
        final long want = roundUp(Math.max(size, 1), MIN_ALIGN);
        if (want == len) {
            return true;
        }
        if (want < len) {
            used.put(offset, want);
            usedBytes -= len - want;
            release(offset + want, len - want);
            return true;
        }
        final Long next = free.get(offset + len);
        if (next == null || len + next < want) {
            return false;
        }
        free.remove(offset + len);
        if (len + next > want) {
            free.put(offset + want, len + next - want);
        }
        used.put(offset, want);
        usedBytes += want - len;
        return true;
    }

    /**
     * Returns the block at {@code offset} to the free list.
     *
     * @throws IllegalArgumentException if no live block starts there (a double free or a foreign offset)
     */
    void free(final long offset) {
        final long len = lengthOf(offset);
        used.remove(offset);
        usedBytes -= len;
        release(offset, len);
    }

    /**
     * The length of the live block at {@code offset}.
     *
     * @throws IllegalArgumentException if no live block starts there
     */
    long lengthOf(final long offset) {
        final Long len = used.get(offset);
        if (len == null) {
            throw new IllegalArgumentException("offset " + offset + " is not the start of a live symmetric allocation"
                + " (freed already, or not returned by malloc/calloc/align/realloc)");
        }
        return len;
    }

    private void release(final long offset, final long len) {
        long s = offset;
        long l = len;
        final Map.Entry<Long, Long> before = free.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == offset) {
            s = before.getKey();
            l += before.getValue();
        }
        final Long after = free.remove(offset + len);
        if (after != null) {
            l += after;
        }
        free.put(s, l);
    }

    /** Bytes in live blocks (rounded up to {@link #MIN_ALIGN}). */
    long usedBytes() {
        return usedBytes;
    }

    /** The largest block {@link #allocate} could return now. */
    long largestFree() {
        long max = 0;
        for (final long l : free.values()) {
            max = Math.max(max, l);
        }
        return max;
    }

    /** Number of free blocks (1 when nothing is fragmented). */
    int freeBlocks() {
        return free.size();
    }

    /** Number of live blocks. */
    int liveBlocks() {
        return used.size();
    }

    static long roundUp(final long v, final long align) {
        return (v + align - 1) & -align;
    }
}
