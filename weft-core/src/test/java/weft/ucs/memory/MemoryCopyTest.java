package weft.ucs.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MemoryCopy behaves as MemorySegment.copy on both sides of its native range, checks included. */
class MemoryCopyTest {
    private static void pattern(final MemorySegment s, final int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 7, 511, 512, 513, 4095, 8192, 65535, 65536, 65537, 200_000, 524_287, 524_288, 3_000_001})
    void copiesLikeTheJdkAtEverySize(final long len) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment src = arena.allocate(len + 64);
            final MemorySegment dst = arena.allocate(len + 64);
            final MemorySegment expected = arena.allocate(len + 64);
            pattern(src, 1);
            pattern(dst, 2);
            pattern(expected, 2);
            MemoryCopy.copy(src, 3, dst, 5, len);
            MemorySegment.copy(src, 3, expected, 5, len);
            assertEquals(-1, dst.mismatch(expected), "copy of " + len + " bytes");
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {-100, -8, -1, 1, 8, 100})
    void overlappingRangesCopyAsThroughATemporary(final long shift) {
        final int len = 4096;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(len + 256);
            pattern(s, 3);
            final byte[] before = s.toArray(ValueLayout.JAVA_BYTE);
            MemoryCopy.copy(s, 128, s, 128 + shift, len);
            final byte[] after = s.toArray(ValueLayout.JAVA_BYTE);
            final byte[] want = before.clone();
            System.arraycopy(before, 128, want, (int) (128 + shift), len);
            assertArrayEquals(want, after);
        }
    }

    /** Every distance of destination ahead of source modulo 4 KiB, around the ones glibc copies slowly. */
    @Test
    void copiesExactlyAtEveryDistanceModuloAPage() {
        final int len = 8184;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment src = arena.allocate(len + 8192, 4096);
            final MemorySegment dst = arena.allocate(len + 8192, 4096);
            final MemorySegment expected = arena.allocate(len + 8192, 4096);
            pattern(src, 4);
            for (int d = 0; d < 4096; d += d < 80 || d >= 4016 ? 1 : 61) {
                for (final int srcOff : new int[] {0, 64, 4088}) {
                    final int dstOff = (srcOff + d) % 4096;
                    pattern(dst, d);
                    pattern(expected, d);
                    MemoryCopy.copy(src, srcOff, dst, dstOff, len);
                    MemorySegment.copy(src, srcOff, expected, dstOff, len);
                    assertEquals(-1, dst.mismatch(expected), "source +" + srcOff + ", destination +" + dstOff);
                }
            }
        }
    }

    @Test
    void onlyDestinationsOneToSixtyThreeBytesAheadModuloAPageAvoidLibc() {
        final long base = 1L << 32;
        for (long d = 1; d < 64; d++) {
            assertTrue(MemoryCopy.slowForLibc(base + d, base), "ahead by " + d);
            assertTrue(MemoryCopy.slowForLibc(base + 4096 * 3 + d, base), "ahead by 3 pages + " + d);
            assertTrue(MemoryCopy.slowForLibc(base + 64 + d, base + 64), "ahead by " + d + " from +64");
        }
        for (final long d : new long[] {0, 64, 65, 4080, 4095, 4096, -1, -8, -4096}) {
            assertFalse(MemoryCopy.slowForLibc(base + d, base), "ahead by " + d);
        }
    }

    /** Large copies (512 KiB to 1 MiB, memmove) at distances around the slow ones, and overlapping. */
    @Test
    void largeCopiesAreExactAtEveryDistanceAndOverlapping() {
        final int len = 1 << 20;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment src = arena.allocate(len + 8192, 4096);
            final MemorySegment dst = arena.allocate(len + 8192, 4096);
            final MemorySegment expected = arena.allocate(len + 8192, 4096);
            pattern(src, 5);
            for (final int d : new int[] {0, 1, 15, 16, 63, 64, 65, 2048, 4095}) {
                pattern(dst, d);
                pattern(expected, d);
                MemoryCopy.copy(src, 8, dst, 8 + d, len);
                MemorySegment.copy(src, 8, expected, 8 + d, len);
                assertEquals(-1, dst.mismatch(expected), "1 MiB, destination " + d + " ahead");
            }
            for (final long shift : new long[] {-4096, -1, 1, 4096}) {
                pattern(expected, 6);
                MemorySegment.copy(expected, 4096, expected, 4096 + shift, len - 8192);
                pattern(dst, 6);
                MemoryCopy.copy(dst, 4096, dst, 4096 + shift, len - 8192);
                assertEquals(-1, dst.mismatch(expected), "overlapping 1 MiB copy shifted by " + shift);
            }
        }
    }

    @Test
    void outOfBoundsWritesNothing() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment src = arena.allocate(8192);
            final MemorySegment dst = arena.allocate(8192);
            pattern(src, 4);
            final byte[] before = dst.toArray(ValueLayout.JAVA_BYTE);
            assertThrows(IndexOutOfBoundsException.class, () -> MemoryCopy.copy(src, 0, dst, 4096, 4097));
            assertThrows(IndexOutOfBoundsException.class, () -> MemoryCopy.copy(src, 4096, dst, 0, 4097));
            assertThrows(IndexOutOfBoundsException.class, () -> MemoryCopy.copy(src, -1, dst, 0, 1024));
            assertThrows(IndexOutOfBoundsException.class, () -> MemoryCopy.copy(src, 0, dst, 0, -1024));
            assertArrayEquals(before, dst.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void readOnlyDestinationIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment src = arena.allocate(4096);
            final MemorySegment dst = arena.allocate(4096).asReadOnly();
            assertThrows(IllegalArgumentException.class, () -> MemoryCopy.copy(src, 0, dst, 0, 4096));
        }
    }

    @Test
    void closedArenaIsRefused() {
        final MemorySegment live = Arena.global().allocate(4096);
        final Arena arena = Arena.ofShared();
        final MemorySegment gone = arena.allocate(4096);
        arena.close();
        assertThrows(IllegalStateException.class, () -> MemoryCopy.copy(gone, 0, live, 0, 4096));
        assertThrows(IllegalStateException.class, () -> MemoryCopy.copy(live, 0, gone, 0, 4096));
    }

    @Test
    void confinedSegmentFromAnotherThreadIsRefused() throws InterruptedException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment mine = arena.allocate(4096);
            final MemorySegment shared = Arena.global().allocate(4096);
            final AtomicReference<Throwable> seen = new AtomicReference<>();
            final Thread t = new Thread(() -> {
                try {
                    MemoryCopy.copy(shared, 0, mine, 0, 4096);
                } catch (final Throwable e) {
                    seen.set(e);
                }
            });
            t.start();
            t.join();
            assertInstanceOf(WrongThreadException.class, seen.get());
        }
    }

    @Test
    void heapSegmentsCopyThroughTheJdk() {
        final byte[] a = new byte[8192];
        final byte[] b = new byte[8192];
        for (int i = 0; i < a.length; i++) {
            a[i] = (byte) i;
        }
        MemoryCopy.copy(MemorySegment.ofArray(a), 0, MemorySegment.ofArray(b), 0, 8192);
        assertArrayEquals(a, b);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment n = arena.allocate(8192);
            MemoryCopy.copy(MemorySegment.ofArray(a), 0, n, 0, 8192);
            assertArrayEquals(a, n.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void allocatesNothing() {
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment src = arena.allocate(16384);
            final MemorySegment dst = arena.allocate(16384);
            // in a JVM shared with the other tests a late recompile can allocate once: the best window counts
            weft.uct.AllocationMeter.fewestBytes("100k copies", () -> {
                for (int i = 0; i < 100_000; i++) {
                    MemoryCopy.copy(src, i & 63, dst, 64, 8192); // distances 1-64: both ways of copying
                    MemoryCopy.copy(src, 0, dst, 0, 100);
                }
            }, 300, 30_000);
        }
    }
}
