package mpi;

import weft.ucp.GenericDatatype;

import java.lang.foreign.MemorySegment;

/**
 * Walks {@code count} elements of a non-contiguous datatype in a buffer, in message order: packs them into a
 * message and unpacks a message into them, piece by piece as ucp hands the pieces (the state of
 * {@link #PACKER}). Pieces arrive in increasing order, so the cursor only moves forward; a piece that does
 * not start where the last ended seeks from the beginning.
 */
final class TypeCursor {
    /** The ucp datatype whose per-message state is a {@code TypeCursor}. */
    static final GenericDatatype PACKER = new GenericDatatype() {
        @Override
        public void pack(final Object state, final long position, final MemorySegment dst, final long dstOffset,
                         final long length) {
            ((TypeCursor) state).copy(position, dst, dstOffset, length, true);
        }

        @Override
        public void unpack(final Object state, final long position, final MemorySegment src, final long srcOffset,
                           final long length) {
            ((TypeCursor) state).copy(position, src, srcOffset, length, false);
        }
    };

    private final Span span;
    private final Datatype type;
    private final long total;
    private long position;
    private long element;
    private int block;
    private long inBlock;

    TypeCursor(final Span span, final int count, final Datatype type) {
        this.span = span;
        this.type = type;
        this.total = count * type.size;
    }

    /** Bytes of the message. */
    long length() {
        return total;
    }

    /** Packs every element into {@code dst[offset, offset + length())}. */
    static void pack(final Span span, final int count, final Datatype type, final MemorySegment dst,
                     final long offset) {
        if (type.contiguous) {
            // one copy, not one per element (a primitive type is a block of one element)
            MemorySegment.copy(span.segment, span.origin, dst, offset, count * type.size);
            return;
        }
        new TypeCursor(span, count, type).copy(0, dst, offset, count * type.size, true);
    }

    /** Unpacks {@code src[offset, offset + count * size)} into the elements. */
    static void unpack(final MemorySegment src, final long offset, final Span span, final int count,
                       final Datatype type) {
        if (type.contiguous) {
            MemorySegment.copy(src, offset, span.segment, span.origin, count * type.size);
            return;
        }
        new TypeCursor(span, count, type).copy(0, src, offset, count * type.size, false);
    }

    /** Unpacks only the first {@code length} bytes of {@code count} elements (a short read ends mid-way). */
    static void unpackPrefix(final MemorySegment src, final Span span, final int count, final Datatype type,
                             final long length) {
        if (type.contiguous) {
            MemorySegment.copy(src, 0, span.segment, span.origin, length);
            return;
        }
        new TypeCursor(span, count, type).copy(0, src, 0, length, false);
    }

    private void copy(final long pos, final MemorySegment msg, final long msgOffset, final long length,
                      final boolean pack) {
        if (pos != position) {
            seek(pos);
        }
        final long[] offsets = type.offsets;
        final long[] lengths = type.lengths;
        final long extent = type.extent();
        long done = 0;
        while (done < length) {
            final long n = Math.min(lengths[block] - inBlock, length - done);
            final long at = span.origin + element * extent + offsets[block] + inBlock;
            if (pack) {
                MemorySegment.copy(span.segment, at, msg, msgOffset + done, n);
            } else {
                MemorySegment.copy(msg, msgOffset + done, span.segment, at, n);
            }
            done += n;
            inBlock += n;
            if (inBlock == lengths[block]) {
                inBlock = 0;
                if (++block == offsets.length) {
                    block = 0;
                    element++;
                }
            }
        }
        position = pos + length;
    }

    private void seek(final long pos) {
        if (pos > total) {
            throw new IllegalArgumentException("message position " + pos + " beyond " + total);
        }
        element = type.size == 0 ? 0 : pos / type.size;
        long rem = type.size == 0 ? 0 : pos % type.size;
        block = 0;
        while (block < type.lengths.length && rem >= type.lengths[block]) {
            rem -= type.lengths[block];
            block++;
        }
        if (block == type.lengths.length) {
            block = 0;
        }
        inBlock = rem;
        position = pos;
    }
}
