package mpi;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * A complex number of {@code float}s in a buffer (the element of {@link MPI#FLOAT_COMPLEX}): real part then
 * imaginary part; element {@code index} starts at float {@code 2 * index}.
 */
public final class FloatComplex {
    private final int offset;
    private final FloatBuffer buffer;

    private FloatComplex(final FloatBuffer buffer, final int index) {
        this.buffer = buffer;
        this.offset = index * 2;
    }

    /** Element 0 of {@code buffer}. */
    public static FloatComplex get(final FloatBuffer buffer) {
        return new FloatComplex(buffer, 0);
    }

    /** Element {@code index} of {@code buffer}. */
    public static FloatComplex get(final FloatBuffer buffer, final int index) {
        return new FloatComplex(buffer, index);
    }

    /** Element 0 of {@code array}. */
    public static FloatComplex get(final float[] array) {
        return new FloatComplex(FloatBuffer.wrap(array), 0);
    }

    /** Element {@code index} of {@code array}. */
    public static FloatComplex get(final float[] array, final int index) {
        return new FloatComplex(FloatBuffer.wrap(array), index);
    }

    /** Element 0 of a byte buffer (in its byte order). */
    public static FloatComplex get(final ByteBuffer buffer) {
        return new FloatComplex(buffer.asFloatBuffer(), 0);
    }

    /** Element {@code index} of a byte buffer (in its byte order). */
    public static FloatComplex get(final ByteBuffer buffer, final int index) {
        return new FloatComplex(buffer.asFloatBuffer(), index);
    }

    /** The real part. */
    public float getReal() {
        return buffer.get(offset);
    }

    /** The imaginary part. */
    public float getImag() {
        return buffer.get(offset + 1);
    }

    /** Sets the real part. */
    public void putReal(final float real) {
        buffer.put(offset, real);
    }

    /** Sets the imaginary part. */
    public void putImag(final float imag) {
        buffer.put(offset + 1, imag);
    }

    /** The buffer from this element on. */
    public FloatBuffer getBuffer() {
        return offset == 0 ? buffer : MPI.slice(buffer, offset);
    }
}
