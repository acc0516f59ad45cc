package mpi;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;

/**
 * A complex number of {@code double}s in a buffer (the element of {@link MPI#DOUBLE_COMPLEX}): real part then
 * imaginary part; element {@code index} starts at double {@code 2 * index}.
 */
public final class DoubleComplex {
    private final int offset;
    private final DoubleBuffer buffer;

    private DoubleComplex(final DoubleBuffer buffer, final int index) {
        this.buffer = buffer;
        this.offset = index * 2;
    }

    /** Element 0 of {@code buffer}. */
    public static DoubleComplex get(final DoubleBuffer buffer) {
        return new DoubleComplex(buffer, 0);
    }

    /** Element {@code index} of {@code buffer}. */
    public static DoubleComplex get(final DoubleBuffer buffer, final int index) {
        return new DoubleComplex(buffer, index);
    }

    /** Element 0 of {@code array}. */
    public static DoubleComplex get(final double[] array) {
        return new DoubleComplex(DoubleBuffer.wrap(array), 0);
    }

    /** Element {@code index} of {@code array}. */
    public static DoubleComplex get(final double[] array, final int index) {
        return new DoubleComplex(DoubleBuffer.wrap(array), index);
    }

    /** Element 0 of a byte buffer (in its byte order). */
    public static DoubleComplex get(final ByteBuffer buffer) {
        return new DoubleComplex(buffer.asDoubleBuffer(), 0);
    }

    /** Element {@code index} of a byte buffer (in its byte order). */
    public static DoubleComplex get(final ByteBuffer buffer, final int index) {
        return new DoubleComplex(buffer.asDoubleBuffer(), index);
    }

    /** The real part. */
    public double getReal() {
        return buffer.get(offset);
    }

    /** The imaginary part. */
    public double getImag() {
        return buffer.get(offset + 1);
    }

    /** Sets the real part. */
    public void putReal(final double real) {
        buffer.put(offset, real);
    }

    /** Sets the imaginary part. */
    public void putImag(final double imag) {
        buffer.put(offset + 1, imag);
    }

    /** The buffer from this element on. */
    public DoubleBuffer getBuffer() {
        return offset == 0 ? buffer : MPI.slice(buffer, offset);
    }
}
