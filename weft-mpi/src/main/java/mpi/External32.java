package mpi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The {@code "external32"} data representation of MPI-IO (MPI 4.0 section 14.5.2): every value big-endian,
 * at a fixed size, with no padding or alignment in the file. Java's types already have fixed sizes, so the
 * work is the byte order of the packed data and the layout of types in the file.
 *
 * <p>Sizes in the file: {@code byte}, {@code boolean} 1 (as Open MPI's bindings map them to an 8-bit
 * unsigned integer), {@code char} 2 (Java's 16-bit char, mapped to an unsigned 16-bit integer, not to C's
 * 1-byte {@code char}), {@code short} 2, {@code int} 4, {@code long} 8 (Java's long is a 64-bit integer:
 * C's 4-byte external32 {@code long} would lose data), {@code float} 4 and {@code double} 8 (IEEE). The
 * pair types are their two values back to back (INT2 and FLOAT_INT 8 bytes, SHORT_INT 6, LONG_INT and
 * DOUBLE_INT 12, where memory pads SHORT_INT to 8 and LONG_INT and DOUBLE_INT to 16), the complex types
 * their two parts; BYTE and PACKED are moved as they are.
 *
 * <p>Packed data (a type map's values in order, as {@link TypeCursor} packs them) are as long in memory as in
 * the file, so a conversion swaps bytes in place: over runs of one kind in bulk, and for a struct mixing kinds
 * part by part as it was built ({@link Derivation}).
 */
final class External32 {
    /** The name of the representation in {@link File#setView}. */
    static final String NAME = "external32";

    private static final boolean SWAP = ByteOrder.nativeOrder() != ByteOrder.BIG_ENDIAN;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    /** The sizes of the values of a predefined element, in order (runs of one size as that size alone). */
    private static final int[] ONE = {1};
    private static final int[] TWO = {2};
    private static final int[] FOUR = {4};
    private static final int[] EIGHT = {8};
    private static final int[] SHORT_THEN_INT = {2, 4};
    private static final int[] EIGHT_THEN_INT = {8, 4};

    private External32() {
    }

    /**
     * How {@code type} lies in an external32 file: a predefined type's values in a row without padding, a
     * derived type built again from its components' file layouts (strides and displacements given in
     * elements scale with them, those given in bytes stay as they are, as MPI says). Made once per type.
     */
    static Datatype layout(final Datatype type) throws MPIException {
        Datatype x = type.external32;
        if (x == null) {
            x = type.derivation == null ? type.unpadded() : type.derivation.recipe().build(External32::layout);
            type.external32 = x;
        }
        return x;
    }

    /** Converts {@code count} packed elements of {@code type} at the start of {@code packed} to external32. */
    static void toExternal(final MemorySegment packed, final int count, final Datatype type) throws MPIException {
        convert(packed, 0, packed.byteSize(), type, count);
    }

    /**
     * Converts the first {@code length} bytes of {@code count} packed elements of {@code type} from external32;
     * returns how many were converted: {@code length} less a value cut by the end of the data (a short read).
     */
    static long toNative(final MemorySegment packed, final int count, final Datatype type, final long length)
        throws MPIException {
        return convert(packed, 0, length, type, count);
    }

    /**
     * Refuses memory data whose values do not fall on the etype's (writing doubles through a view of ints): its
     * bytes would be swapped as the other kind. Untyped bytes (BYTE, PACKED) and structs are not compared.
     */
    static void checkMatch(final Datatype memory, final Datatype etype) throws MPIException {
        if (memory.element == Datatype.MIXED || etype.element == Datatype.MIXED || untyped(memory.element)
            || untyped(etype.element)) {
            return;
        }
        if (!Arrays.equals(units(memory.element), units(etype.element))) {
            throw new MPIException(MPI.ERR_CONVERSION, "cannot convert " + memory + " through a view of etype "
                + etype + " in " + NAME + ": their values differ in size");
        }
    }

    private static boolean untyped(final int element) {
        return element == Datatype.BYTE || element == Datatype.PACKED;
    }

    /** Swaps {@code count} elements of {@code type} from {@code off} on, not past {@code limit}; the end reached. */
    private static long convert(final MemorySegment seg, final long off, final long limit, final Datatype type,
                                final long count) throws MPIException {
        if (type.element != Datatype.MIXED) {
            return swap(seg, off, Math.min(off + count * type.size, limit), units(type.element));
        }
        final Derivation d = type.derivation;
        long at = off;
        for (long c = 0; c < count && at < limit; c++) {
            for (int i = 0; i < d.parts().length; i++) {
                final long want = at + d.repeats()[i] * d.parts()[i].size;
                at = convert(seg, at, limit, d.parts()[i], d.repeats()[i]);
                if (at < want) {
                    return at; // the data end inside this part
                }
            }
        }
        return at;
    }

    /** Swaps the values of {@code [off, end)}, laid out as repeats of {@code units}; the end of the last whole one. */
    private static long swap(final MemorySegment seg, final long off, final long end, final int[] units) {
        final int u = units[0];
        if (units.length == 1 || units[1] == u) {
            final long n = (end - off) / u;
            swapRun(seg, off, n, u);
            return off + n * u;
        }
        long at = off;
        while (true) {
            for (final int w : units) {
                if (at + w > end) {
                    return at;
                }
                swapRun(seg, at, 1, w);
                at += w;
            }
        }
    }

    private static void swapRun(final MemorySegment seg, final long off, final long n, final int unit) {
        if (!SWAP || unit == 1) {
            return;
        }
        final long end = off + n * unit;
        switch (unit) {
            case 2 -> {
                for (long at = off; at < end; at += 2) {
                    seg.set(SHORT, at, Short.reverseBytes(seg.get(SHORT, at)));
                }
            }
            case 4 -> {
                for (long at = off; at < end; at += 4) {
                    seg.set(INT, at, Integer.reverseBytes(seg.get(INT, at)));
                }
            }
            default -> {
                for (long at = off; at < end; at += 8) {
                    seg.set(LONG, at, Long.reverseBytes(seg.get(LONG, at)));
                }
            }
        }
    }

    /** The sizes of the values of one predefined element, in order (a pair: its value, then its int). */
    private static int[] units(final int element) throws MPIException {
        return switch (element) {
            case Datatype.BYTE, Datatype.BOOLEAN, Datatype.PACKED -> ONE;
            case Datatype.CHAR, Datatype.SHORT -> TWO;
            case Datatype.INT, Datatype.FLOAT, Datatype.INT2, Datatype.FLOAT_INT, Datatype.FLOAT_COMPLEX -> FOUR;
            case Datatype.LONG, Datatype.DOUBLE, Datatype.DOUBLE_COMPLEX -> EIGHT;
            case Datatype.SHORT_INT -> SHORT_THEN_INT;
            case Datatype.LONG_INT, Datatype.DOUBLE_INT -> EIGHT_THEN_INT;
            default -> throw new MPIException(MPI.ERR_CONVERSION, "no " + NAME + " form for datatype code " + element);
        };
    }
}
