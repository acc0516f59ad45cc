package weft.uct;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IoVectorTest {
    @Test
    void shouldGatherAndScatterInOrder() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment a = arena.allocate(10);
            final MemorySegment b = arena.allocate(10);
            for (int i = 0; i < 10; i++) {
                a.set(ValueLayout.JAVA_BYTE, i, (byte) i);
                b.set(ValueLayout.JAVA_BYTE, i, (byte) (100 + i));
            }
            final IoVector iov = new IoVector(1).add(a, 2, 3).add(b, 0, 0).add(b, 5, 5);
            assertEquals(3, iov.count());
            assertEquals(8, iov.totalLength());
            assertSame(b, iov.segment(2));
            assertEquals(5, iov.offset(2));
            final MemorySegment dst = arena.allocate(20);
            assertEquals(8, iov.gather(dst, 4));
            final byte[] expected = {2, 3, 4, 105, 106, 107, 108, 109};
            for (int i = 0; i < 8; i++) {
                assertEquals(expected[i], dst.get(ValueLayout.JAVA_BYTE, 4 + i));
            }
            a.fill((byte) 0);
            b.fill((byte) 0);
            assertEquals(6, iov.scatter(dst, 4, 6), "scatter stops after length bytes");
            assertEquals(4, a.get(ValueLayout.JAVA_BYTE, 4));
            assertEquals(105, b.get(ValueLayout.JAVA_BYTE, 5));
            assertEquals(107, b.get(ValueLayout.JAVA_BYTE, 7));
            assertEquals(0, b.get(ValueLayout.JAVA_BYTE, 8), "beyond length: untouched");
        }
    }

    @Test
    void shouldRejectEntriesOutsideTheSegment() {
        final MemorySegment s = MemorySegment.ofArray(new byte[16]);
        final IoVector iov = new IoVector(2);
        assertThrows(IndexOutOfBoundsException.class, () -> iov.add(s, -1, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> iov.add(s, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> iov.add(s, 10, 7));
        assertThrows(IndexOutOfBoundsException.class, () -> iov.add(s, 17, 0));
        // offset + length overflows a long: must still be rejected
        assertThrows(IndexOutOfBoundsException.class, () -> iov.add(s, 1, Long.MAX_VALUE));
        assertThrows(IndexOutOfBoundsException.class, () -> iov.add(s, Long.MAX_VALUE, 2));
        assertEquals(0, iov.count());
        iov.add(s, 16, 0).add(s, 0, 16);
        assertEquals(16, iov.totalLength());
    }

    @Test
    void shouldClearAndReuseWithoutAllocating() {
        final MemorySegment s = MemorySegment.ofArray(new byte[64]);
        final IoVector iov = new IoVector(2).add(s, 0, 8).add(s, 8, 8);
        iov.clear();
        assertEquals(0, iov.count());
        assertEquals(0, iov.totalLength());
        // grow past the initial capacity, then steady-state clear/add must not allocate
        for (int i = 0; i < 9; i++) {
            iov.add(s, i, 1);
        }
        assertEquals(9, iov.count());
        iov.clear();
        AllocationMeter.fewestBytes("20k clear/add", () -> {
            for (int round = 0; round < 20_000; round++) {
                iov.clear().add(s, 0, 8).add(s, 8, 8);
            }
        }, 300, 30_000);
        iov.clear();
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> iov.segment(-1));
        assertNull(iov.segment(0), "cleared entries drop their segment references");
    }
}
