package weft.shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The arithmetic of the reductions: element kinds (C types by size and signedness) and operators. */
final class Reduction {
    /** An element type as the reductions see it. */
    enum Kind {
        S8(1, false, false), U8(1, true, false), S16(2, false, false), U16(2, true, false), S32(4, false, false),
        U32(4, true, false), S64(8, false, false), U64(8, true, false), F32(4, false, true), F64(8, false, true);

        final int size;
        final boolean unsigned;
        final boolean floating;

        Kind(final int size, final boolean unsigned, final boolean floating) {
            this.size = size;
            this.unsigned = unsigned;
            this.floating = floating;
        }
    }

    /** A reduction operator. */
    enum Op { AND, OR, XOR, MAX, MIN, SUM, PROD }

    private Reduction() {
    }

    /** Element {@code i} of {@code m} from byte {@code base}, widened to a long (sign or zero extended), or a double's bits. */
    static long load(final Kind k, final MemorySegment m, final long base, final long i) {
        final long off = base + i * k.size;
        return switch (k) {
            case S8 -> m.get(ValueLayout.JAVA_BYTE, off);
            case U8 -> m.get(ValueLayout.JAVA_BYTE, off) & 0xFFL;
            case S16 -> m.get(ValueLayout.JAVA_SHORT_UNALIGNED, off);
            case U16 -> m.get(ValueLayout.JAVA_SHORT_UNALIGNED, off) & 0xFFFFL;
            case S32 -> m.get(ValueLayout.JAVA_INT_UNALIGNED, off);
            case U32 -> m.get(ValueLayout.JAVA_INT_UNALIGNED, off) & 0xFFFF_FFFFL;
            case S64, U64 -> m.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            case F32 -> Double.doubleToRawLongBits(m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off));
            case F64 -> Double.doubleToRawLongBits(m.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, off));
        };
    }

    /** Stores {@code v} (as {@link #load} returns it) as element {@code i} of {@code m} from byte {@code base}. */
    static void store(final Kind k, final MemorySegment m, final long base, final long i, final long v) {
        final long off = base + i * k.size;
        switch (k) {
            case S8, U8 -> m.set(ValueLayout.JAVA_BYTE, off, (byte) v);
            case S16, U16 -> m.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, (short) v);
            case S32, U32 -> m.set(ValueLayout.JAVA_INT_UNALIGNED, off, (int) v);
            case S64, U64 -> m.set(ValueLayout.JAVA_LONG_UNALIGNED, off, v);
            case F32 -> m.set(ValueLayout.JAVA_FLOAT_UNALIGNED, off, (float) Double.longBitsToDouble(v));
            case F64 -> m.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, Double.longBitsToDouble(v));
        }
    }

    /** {@code a op b} for two loaded values of kind {@code k}. */
    static long apply(final Kind k, final Op op, final long a, final long b) {
        if (k.floating) {
            final double x = Double.longBitsToDouble(a);
            final double y = Double.longBitsToDouble(b);
            return Double.doubleToRawLongBits(switch (op) {
                case MAX -> Math.max(x, y);
                case MIN -> Math.min(x, y);
                case SUM -> x + y;
                case PROD -> x * y;
                default -> throw new IllegalArgumentException(op + " does not apply to floating-point types");
            });
        }
        return switch (op) {
            case AND -> a & b;
            case OR -> a | b;
            case XOR -> a ^ b;
            case MAX -> (k == Kind.U64 ? Long.compareUnsigned(a, b) : Long.compare(a, b)) >= 0 ? a : b;
            case MIN -> (k == Kind.U64 ? Long.compareUnsigned(a, b) : Long.compare(a, b)) <= 0 ? a : b;
            case SUM -> a + b;
            case PROD -> a * b;
        };
    }

    /** {@code out[i] = a[i] op b[i]} for {@code i < count}; {@code out} may be {@code a} or {@code b}. */
    static void combine2(final Kind k, final Op op, final MemorySegment a, final MemorySegment b, final long count,
                         final MemorySegment out) {
        combine2(k, op, a, 0, b, 0, count, out, 0);
    }

    /** {@link #combine2} on the elements from byte offsets {@code aOff}, {@code bOff} and {@code outOff}. */
    static void combine2(final Kind k, final Op op, final MemorySegment a, final long aOff, final MemorySegment b,
                         final long bOff, final long count, final MemorySegment out, final long outOff) {
        for (long i = 0; i < count; i++) {
            store(k, out, outOff, i, apply(k, op, load(k, a, aOff, i), load(k, b, bOff, i)));
        }
    }
}
