package weft.ucp;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AllocationMeter;
import weft.uct.AtomicOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-sided operations of at most 8 bytes allocate nothing in steady state: putNbi, get (request),
 * 64-bit atomic post, fetch and cswap, 32-bit fetch, and flush, over shm (direct) and tcp (served by the
 * target's progress), and over shm+cma on registered memory (puts by cma; gets and atomics emulated at the
 * target over shm: {@link SoftRma}, {@link SoftAtomics}), where emulated gets of 64 KiB and 1 MiB (several
 * fragments and pieces) allocate nothing either. Two workers in one JVM, one thread progressing both.
 */
@Timeout(60)
@Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
class RmaAllocationTest {
    private static final int N = 10_000;
    private static final long LIMIT = 400;

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self", "shm,cma,self registered"})
    void smallPutGetAtomicsAllocateNothing(final String set) {
        final String tls = set.split(" ")[0];
        final boolean registered = set.endsWith("registered");
        final Config cfg = Config.global().with("SHM_KEEPALIVE_INTERVAL", "100s").with("KEEPALIVE_INTERVAL", "10m");
        try (Context ctx = Context.builder().transports(tls.split(",")).config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             Arena user = Arena.ofShared();
             MemoryMap heap = registered ? ctx.memMap(user.allocate(4096, 4096), 0) : ctx.memMap(4096, 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                if (registered) {
                    assertTrue(rk.describe().contains("amo=emulated("), rk.describe());
                }
                final MemorySegment buf = arena.allocate(64);
                AllocationMeter.fewestBytes(tls + ": " + N + " x putNbi+get+post+fetch+fetch32+cswap", () -> {
                    heap.segment().fill((byte) 0);
                    round(a, b, ab, rk, buf);
                    assertEquals(3L * N, heap.segment().get(ValueLayout.JAVA_LONG, 8), "atomic adds");
                    assertEquals(N, heap.segment().get(ValueLayout.JAVA_INT, 24), "32-bit adds");
                }, LIMIT, 30_000);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {64 << 10, 1 << 20})
    void emulatedGetsOfRegisteredMemoryAllocateNothing(final long size) {
        final Config cfg = Config.global().with("SHM_KEEPALIVE_INTERVAL", "100s").with("KEEPALIVE_INTERVAL", "10m");
        final int n = size > 65536 ? 200 : 2000;
        try (Context ctx = Context.builder().transports("shm", "cma", "self").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             Arena user = Arena.ofShared(); MemoryMap heap = ctx.memMap(user.allocate(size, 4096), 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                assertTrue(rk.describe().contains("=emulated("), rk.describe());
                final MemorySegment buf = arena.allocate(size, 64);
                heap.segment().set(ValueLayout.JAVA_LONG, size - 8, 0x5eedL);
                AllocationMeter.fewestBytes(n + " x get of " + size + " (emulated)", () -> {
                    for (int i = 0; i < n; i++) {
                        await(a, b, ab.get(buf, 0, size, rk.base(), rk));
                    }
                    assertEquals(0x5eedL, buf.get(ValueLayout.JAVA_LONG, size - 8), "the last word read");
                }, LIMIT, 30_000);
            }
        }
    }

    /** A 1 MiB get of memory shm maps is one copy from the mapping: the C library's, for large copies. */
    @org.junit.jupiter.api.Test
    void largeGetsOfMappedMemoryAllocateNothing() {
        final long size = 1 << 20;
        final Config cfg = Config.global().with("SHM_KEEPALIVE_INTERVAL", "100s").with("KEEPALIVE_INTERVAL", "10m");
        try (Context ctx = Context.builder().transports("shm", "self").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(size, 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                // 16 bytes into a page, as a direct ByteBuffer: the destination unaligned with the mapping
                final MemorySegment buf = arena.allocate(size + 4096, 4096).asSlice(16, size);
                heap.segment().set(ValueLayout.JAVA_LONG, size - 8, 0x5eedL);
                AllocationMeter.fewestBytes("300 x get of 1 MiB (mapped)", () -> {
                    for (int i = 0; i < 300; i++) {
                        await(a, b, ab.get(buf, 0, size, rk.base(), rk));
                    }
                    assertEquals(0x5eedL, buf.get(ValueLayout.JAVA_LONG_UNALIGNED, size - 8), "the last word read");
                }, LIMIT, 30_000);
            }
        }
    }

    private static void round(final Worker a, final Worker b, final Endpoint ab, final Rkey rk, final MemorySegment buf) {
        final long base = rk.base();
        for (int i = 0; i < N; i++) {
            buf.set(ValueLayout.JAVA_LONG, 0, i);
            check(ab.putNbi(buf, 0, 8, base, rk));
            await(a, b, ab.get(buf, 8, 8, base, rk));
            if (buf.get(ValueLayout.JAVA_LONG, 8) != i) {
                throw new AssertionError("get " + i + " read " + buf.get(ValueLayout.JAVA_LONG, 8));
            }
            check(ab.atomicPost(AtomicOp.ADD, 1, base + 8, rk));
            await(a, b, ab.atomicFetch(AtomicOp.ADD, 2, buf, 16, base + 8, rk));
            await(a, b, ab.atomicFetch32(AtomicOp.ADD, 1, buf, 24, base + 24, rk));
            await(a, b, ab.atomicCswap(i, i + 1, buf, 32, base + 16, rk));
            if ((i & 63) == 63) {
                await(a, b, ab.flush());
            }
        }
        await(a, b, ab.flush());
    }

    private static void check(final Status st) {
        if (st != Status.OK && st != Status.IN_PROGRESS) {
            throw new AssertionError("nbi: " + st);
        }
    }

    private static void await(final Worker a, final Worker b, final Request r) {
        long spins = 0;
        while (!r.isCompleted()) {
            a.progress();
            b.progress();
            if (++spins > 100_000_000L) {
                throw new AssertionError("request did not complete: " + r);
            }
        }
        if (r.status() != Status.OK) {
            throw new AssertionError("request: " + r.status());
        }
        r.release();
    }
}
