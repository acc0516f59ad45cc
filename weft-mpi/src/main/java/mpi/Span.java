package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * A user buffer as memory: the segment holding it and the byte offset of its element 0. Java arrays and heap
 * buffers map to their backing array (a heap buffer's element 0 is its {@code arrayOffset}, so a
 * {@link MPI#slice} may be reached before by negative displacements); a direct buffer maps from its address
 * to its capacity, ignoring its position, as Open MPI's bindings do. A {@code boolean[]} has no memory
 * view: it is copied to bytes, and {@link #finish} copies received bytes back.
 */
final class Span {
    final MemorySegment segment;
    final long origin;
    private final boolean[] booleans;

    private Span(final MemorySegment segment, final long origin, final boolean[] booleans) {
        this.segment = segment;
        this.origin = origin;
        this.booleans = booleans;
    }

    /** A span over a packed segment of the library's own. */
    static Span of(final MemorySegment packed) {
        return new Span(packed, 0, null);
    }

    /** A span over a segment of the library's own, from {@code origin}. */
    static Span at(final MemorySegment seg, final long origin) {
        return new Span(seg, origin, null);
    }

    static Span of(final Object buf) throws MPIException {
        if (buf == null) {
            throw new MPIException(MPI.ERR_BUFFER, "null buffer");
        }
        if (buf instanceof boolean[]) {
            return map(buf); // copied each time: never cached
        }
        return SpanCache.spanOf(buf);
    }

    /** A new span over {@code buf} (for {@link SpanCache}). */
    static Span map(final Object buf) throws MPIException {
        return switch (buf) {
            case byte[] a -> new Span(MemorySegment.ofArray(a), 0, null);
            case char[] a -> new Span(MemorySegment.ofArray(a), 0, null);
            case short[] a -> new Span(MemorySegment.ofArray(a), 0, null);
            case int[] a -> new Span(MemorySegment.ofArray(a), 0, null);
            case long[] a -> new Span(MemorySegment.ofArray(a), 0, null);
            case float[] a -> new Span(MemorySegment.ofArray(a), 0, null);
            case double[] a -> new Span(MemorySegment.ofArray(a), 0, null);
            case boolean[] a -> {
                final byte[] b = new byte[a.length];
                for (int i = 0; i < a.length; i++) {
                    b[i] = (byte) (a[i] ? 1 : 0);
                }
                yield new Span(MemorySegment.ofArray(b), 0, a);
            }
            case Buffer b -> ofBuffer(b);
            default -> throw new MPIException(MPI.ERR_BUFFER, "a buffer must be a Java array of a primitive type or a "
                + "java.nio buffer, got " + buf.getClass().getName());
        };
    }

    private static Span ofBuffer(final Buffer b) throws MPIException {
        if (b.isDirect()) {
            return new Span(MemorySegment.ofBuffer(b.duplicate().clear()), 0, null);
        }
        if (!b.hasArray()) {
            // a read-only heap buffer: readable through a segment, from its start
            return new Span(MemorySegment.ofBuffer(b.duplicate().clear()), 0, null);
        }
        final int scale = scale(b);
        final MemorySegment whole = switch (b.array()) {
            case byte[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new MPIException(MPI.ERR_BUFFER, "unsupported buffer class " + b.getClass().getName());
        };
        return new Span(whole, (long) b.arrayOffset() * scale, null);
    }

    /** Bytes per element of a buffer. */
    static int scale(final Buffer b) {
        return switch (b) {
            case ByteBuffer x -> 1;
            case CharBuffer x -> 2;
            case ShortBuffer x -> 2;
            case IntBuffer x -> 4;
            case FloatBuffer x -> 4;
            case LongBuffer x -> 8;
            case DoubleBuffer x -> 8;
            default -> throw new IllegalArgumentException("unsupported buffer class " + b.getClass().getName());
        };
    }

    /** A direct buffer's span: non-blocking calls keep using the memory after they return. */
    static Span ofDirect(final Buffer buf, final String what) {
        if (buf == null) {
            throw new IllegalArgumentException("The " + what + " must not be null.");
        }
        if (!buf.isDirect()) {
            throw new IllegalArgumentException("The " + what + " must be direct (MPI.newXxxBuffer): a non-blocking "
                + "call keeps using it after it returns, and a heap buffer may move.");
        }
        try {
            return SpanCache.spanOf(buf); // a direct buffer maps as ofBuffer maps it, which cannot fail
        } catch (final MPIException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Checks that {@code count} elements of {@code type} from element 0 lie inside the buffer.
     *
     * @throws MPIException ERR_COUNT for a negative count, ERR_BUFFER when the data would reach outside
     */
    void check(final int count, final Datatype type) throws MPIException {
        if (count < 0) {
            throw new MPIException(MPI.ERR_COUNT, "negative count " + count);
        }
        if (count == 0 || type.size == 0) {
            return;
        }
        final long first = origin + Math.min(type.trueLb, type.trueLb + (count - 1) * type.extent());
        final long end = origin + Math.max(type.trueUb, type.trueUb + (count - 1) * type.extent());
        if (first < 0 || end > segment.byteSize()) {
            throw new MPIException(MPI.ERR_BUFFER, count + " element(s) of " + type + " reach bytes ["
                + (first - origin) + ", " + (end - origin) + ") from the start of a buffer that holds ["
                + (-origin) + ", "
                + (segment.byteSize() - origin) + ")");
        }
    }

    /** The span at byte {@code offset} from this one's element 0 (a displacement into the buffer). */
    Span at(final long offset) {
        return new Span(segment, origin + offset, booleans);
    }

    /** After data was received into a copied buffer: copies it back to the caller's array. */
    void finish() {
        if (booleans != null) {
            for (int i = 0; i < booleans.length; i++) {
                booleans[i] = segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0;
            }
        }
    }
}
