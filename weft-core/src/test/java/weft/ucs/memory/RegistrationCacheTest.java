package weft.ucs.memory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegistrationCacheTest {
    /** A registration handle recording what it covers. */
    record Reg(long start, long length) {
    }

    private final Arena arena = Arena.ofConfined();
    private final List<Reg> registered = new ArrayList<>();
    private final List<Reg> deregistered = new ArrayList<>();
    private final RegistrationCache<Reg> cache = new RegistrationCache<>(s -> {
        final Reg r = new Reg(s.address(), s.byteSize());
        registered.add(r);
        return r;
    }, deregistered::add);

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void shouldHitOnTheSameAndOnContainedRegions() {
        final MemorySegment mem = arena.allocate(4096);
        final Reg r = cache.register(mem);
        assertSame(r, cache.register(mem));
        assertSame(r, cache.register(mem.asSlice(100, 1000)));
        assertSame(r, cache.register(mem.asSlice(4095, 1)));
        assertSame(r, cache.register(mem.asSlice(0, 0)));
        assertEquals(1, registered.size());
        assertEquals(4, cache.hits());
        assertEquals(1, cache.misses());
        assertEquals(1, cache.size());
    }

    @Test
    void shouldMissOnRegionsThatStickOut() {
        final MemorySegment mem = arena.allocate(8192);
        final Reg inner = cache.register(mem.asSlice(1024, 1024));
        final Reg bigger = cache.register(mem.asSlice(1024, 2048));
        assertNotSame(inner, bigger);
        final Reg before = cache.register(mem.asSlice(512, 1024));
        assertNotSame(inner, before);
        assertEquals(3, registered.size());
        assertEquals(3, cache.size(), "regions sharing a start address are all kept");
        assertSame(bigger, cache.register(mem.asSlice(2000, 1000)), "found although it is not the nearest start");
    }

    @Test
    void shouldCountReferences() {
        final MemorySegment mem = arena.allocate(4096);
        final Reg r = cache.register(mem);
        cache.register(mem.asSlice(10, 10));
        cache.release(r);
        assertTrue(deregistered.isEmpty(), "one reference left");
        assertEquals(1, cache.size());
        cache.release(r);
        assertEquals(List.of(r), deregistered);
        assertEquals(0, cache.size());
        assertThrows(IllegalArgumentException.class, () -> cache.release(r), "released too often");
        assertThrows(IllegalArgumentException.class, () -> cache.release(new Reg(1, 1)));
    }

    @Test
    void shouldReleaseEachOfTwoRegionsWithTheSameStart() {
        final MemorySegment mem = arena.allocate(4096);
        final Reg small = cache.register(mem.asSlice(0, 100));
        final Reg large = cache.register(mem.asSlice(0, 200));
        cache.release(small);
        cache.release(large);
        assertEquals(List.of(small, large), deregistered);
        assertEquals(0, cache.size());
    }

    @Test
    void shouldInvalidateOverlappingEntries() {
        final MemorySegment mem = arena.allocate(3 * 4096);
        final Reg a = cache.register(mem.asSlice(0, 4096));
        final Reg b = cache.register(mem.asSlice(4096, 4096));
        final Reg c = cache.register(mem.asSlice(8192, 4096));
        cache.register(mem.asSlice(4096, 10)); // a second reference does not protect b
        assertEquals(2, cache.invalidate(mem.address() + 4000, 200));
        assertEquals(List.of(a, b), deregistered);
        assertEquals(1, cache.size());
        assertEquals(0, cache.invalidate(mem.address() + 4096, 4096), "adjacent, not overlapping");
        assertEquals(0, cache.invalidate(mem.address() + 8192, 0), "an empty range overlaps nothing");
        assertNotSame(a, cache.register(mem.asSlice(0, 16)), "invalidated entries are not hits");
        cache.clear();
        assertTrue(deregistered.contains(c));
        assertEquals(0, cache.size());
    }
}
