package weft.shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Assertions and data patterns for the PE programs (which run outside JUnit). */
final class PeChecks {
    private PeChecks() {
    }

    static void check(final boolean ok, final String what) {
        if (!ok) {
            throw new AssertionError("check failed: " + what);
        }
    }

    static byte at(final long i, final int seed) {
        return (byte) (i * 31 + seed * 7 + (i >>> 12));
    }

    static void pattern(final MemorySegment m, final long size, final int seed) {
        for (long i = 0; i < size; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, at(i, seed));
        }
    }

    static void verify(final MemorySegment m, final long size, final int seed, final String what) {
        for (long i = 0; i < size; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, i) != at(i, seed)) {
                throw new AssertionError("check failed: " + what + ": byte " + i + " is " + m.get(ValueLayout.JAVA_BYTE, i)
                    + ", expected " + at(i, seed));
            }
        }
    }

    /** Expects {@code r} to throw {@code type} with {@code text} in its message. */
    static void expect(final Class<? extends Throwable> type, final String text, final Runnable r) {
        try {
            r.run();
        } catch (final Throwable t) {
            if (type.isInstance(t) && String.valueOf(t.getMessage()).contains(text)) {
                return;
            }
            throw new AssertionError("expected " + type.getSimpleName() + " containing '" + text + "', got " + t, t);
        }
        throw new AssertionError("expected " + type.getSimpleName() + " containing '" + text + "', nothing thrown");
    }
}
