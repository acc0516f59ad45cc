package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Gets of a same-node peer's registered memory ({@code WEFT_SOFT_GET_THRESH}): cma reaches that memory with one
 * system call per get, so from the threshold (every size by default) they are emulated over the shm AM lane
 * and served by the target's progress; below it, and with {@code inf}, they stay on cma, which completes with
 * the initiator's progress alone. Memory the shm lane maps (allocated) never leaves its lane.
 */
@Timeout(60)
class SoftGetTest {
    private static final Config CFG = Config.global().with("KEEPALIVE_INTERVAL", "10m");
    private static final long LEN = 2L << 20;
    /** Progress calls of the initiator alone: far more than a cma get needs. */
    private static final int ALONE = 2000;

    @Test
    void defaultEmulatesEveryGetOfRegisteredMemory() {
        run(null, false, (a, b, ab, map, rk, arena) -> {
            assertTrue(rk.describe().startsWith("rma=cma/memory get>=0=emulated(shm/memory)"), rk.describe());
            final long cmaGets = cmaGets(ab);
            for (final long n : new long[] {1, 8, 4099, 65536, (1L << 20) + 3}) {
                final long at = 24 + n % 4096;
                final MemorySegment dst = arena.allocate(n, 64);
                TwoWorkers.settle(a, b, ab.get(dst, 0, n, map.address() + at, rk));
                check(dst, at, n);
                final MemorySegment nbi = arena.allocate(n, 64);
                final Status st = ab.getNbi(nbi, 0, n, map.address() + at + 1, rk);
                assertFalse(st.isError(), "getNbi " + n + ": " + st);
                TwoWorkers.settle(a, b, ab.flush());
                check(nbi, at + 1, n);
            }
            assertEquals(cmaGets, cmaGets(ab), "no get went over cma");
            // out of range: refused at the target
            final MemorySegment eight = arena.allocate(8);
            final Request bad = ab.get(eight, 0, 8, map.address() + LEN - 4, rk);
            while (!bad.isCompleted()) {
                a.progress();
                b.progress();
            }
            assertEquals(Status.OUT_OF_RANGE, bad.status());
            bad.release();
        });
    }

    @Test
    void belowTheThresholdGetsStayOnCma() {
        run("4k", false, (a, b, ab, map, rk, arena) -> {
            assertTrue(rk.describe().contains(" get>=4096=emulated(shm/memory)"), rk.describe());
            final long before = cmaGets(ab);
            final MemorySegment small = arena.allocate(4095, 64);
            TwoWorkers.settle(a, b, ab.get(small, 0, 4095, map.address() + 8, rk));
            check(small, 8, 4095);
            assertEquals(before + 1, cmaGets(ab), "a get below the threshold goes over cma");
            final MemorySegment big = arena.allocate(65536, 64);
            TwoWorkers.settle(a, b, ab.get(big, 0, 65536, map.address() + 16, rk));
            check(big, 16, 65536);
            assertEquals(before + 1, cmaGets(ab), "a get from the threshold is emulated");
        });
    }

    @Test
    void infKeepsGetsOnCmaWithoutTheTargetsProgress() {
        run("inf", false, (a, b, ab, map, rk, arena) -> {
            assertFalse(rk.describe().contains("get>="), rk.describe());
            final long before = cmaGets(ab);
            final MemorySegment dst = arena.allocate(65536, 64);
            final Request g = ab.get(dst, 0, 65536, map.address() + 40, rk);
            for (int i = 0; i < ALONE && !g.isCompleted(); i++) {
                a.progress(); // the target is never progressed
            }
            assertTrue(g.isCompleted(), "a cma get needs no progress at the target");
            assertEquals(Status.OK, g.status());
            g.release();
            check(dst, 40, 65536);
            assertEquals(before + 1, cmaGets(ab));
        });
    }

