package weft.uct;

import weft.ucs.memory.MemoryCopy;
import java.lang.foreign.MemorySegment;

/**
 * A reusable scatter/gather list of (segment, offset, length) entries for zcopy operations.
 * Filling and clearing it allocates nothing once its capacity is reached.
 */
public final class IoVector {
    private MemorySegment[] segments;
    private long[] offsets;
    private long[] lengths;
    private int count;

    public IoVector(final int capacity) {
        segments = new MemorySegment[capacity];
        offsets = new long[capacity];
        lengths = new long[capacity];
    }

    /** An iov with one entry. Allocates: setup and tests only. */
    public static IoVector of(final MemorySegment seg, final long offset, final long length) {
        return new IoVector(1).add(seg, offset, length);
    }

    public IoVector clear() {
        // not a loop: C2 hoisted the loop's range check into a predicate that trapped once after a short
        // warm-up, throwing away its compiled caller (Rma.immediate); Arrays.fill checks its range itself
        java.util.Arrays.fill(segments, 0, count, null);
        count = 0;
        return this;
    }

    /** Appends an entry; grows the arrays if full (allocation only on growth). */
    public IoVector add(final MemorySegment seg, final long offset, final long length) {
        if (offset < 0 || length < 0 || length > seg.byteSize() - offset) { // no overflow of offset + length
            throw new IndexOutOfBoundsException("iov entry [" + offset + ", +" + length + ") outside segment of "
                + seg.byteSize() + " bytes");
        }
        if (count == segments.length) {
            final int n = Math.max(4, count * 2);
            segments = java.util.Arrays.copyOf(segments, n);
            offsets = java.util.Arrays.copyOf(offsets, n);
            lengths = java.util.Arrays.copyOf(lengths, n);
        }
        segments[count] = seg;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
        return this;
    }

    public int count() {
        return count;
    }

    public MemorySegment segment(final int i) {
        return segments[i];
    }

    public long offset(final int i) {
        return offsets[i];
    }

    public long length(final int i) {
        return lengths[i];
    }

    /** True if every entry is native (off-heap) memory, which has an address the kernel can use. */
    public boolean isNative() {
        for (int i = 0; i < count; i++) {
            if (!segments[i].isNative()) {
                return false;
            }
        }
        return true;
    }

    public long totalLength() {
        long t = 0;
        for (int i = 0; i < count; i++) {
            t += lengths[i];
        }
        return t;
    }

    /** Copies the whole list, in order, to {@code dst} at {@code dstOffset}; returns the bytes copied. */
    public long gather(final MemorySegment dst, final long dstOffset) {
        long pos = dstOffset;
        for (int i = 0; i < count; i++) {
            MemoryCopy.copy(segments[i], offsets[i], dst, pos, lengths[i]);
            pos += lengths[i];
        }
        return pos - dstOffset;
    }

    /** Copies {@code length} bytes from {@code src} at {@code srcOffset} into the list, in order. */
    public long scatter(final MemorySegment src, final long srcOffset, final long length) {
        long done = 0;
        for (int i = 0; i < count && done < length; i++) {
            final long n = Math.min(lengths[i], length - done);
            MemoryCopy.copy(src, srcOffset + done, segments[i], offsets[i], n);
            done += n;
        }
        return done;
    }
}
