package weft.ucs.memory;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BufferPoolTest {
    @Test
    void shouldHandOutDistinctBuffersUntilExhausted() {
        try (BufferPool pool = new BufferPool(4, 100)) {
            assertEquals(128, pool.bufferSize(), "rounded up to 64 bytes");
            assertEquals(4 * 128, pool.memory().byteSize());
            assertEquals(0, pool.memory().address() % 64, "64-byte aligned");
            final Set<Integer> got = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                final int b = pool.acquire();
                assertTrue(b >= 0 && b < 4);
                assertTrue(got.add(b), "buffer " + b + " handed out twice");
            }
            assertEquals(0, pool.available());
            assertEquals(-1, pool.acquire(), "exhausted: -1, no growth");
            assertEquals(-1, pool.acquire());
            assertEquals(4, pool.capacity());
            assertEquals(4 * 128, pool.memory().byteSize(), "never grows");
            pool.release(2);
            assertEquals(1, pool.available());
            assertEquals(2, pool.acquire(), "the released buffer comes back");
        }
    }

    @Test
    void shouldRejectDoubleRelease() {
        try (BufferPool pool = new BufferPool(2, 64)) {
            final int b = pool.acquire();
            pool.release(b);
            assertThrows(IllegalStateException.class, () -> pool.release(b));
            assertEquals(2, pool.available(), "the failed release changed nothing");
            final int never = 1 - b;
            assertThrows(IllegalStateException.class, () -> pool.release(never), "never acquired");
        }
    }

    @Test
    void shouldMapOffsetsToIndexes() {
        try (BufferPool pool = new BufferPool(8, 256)) {
            for (int i = 0; i < 8; i++) {
                assertEquals(i * 256L, pool.offset(i));
                assertEquals(i, pool.indexOf(pool.offset(i)));
                assertEquals(i, pool.indexOf(pool.offset(i) + 255));
            }
            // buffers do not overlap: write each index into its own buffer and read back
            for (int i = 0; i < 8; i++) {
                pool.memory().asSlice(pool.offset(i), 256).fill((byte) i);
            }
            for (int i = 0; i < 8; i++) {
                assertEquals((byte) i, pool.memory().get(ValueLayout.JAVA_BYTE, pool.offset(i)));
                assertEquals((byte) i, pool.memory().get(ValueLayout.JAVA_BYTE, pool.offset(i) + 255));
            }
        }
    }

    @Test
    void shouldReleaseOnlyItsOwnArena() {
        final BufferPool own = new BufferPool(1, 64);
        own.close();
        assertFalse(own.memory().scope().isAlive(), "an owned arena is closed");
        own.close(); // idempotent
        try (Arena arena = Arena.ofConfined()) {
            final BufferPool borrowed = new BufferPool(arena, 1, 64);
            borrowed.close();
            assertTrue(borrowed.memory().scope().isAlive(), "a caller's arena stays open");
        }
        assertThrows(IllegalArgumentException.class, () -> new BufferPool(0, 64));
        assertThrows(IllegalArgumentException.class, () -> new BufferPool(1, 0));
    }

    @Test
    void shouldNotAllocateInSteadyState() {
        try (BufferPool pool = new BufferPool(16, 64)) {
            weft.uct.AllocationMeter.fewestBytes("20k acquire/release", () -> {
                for (int i = 0; i < 20_000; i++) {
                    pool.release(pool.acquire());
                }
            }, 300, 30_000);
        }
    }
}