    @Test
    void mappedMemoryKeepsItsLane() {
        run(null, true, (a, b, ab, map, rk, arena) -> {
            assertTrue(rk.describe().startsWith("rma=shm/memory"), rk.describe());
            assertFalse(rk.describe().contains("get>="), rk.describe());
            final MemorySegment dst = arena.allocate(65536, 64);
            TwoWorkers.settle(a, b, ab.get(dst, 0, 65536, map.address() + 8, rk));
            check(dst, 8, 65536);
            // a short get is copied from the mapping inside the call (getShort): done at once, range-checked
            final Request g = ab.get(dst, 3, 8, map.address() + 77, rk);
            assertTrue(g.isCompleted(), "a get from a mapping completes inside the call");
            assertEquals(Status.OK, g.status());
            g.release();
            check(dst.asSlice(3), 77, 8);
            final Request bad = ab.get(dst, 0, 8, map.address() + LEN - 4, rk);
            assertTrue(bad.isCompleted());
            assertEquals(Status.OUT_OF_RANGE, bad.status(), "a get across the end of the mapping");
            bad.release();
        });
    }

    @Test
    void aTargetSleepingInWaitForEventsIsWokenToAnswer() throws Exception {
        try (Context ctx = Context.builder().features(Feature.RMA, Feature.AM, Feature.WAKEUP)
                 .transports("shm", "cma", "self").config(CFG).build();
             Worker a = ctx.newWorker(ThreadMode.SERIALIZED); Worker b = ctx.newWorker(ThreadMode.SERIALIZED);
             Arena arena = Arena.ofShared(); MemoryMap map = ctx.memMap(arena.allocate(LEN, 4096), 0)) {
            final Endpoint ab = connect(a, b);
            fill(map.segment());
            final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            final Thread target = new Thread(() -> {
                while (!stop.get()) {
                    if (b.progress() == 0) {
                        b.waitForEvents(100); // asleep until the get's request arrives
                    }
                }
            }, "soft-get-target");
            target.start();
            try (Rkey rk = ab.unpackRkey(map.packRkey())) {
                assertTrue(rk.describe().contains("=emulated("), rk.describe());
                for (final long n : new long[] {8, 65536, (1L << 20) + 5}) {
                    final MemorySegment dst = arena.allocate(n, 64);
                    final Request g = ab.get(dst, 0, n, map.address() + 16, rk);
                    while (!g.isCompleted()) {
                        a.progress(); // only the initiator here: the target's own thread answers
                    }
                    assertEquals(Status.OK, g.status());
                    g.release();
                    check(dst, 16, n);
                }
            } finally {
                stop.set(true);
                b.signal();
                target.join();
            }
        }
    }

    /** What a test does with two workers of one context over shm+cma+self and a key to b's memory. */
    private interface Body {
        void run(Worker a, Worker b, Endpoint ab, MemoryMap map, Rkey rk, Arena arena);
    }

    /** Runs {@code body} on registered (or shm-allocated) memory of b, {@code WEFT_SOFT_GET_THRESH} as given. */
    private static void run(final String thresh, final boolean allocated, final Body body) {
        final Config cfg = thresh == null ? CFG : CFG.with("SOFT_GET_THRESH", thresh);
        try (Context ctx = Context.builder().transports("shm", "cma", "self").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofShared();
             MemoryMap map = allocated ? ctx.memMap(LEN, 0) : ctx.memMap(arena.allocate(LEN, 4096), 0)) {
            final Endpoint ab = connect(a, b);
            fill(map.segment());
            try (Rkey rk = ab.unpackRkey(map.packRkey())) {
                body.run(a, b, ab, map, rk, arena);
            }
        }
    }

    private static Endpoint connect(final Worker a, final Worker b) {
        final Endpoint ab = a.connect(b.address());
        b.connect(a.address());
        TwoWorkers.settle(a, b, ab.flush());
        return ab;
    }

    private static long cmaGets(final Endpoint ep) {
        final var c = ep.laneCounters().get("cma/memory");
        return c == null ? 0 : c.getOrDefault(Counter.GETS, 0L);
    }

    /** Byte i of the region holds (i * 31 + 7) mod 256. */
    private static void fill(final MemorySegment s) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
    }

    private static void check(final MemorySegment got, final long at, final long n) {
        for (long i = 0; i < n; i++) {
            final byte want = (byte) ((at + i) * 31 + 7);
            if (got.get(ValueLayout.JAVA_BYTE, i) != want) {
                assertEquals(want, got.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of a get of " + n + " at " + at);
            }
        }
    }

}
