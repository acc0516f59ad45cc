package weft.uct.conformance;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Deterministic data patterns that depend on a size and a sequence number, so that a shifted,
 * truncated, duplicated or stale buffer never verifies by accident.
 */
public final class Patterns {
    private Patterns() {
    }

    /** Byte {@code i} of the pattern for ({@code size}, {@code seq}). */
    public static byte at(final long size, final long seq, final long i) {
        final long x = (i + 1) * 0x9E3779B97F4A7C15L ^ (size * 31 + seq * 131 + 7);
        return (byte) (x ^ (x >>> 29) ^ (x >>> 47));
    }

    /** A new array holding the pattern. */
    public static byte[] bytes(final int size, final long seq) {
        final byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = at(size, seq, i);
        }
        return b;
    }

    /** Writes the pattern into {@code seg} at {@code offset}. */
    public static void fill(final MemorySegment seg, final long offset, final long size, final long seq) {
        for (long i = 0; i < size; i++) {
            seg.set(ValueLayout.JAVA_BYTE, offset + i, at(size, seq, i));
        }
    }

    /** Index of the first byte that differs from the pattern, or -1. */
    public static long mismatch(final MemorySegment seg, final long offset, final long size, final long seq) {
        for (long i = 0; i < size; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, offset + i) != at(size, seq, i)) {
                return i;
            }
        }
        return -1;
    }

    /** Index of the first byte of {@code b[from, from+size)} that differs from the pattern, or -1. */
    public static int mismatch(final byte[] b, final int from, final int size, final long seq) {
        for (int i = 0; i < size; i++) {
            if (b[from + i] != at(size, seq, i)) {
                return i;
            }
        }
        return -1;
    }
}
