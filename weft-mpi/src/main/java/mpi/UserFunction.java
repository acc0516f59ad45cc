package mpi;

import java.nio.ByteBuffer;

/**
 * A user-defined reduction ({@code MPI_User_function}): combines {@code count} elements of {@code in} into
 * {@code inOut} ({@code inOut[i] = in[i] op inOut[i]}). Override one of the two forms: the
 * {@code ByteBuffer} form gets the elements' bytes in native order; by default it copies them into arrays of
 * the datatype's base type and calls the array form, whose arrays are then copied back.
 *
 * <pre>{@code
 * Op max = new Op(new UserFunction() {
 *     public void call(Object in, Object inOut, int count, Datatype type) {
 *         int[] a = (int[]) in, b = (int[]) inOut;
 *         for (int i = 0; i < count; i++) b[i] = Math.max(a[i], b[i]);
 *     }
 * }, true);
 * }</pre>
 */
public abstract class UserFunction {
    /**
     * Combines arrays of the datatype's base type ({@code int[]} for {@link MPI#INT}, {@code byte[]} for a
     * struct).
     */
    public void call(final Object inVec, final Object inOutVec, final int count, final Datatype datatype)
        throws MPIException {
        throw new UnsupportedOperationException("this UserFunction overrides neither call method");
    }

    /** Combines the elements' bytes, in native order; by default through the array form. */
    public void call(final ByteBuffer in, final ByteBuffer inOut, final int count, final Datatype datatype)
        throws MPIException {
        final int n = Math.toIntExact(in.remaining() / datatype.baseSize);
        final Object a = ArrayCopies.read(in.duplicate().order(in.order()), datatype.baseType, n);
        final Object b = ArrayCopies.read(inOut.duplicate().order(inOut.order()), datatype.baseType, n);
        call(a, b, count, datatype);
        ArrayCopies.write(b, inOut.duplicate().order(inOut.order()), datatype.baseType);
    }
}
