package weft.shmem;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeapAllocatorTest {
    @Test
    void allocatesAlignedDisjointBlocksAndCoalescesOnFree() {
        final HeapAllocator a = new HeapAllocator(100, 1 << 20);
        final long p = a.allocate(1, 0);
        final long q = a.allocate(100, 0);
        final long r = a.allocate(5000, 4096);
        assertEquals(112, p, "the start is rounded up to 16");
        assertEquals(128, q, "blocks are multiples of 16");
        assertEquals(0, r % 4096);
        assertEquals(3, a.liveBlocks());
        a.free(q);
        a.free(p);
        a.free(r);
        assertEquals(1, a.freeBlocks(), "everything coalesced back into one block");
        assertEquals(0, a.usedBytes());
        assertEquals((1 << 20) - 112, a.largestFree());
    }

    @Test
    void exhaustionReturnsMinusOneAndLeavesTheHeapUsable() {
        final HeapAllocator a = new HeapAllocator(0, 4096);
        assertEquals(-1, a.allocate(4097, 0));
        assertEquals(-1, a.allocate(Long.MAX_VALUE, 0));
        final long p = a.allocate(4096, 0);
        assertEquals(0, p);
        assertEquals(-1, a.allocate(1, 0));
        a.free(p);
        assertEquals(0, a.allocate(16, 0));
    }

    @Test
    void resizesInPlaceWhenTheNextBlockIsFree() {
        final HeapAllocator a = new HeapAllocator(0, 1 << 16);
        final long p = a.allocate(64, 0);
        final long q = a.allocate(64, 0);
        assertFalse(a.resizeInPlace(p, 128), "q is in the way");
        assertTrue(a.resizeInPlace(q, 1000));
        assertEquals(1008, a.lengthOf(q));
        assertTrue(a.resizeInPlace(q, 16));
        assertEquals(1, a.freeBlocks(), "the shrunk tail went back to the free list and coalesced");
        a.free(p);
        assertTrue(a.resizeInPlace(q, 16));
    }

    @Test
    void rejectsDoubleFreesForeignOffsetsAndBadArguments() {
        final HeapAllocator a = new HeapAllocator(0, 1 << 16);
        final long p = a.allocate(64, 0);
        a.free(p);
        assertThrows(IllegalArgumentException.class, () -> a.free(p));
        assertThrows(IllegalArgumentException.class, () -> a.free(8));
        assertThrows(IllegalArgumentException.class, () -> a.allocate(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> a.allocate(8, 3));
    }

    /** Random alloc/free churn: blocks never overlap, and freeing everything leaves one free block. */
    @Test
    void fragmentationChurnKeepsBlocksDisjointAndRecoversFully() {
        final HeapAllocator a = new HeapAllocator(0, 8 << 20);
        final Random rnd = new Random(7);
        final List<long[]> live = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            if (live.isEmpty() || rnd.nextInt(3) > 0) {
                final long size = 1 + rnd.nextInt(rnd.nextBoolean() ? 64 : 20_000);
                final long align = rnd.nextInt(8) == 0 ? 1L << (4 + rnd.nextInt(9)) : 0;
                final long off = a.allocate(size, align);
                if (off >= 0) {
                    assertTrue(align == 0 || off % align == 0);
                    live.add(new long[] {off, a.lengthOf(off)});
                }
            } else {
                final long[] b = live.remove(rnd.nextInt(live.size()));
                a.free(b[0]);
            }
            if (i % 1000 == 0) {
                live.sort((x, y) -> Long.compare(x[0], y[0]));
                for (int k = 1; k < live.size(); k++) {
                    assertTrue(live.get(k - 1)[0] + live.get(k - 1)[1] <= live.get(k)[0], "blocks overlap");
                }
            }
        }
        for (final long[] b : live) {
            a.free(b[0]);
        }
        assertEquals(1, a.freeBlocks());
        assertEquals(8 << 20, a.largestFree());
    }
}
