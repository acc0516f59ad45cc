package mpi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The predefined reduction operations on packed elements: {@code inout[i] = in[i] op inout[i]}. Integer
 * kinds compute in {@code long} and store back truncated (Java's wrap-around), floating kinds in their own
 * type; value-index pairs (MINLOC/MAXLOC) keep the smaller index on ties, as MPI requires.
 */
final class Reductions {
    static final int MAX = 1;
    static final int MIN = 2;
    static final int SUM = 3;
    static final int PROD = 4;
    static final int LAND = 5;
    static final int BAND = 6;
    static final int LOR = 7;
    static final int BOR = 8;
    static final int LXOR = 9;
    static final int BXOR = 10;
    static final int MINLOC = 11;
    static final int MAXLOC = 12;
    static final int REPLACE = 13;
    static final int NO_OP = 14;

    private static final ValueLayout.OfByte B = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort S = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfChar C = ValueLayout.JAVA_CHAR_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private Reductions() {
    }

    /** The lowest and highest element kind (tables below are indexed by {@code kind - FIRST_KIND}). */
    private static final int FIRST_KIND = Datatype.MIXED;
    private static final int LAST_KIND = Datatype.DOUBLE_COMPLEX;
    /**
     * {@link #elementSize} and {@link #defined} are table lookups, not switches: every reduction calls them, and
     * a switch compiled while a program reduced only INTs traps (unstable_if) at its first DOUBLE, taking the
     * compiled collective down with it (OSU's mean over the ranks, one DOUBLE sum after the warm-up, cost its
     * timed allreduces four foreground recompiles, 70 ms).
     */
    private static final int[] SIZES = new int[LAST_KIND - FIRST_KIND + 1];
    /** Per operation code, the kinds it is defined on, as bits {@code kind - FIRST_KIND}. */
    private static final int[] DEFINED_KINDS = new int[NO_OP + 1];

    static {
        for (int kind = FIRST_KIND; kind <= LAST_KIND; kind++) {
            SIZES[kind - FIRST_KIND] = sizeOf(kind);
            for (int op = 0; op <= NO_OP; op++) {
                if (definedOn(op, kind)) {
                    DEFINED_KINDS[op] |= 1 << (kind - FIRST_KIND);
                }
            }
        }
    }

    /** Bytes of one reduction element of {@code kind}. */
    static int elementSize(final int kind) {
        return SIZES[kind - FIRST_KIND];
    }

    /** Whether {@code op} is defined on elements of {@code kind}. */
    static boolean defined(final int op, final int kind) {
        return op >= 0 && op <= NO_OP && kind >= FIRST_KIND && kind <= LAST_KIND
            && (DEFINED_KINDS[op] >>> (kind - FIRST_KIND) & 1) != 0;
    }

    private static int sizeOf(final int kind) {
        return switch (kind) {
            case Datatype.BYTE, Datatype.BOOLEAN, Datatype.PACKED -> 1;
            case Datatype.CHAR, Datatype.SHORT -> 2;
            case Datatype.INT, Datatype.FLOAT -> 4;
            case Datatype.LONG, Datatype.DOUBLE, Datatype.INT2, Datatype.FLOAT_INT, Datatype.FLOAT_COMPLEX -> 8;
            case Datatype.SHORT_INT -> 6;
            case Datatype.LONG_INT, Datatype.DOUBLE_INT -> 12;
            case Datatype.DOUBLE_COMPLEX -> 16;
            default -> 0;
        };
    }

    private static boolean definedOn(final int op, final int kind) {
        final boolean integer = kind == Datatype.BYTE || kind == Datatype.CHAR || kind == Datatype.SHORT
            || kind == Datatype.INT || kind == Datatype.LONG;
        final boolean floating = kind == Datatype.FLOAT || kind == Datatype.DOUBLE;
        final boolean pair = kind >= Datatype.INT2 && kind <= Datatype.DOUBLE_INT;
        final boolean complex = kind == Datatype.FLOAT_COMPLEX || kind == Datatype.DOUBLE_COMPLEX;
        return switch (op) {
            case MAX, MIN -> integer || floating;
            case SUM, PROD -> integer || floating || complex;
            case LAND, LOR, LXOR -> integer || kind == Datatype.BOOLEAN;
            case BAND, BOR, BXOR -> integer || kind == Datatype.BOOLEAN;
            case MINLOC, MAXLOC -> pair;
            case REPLACE, NO_OP -> kind != Datatype.MIXED;
            default -> false;
        };
    }

    /**
     * Applies {@code op} to {@code n} elements of {@code kind}. A small dispatcher over one method per kind: a
     * kind seen for the first time (a program's DOUBLE sum after its INT ones) costs the JIT that kind's method,
     * not a recompile of every kind's loops at once (90 ms in the foreground on a bound rank).
     */
    static void apply(final int op, final int kind, final MemorySegment in, final long inOff,
                      final MemorySegment io, final long ioOff, final long n) {
        if (op == NO_OP) {
            return;
        }
        if (op == REPLACE) {
            MemorySegment.copy(in, inOff, io, ioOff, n * elementSize(kind));
            return;
        }
        LOOPS[kind - FIRST_KIND].apply(op, kind, in, inOff, io, ioOff, n);
    }

    /**
     * The element kinds' reduction loops, one constant (so one class) per family, called through
     * {@link #LOOPS} rather than a switch: a kind first seen after the JIT compiled a collective (OSU's DOUBLE
     * mean after its INT sums) then fails a type check, whose trap leaves the compiled collective in place,
     * rather than a pruned switch case, whose trap discards it (four foreground recompiles, 70 ms, inside the
     * timed allreduces).
     */
    private enum Loops {
        BYTES {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                bytes(op, in, inOff, io, ioOff, n);
            }
        },
        SHORTS {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                shorts(op, in, inOff, io, ioOff, n);
            }
        },
        CHARS {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                chars(op, in, inOff, io, ioOff, n);
            }
        },
        INTS {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                ints(op, in, inOff, io, ioOff, n);
            }
        },
        LONGS {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                longs(op, in, inOff, io, ioOff, n);
            }
        },
        FLOATS {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                floats(op, in, inOff, io, ioOff, n);
            }
        },
        DOUBLES {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                doubles(op, in, inOff, io, ioOff, n);
            }
        },
        COMPLEX {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                complex(op, kind == Datatype.DOUBLE_COMPLEX, in, inOff, io, ioOff, n);
            }
        },
        PAIRS {
            @Override
            void apply(final int op, final int kind, final MemorySegment in, final long inOff, final MemorySegment io,
                       final long ioOff, final long n) {
                pairs(op, kind, in, inOff, io, ioOff, n);
            }
        };

        abstract void apply(int op, int kind, MemorySegment in, long inOff, MemorySegment io, long ioOff, long n);
    }

    /** Each kind's loops, by {@code kind - FIRST_KIND}. */
    private static final Loops[] LOOPS = new Loops[LAST_KIND - FIRST_KIND + 1];

    static {
        java.util.Arrays.fill(LOOPS, Loops.PAIRS);
        LOOPS[Datatype.BYTE - FIRST_KIND] = Loops.BYTES;
        LOOPS[Datatype.BOOLEAN - FIRST_KIND] = Loops.BYTES;
        LOOPS[Datatype.SHORT - FIRST_KIND] = Loops.SHORTS;
        LOOPS[Datatype.CHAR - FIRST_KIND] = Loops.CHARS;
        LOOPS[Datatype.INT - FIRST_KIND] = Loops.INTS;
        LOOPS[Datatype.LONG - FIRST_KIND] = Loops.LONGS;
        LOOPS[Datatype.FLOAT - FIRST_KIND] = Loops.FLOATS;
        LOOPS[Datatype.DOUBLE - FIRST_KIND] = Loops.DOUBLES;
        LOOPS[Datatype.FLOAT_COMPLEX - FIRST_KIND] = Loops.COMPLEX;
        LOOPS[Datatype.DOUBLE_COMPLEX - FIRST_KIND] = Loops.COMPLEX;
    }

    private static void bytes(final int op, final MemorySegment in, final long inOff, final MemorySegment io,
                              final long ioOff, final long n) {
        for (long i = 0; i < n; i++) {
            io.set(B, ioOff + i, (byte) combine(op, in.get(B, inOff + i), io.get(B, ioOff + i)));
        }
    }

    private static void shorts(final int op, final MemorySegment in, final long inOff, final MemorySegment io,
                               final long ioOff, final long n) {
        for (long i = 0; i < n; i++) {
            io.set(S, ioOff + 2 * i, (short) combine(op, in.get(S, inOff + 2 * i), io.get(S, ioOff + 2 * i)));
        }
    }

    private static void chars(final int op, final MemorySegment in, final long inOff, final MemorySegment io,
                              final long ioOff, final long n) {
        for (long i = 0; i < n; i++) {
            io.set(C, ioOff + 2 * i, (char) combine(op, in.get(C, inOff + 2 * i), io.get(C, ioOff + 2 * i)));
        }
    }

    private static void ints(final int op, final MemorySegment in, final long inOff, final MemorySegment io,
                             final long ioOff, final long n) {
        if (fastInts(op, in, inOff, io, ioOff, n)) {
            return;
        }
        for (long i = 0; i < n; i++) {
            io.set(I, ioOff + 4 * i, (int) combine(op, in.get(I, inOff + 4 * i), io.get(I, ioOff + 4 * i)));
        }
    }

    private static void longs(final int op, final MemorySegment in, final long inOff, final MemorySegment io,
                              final long ioOff, final long n) {
        if (fastLongs(op, in, inOff, io, ioOff, n)) {
            return;
        }
        for (long i = 0; i < n; i++) {
            io.set(L, ioOff + 8 * i, combine(op, in.get(L, inOff + 8 * i), io.get(L, ioOff + 8 * i)));
        }
    }

    private static void floats(final int op, final MemorySegment in, final long inOff, final MemorySegment io,
                               final long ioOff, final long n) {
        if (fastFloats(op, in, inOff, io, ioOff, n)) {
            return;
        }
        for (long i = 0; i < n; i++) {
            io.set(F, ioOff + 4 * i, (float) combine(op, in.get(F, inOff + 4 * i), io.get(F, ioOff + 4 * i)));
        }
    }

    private static void doubles(final int op, final MemorySegment in, final long inOff, final MemorySegment io,
                                final long ioOff, final long n) {
        if (fastDoubles(op, in, inOff, io, ioOff, n)) {
            return;
        }
        for (long i = 0; i < n; i++) {
            io.set(D, ioOff + 8 * i, combine(op, in.get(D, inOff + 8 * i), io.get(D, ioOff + 8 * i)));
        }
    }

    // The common ops on the common kinds, with the op chosen once per call rather than per element: a loop
    // C2 can unroll (the general loops below switch on the op for every element).

    private static boolean fastInts(final int op, final MemorySegment in, final long a, final MemorySegment io,
                                    final long b, final long n) {
        switch (op) {
            case SUM -> {
                for (long x = 0; x < 4 * n; x += 4) {
                    io.set(I, b + x, in.get(I, a + x) + io.get(I, b + x));
                }
            }
            case MAX -> {
                for (long x = 0; x < 4 * n; x += 4) {
                    io.set(I, b + x, Math.max(in.get(I, a + x), io.get(I, b + x)));
                }
            }
            case MIN -> {
                for (long x = 0; x < 4 * n; x += 4) {
                    io.set(I, b + x, Math.min(in.get(I, a + x), io.get(I, b + x)));
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private static boolean fastLongs(final int op, final MemorySegment in, final long a, final MemorySegment io,
                                     final long b, final long n) {
        switch (op) {
            case SUM -> {
                for (long x = 0; x < 8 * n; x += 8) {
                    io.set(L, b + x, in.get(L, a + x) + io.get(L, b + x));
                }
            }
            case MAX -> {
                for (long x = 0; x < 8 * n; x += 8) {
                    io.set(L, b + x, Math.max(in.get(L, a + x), io.get(L, b + x)));
                }
            }
            case MIN -> {
                for (long x = 0; x < 8 * n; x += 8) {
                    io.set(L, b + x, Math.min(in.get(L, a + x), io.get(L, b + x)));
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private static boolean fastFloats(final int op, final MemorySegment in, final long a, final MemorySegment io,
                                      final long b, final long n) {
        if (op != SUM) {
            return false;
        }
        for (long x = 0; x < 4 * n; x += 4) {
            io.set(F, b + x, in.get(F, a + x) + io.get(F, b + x));
        }
        return true;
    }

    private static boolean fastDoubles(final int op, final MemorySegment in, final long a, final MemorySegment io,
                                       final long b, final long n) {
        if (op != SUM) {
            return false;
        }
        for (long x = 0; x < 8 * n; x += 8) {
            io.set(D, b + x, in.get(D, a + x) + io.get(D, b + x));
        }
        return true;
    }

    private static long combine(final int op, final long a, final long b) {
        return switch (op) {
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case SUM -> a + b;
            case PROD -> a * b;
            case LAND -> a != 0 && b != 0 ? 1 : 0;
            case LOR -> a != 0 || b != 0 ? 1 : 0;
            case LXOR -> (a != 0) != (b != 0) ? 1 : 0;
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
            default -> throw new IllegalArgumentException("operation " + op + " on integers");
        };
    }

    private static double combine(final int op, final double a, final double b) {
        return switch (op) {
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case SUM -> a + b;
            case PROD -> a * b;
            default -> throw new IllegalArgumentException("operation " + op + " on floating-point numbers");
        };
    }

    private static void complex(final int op, final boolean wide, final MemorySegment in, final long inOff,
                                final MemorySegment io, final long ioOff, final long n) {
        final int w = wide ? 8 : 4;
        for (long i = 0; i < n; i++) {
            final long a = inOff + 2 * w * i;
            final long b = ioOff + 2 * w * i;
            final double ar = wide ? in.get(D, a) : in.get(F, a);
            final double ai = wide ? in.get(D, a + w) : in.get(F, a + w);
            final double br = wide ? io.get(D, b) : io.get(F, b);
            final double bi = wide ? io.get(D, b + w) : io.get(F, b + w);
            final double re = op == SUM ? ar + br : ar * br - ai * bi;
            final double im = op == SUM ? ai + bi : ar * bi + ai * br;
            if (wide) {
                io.set(D, b, re);
                io.set(D, b + w, im);
            } else {
                io.set(F, b, (float) re);
                io.set(F, b + w, (float) im);
            }
        }
    }

    /** MINLOC / MAXLOC on value-index pairs: the better value, and on a tie the smaller index. */
    private static void pairs(final int op, final int kind, final MemorySegment in, final long inOff,
                              final MemorySegment io, final long ioOff, final long n) {
        final int size = elementSize(kind);
        final int valueBytes = size - 4;
        for (long i = 0; i < n; i++) {
            final long a = inOff + size * i;
            final long b = ioOff + size * i;
            final int cmp = kind == Datatype.LONG_INT ? Long.compare(in.get(L, a), io.get(L, b))
                : Double.compare(value(kind, in, a), value(kind, io, b));
            final int ia = in.get(I, a + valueBytes);
            final int ib = io.get(I, b + valueBytes);
            final boolean takeIn = cmp == 0 ? ia < ib : (op == MINLOC ? cmp < 0 : cmp > 0);
            if (takeIn) {
                MemorySegment.copy(in, a, io, b, size);
            }
        }
    }

    private static double value(final int kind, final MemorySegment s, final long off) {
        return switch (kind) {
            case Datatype.INT2 -> s.get(I, off);
            case Datatype.SHORT_INT -> s.get(S, off);
            case Datatype.FLOAT_INT -> s.get(F, off);
            default -> s.get(D, off);
        };
    }
}
