package weft.uct;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Atomic read-modify-write on memory segments with VarHandles: coherent with CPU atomics of any
 * process mapping the same memory. Shared by the transports that execute atomics in memory
 * (self, shm, and the target side of tcp). Callers check bounds; this checks alignment.
 */
public final class MemoryAtomics {
    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle I32 = ValueLayout.JAVA_INT.varHandle();

    private MemoryAtomics() {
    }

    /** True if {@code address} is aligned for a {@code size}-byte atomic. */
    public static boolean aligned(final long address, final int size) {
        return (address & (size - 1)) == 0;
    }

    /** Applies {@code op} atomically to the 64-bit word at {@code offset}; returns the old value. */
    public static long fetch64(final AtomicOp op, final MemorySegment seg, final long offset, final long value) {
        return switch (op) {
            case ADD -> (long) I64.getAndAdd(seg, offset, value);
            case AND -> (long) I64.getAndBitwiseAnd(seg, offset, value);
            case OR -> (long) I64.getAndBitwiseOr(seg, offset, value);
            case XOR -> (long) I64.getAndBitwiseXor(seg, offset, value);
            case SWAP -> (long) I64.getAndSet(seg, offset, value);
            case CSWAP -> throw new IllegalArgumentException("use cswap64");
        };
    }

    /** Compare-and-swap on the 64-bit word at {@code offset}; returns the old value. */
    public static long cswap64(final MemorySegment seg, final long offset, final long compare, final long swap) {
        return (long) I64.compareAndExchange(seg, offset, compare, swap);
    }

    public static int fetch32(final AtomicOp op, final MemorySegment seg, final long offset, final int value) {
        return switch (op) {
            case ADD -> (int) I32.getAndAdd(seg, offset, value);
            case AND -> (int) I32.getAndBitwiseAnd(seg, offset, value);
            case OR -> (int) I32.getAndBitwiseOr(seg, offset, value);
            case XOR -> (int) I32.getAndBitwiseXor(seg, offset, value);
            case SWAP -> (int) I32.getAndSet(seg, offset, value);
            case CSWAP -> throw new IllegalArgumentException("use cswap32");
        };
    }

    public static int cswap32(final MemorySegment seg, final long offset, final int compare, final int swap) {
        return (int) I32.compareAndExchange(seg, offset, compare, swap);
    }

    /** Acquire load of a 64-bit word (for tests and readers spinning on remote updates). */
    public static long getAcquire64(final MemorySegment seg, final long offset) {
        return (long) I64.getAcquire(seg, offset);
    }

    /** Release store of a 64-bit word. */
    public static void setRelease64(final MemorySegment seg, final long offset, final long value) {
        I64.setRelease(seg, offset, value);
    }

    /**
     * Checks a remote access of {@code len} bytes at {@code address} against {@code rkey}.
     *
     * @return OK, OUT_OF_RANGE, or INVALID_PARAM for a negative length
     */
    public static Status checkRange(final RemoteKey rkey, final long address, final long len) {
        if (len < 0) {
            return Status.INVALID_PARAM;
        }
        return rkey.contains(address, len) ? Status.OK : Status.OUT_OF_RANGE;
    }
}
