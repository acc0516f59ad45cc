package weft.ucp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Choosing a rail allocates nothing: 8-byte putNbi/getNbi over two tcp rails under every lane policy,
 * flushed every 64 operations, in steady state; nor does striping a large put or get over both rails.
 * Two workers in one JVM, one thread progressing both.
 */
@Timeout(90)
@Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
class RailsAllocationTest {
    private static final int N = 10_240;
    private static final long LIMIT = 400;

    @AfterEach
    void clear() {
        System.clearProperty("weft.tcp_rails");
    }

    @ParameterizedTest
    @ValueSource(strings = {"fixed", "rr", "lu"})
    void smallPutGetOnRailsAllocatesNothing(final String policy) {
        System.setProperty("weft.tcp_rails", "2");
        final Config cfg = Config.global().with("LANE_POLICY", policy).with("MAX_RMA_RAILS", "2")
            .with("KEEPALIVE_INTERVAL", "10m");
        try (Context ctx = Context.builder().features(Feature.values()).transports("tcp", "self").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(4096, 0)) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment buf = arena.allocate(512, 8);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                assertEquals(2, rk.rails.length, rk.describe());
                AllocationMeter.fewestBytes(policy + ": " + N + " 8-byte put+get on two rails", () -> {
                    final long sum = round(a, b, ab, rk, buf, heap);
                    assertEquals((long) N * (N - 1) / 2, sum, "values read back");
                }, LIMIT, 30_000);
                assertTrue(a.progress() >= 0);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"put", "get"})
    void stripedPutGetAllocatesNothing(final String op) {
        System.setProperty("weft.tcp_rails", "2");
        final int size = 256 << 10; // four 64 KiB shares: striped over both rails
        final int ops = 64;
        final Config cfg = Config.global().with("MAX_RMA_RAILS", "2").with("KEEPALIVE_INTERVAL", "10m");
        try (Context ctx = Context.builder().features(Feature.values()).transports("tcp", "self").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(size, 0)) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment buf = arena.allocate(size, 8);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                assertEquals(2, rk.rails.length, rk.describe());
                // a tcp endpoint keeps a get's iov entries in its op slot's own iov, made at the slot's first
                // use: 1024 slots per rail, 64 gets per window, so the first 16 windows fill them
                AllocationMeter.fewestBytes(op + ": " + ops + " striped " + size + "-byte operations", () -> {
                    for (int i = 0; i < ops; i++) {
                        buf.set(ValueLayout.JAVA_LONG, size - 8, i);
                        check(op.equals("put") ? ab.putNbi(buf, 0, size, rk.base(), rk)
                            : ab.getNbi(buf, 0, size, rk.base(), rk));
                        flush(a, b, ab);
                    }
                }, LIMIT, 30_000);
            }
        }
    }

    private static long round(final Worker a, final Worker b, final Endpoint ab, final Rkey rk,
                              final MemorySegment buf, final MemoryMap heap) {
        long sum = 0;
        for (int i = 0; i < N; i += 32) {
            for (int j = 0; j < 32; j++) {
                buf.set(ValueLayout.JAVA_LONG, 8L * j, i + j);
                check(ab.putNbi(buf, 8L * j, 8, rk.base() + 8L * j, rk));
            }
            flush(a, b, ab);
            for (int j = 0; j < 32; j++) {
                check(ab.getNbi(buf, 256 + 8L * j, 8, rk.base() + 8L * j, rk));
            }
            flush(a, b, ab);
            for (int j = 0; j < 32; j++) {
                sum += buf.get(ValueLayout.JAVA_LONG, 256 + 8L * j);
            }
        }
        return sum;
    }

    private static void check(final Status st) {
        if (st.isError()) {
            throw new AssertionError("operation failed: " + st);
        }
    }

    private static void flush(final Worker a, final Worker b, final Endpoint ab) {
        final Request f = ab.flush();
        long spins = 0;
        while (!f.isCompleted()) {
            a.progress();
            b.progress();
            if (++spins > 100_000_000L) {
                throw new AssertionError("flush did not complete");
            }
        }
        if (f.status() != Status.OK) {
            throw new AssertionError("flush: " + f.status());
        }
        f.release();
    }
}
