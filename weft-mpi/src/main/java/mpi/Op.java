package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * A reduction operation (MPI_Op): one of the predefined ones ({@link MPI#SUM}, {@link MPI#MAX}, ...,
 * {@link MPI#MINLOC}) or a user function, commutative or not. A non-commutative operation is applied in rank
 * order: the result is {@code x0 op x1 op ... op x(n-1)}.
 */
public final class Op implements Freeable {
    final int code;
    private final UserFunction function;
    private final boolean commute;
    private boolean freed;

    Op(final int code) {
        this.code = code;
        this.function = null;
        this.commute = true;
    }

    /** A user-defined operation; {@code commute} says whether it may be applied in any order. */
    public Op(final UserFunction function, final boolean commute) {
        this.code = 0;
        this.function = function;
        this.commute = commute;
    }

    /** Whether the operation is commutative. */
    public boolean isCommutative() {
        return commute;
    }

    /** Releases a user operation; a predefined one cannot be freed. */
    public void free() throws MPIException {
        if (function == null) {
            throw new MPIException(MPI.ERR_OP, "a predefined operation cannot be freed");
        }
        freed = true;
    }

    /** True once freed. */
    public boolean isNull() {
        return freed;
    }

    /** Checks that the operation can reduce {@code type}. */
    void check(final Datatype type) throws MPIException {
        if (freed) {
            throw new MPIException(MPI.ERR_OP, "the operation was freed");
        }
        if (function == null && !Reductions.defined(code, type.element)) {
            throw new MPIException(MPI.ERR_OP, "the predefined operation " + MPI.opName(code) + " is not defined on "
                + type);
        }
    }

    /**
     * {@code inout = in op inout} on {@code count} packed elements of {@code type} ({@code count * size} bytes
     * each side).
     */
    void apply(final MemorySegment in, final long inOff, final MemorySegment inout, final long ioOff,
               final int count, final Datatype type) throws MPIException {
        if (count == 0) {
            return;
        }
        if (function == null) {
            final int es = Reductions.elementSize(type.element);
            Reductions.apply(code, type.element, in, inOff, inout, ioOff, count * type.size / es);
            return;
        }
        final long bytes = count * type.size;
        try {
            function.call(in.asSlice(inOff, bytes).asByteBuffer().order(ByteOrder.nativeOrder()),
                inout.asSlice(ioOff, bytes).asByteBuffer().order(ByteOrder.nativeOrder()), count, type);
        } catch (final RuntimeException e) {
            throw new MPIException(MPI.ERR_OP, "the user reduction function failed: " + e, e);
        }
    }
}
