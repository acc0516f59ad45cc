package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;
import weft.uct.AtomicOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Put-with-signal ({@link Endpoint#putSignalNbi}) keeps its order at the target on every transport: a reader
 * thread spinning on the signal word, which sees round {@code r}'s signal, finds every byte of round {@code r}'s
 * data in place (a signal that overtook its data would show the previous round's bytes). The signal is an ADD of
 * 1 or a SWAP (a posted set) to the round number. Puts up to a segment (tcp copies them into its frame) go
 * through the fused lane operation (one transport operation, counted by {@link Counter#PUT_SIGNALS}); longer ones
 * on tcp through the put, a fence and the signal.
 */
@Timeout(120)
class PutSignalOrderTest {
    private static final Config CFG = Config.global().with("KEEPALIVE_INTERVAL", "10m");
    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();
    private static final long DATA = 64;

    @ParameterizedTest(name = "{0} {1} bytes, {2}")
    @CsvSource({"tcp, 0, ADD", "tcp, 1, ADD", "tcp, 61, ADD", "tcp, 4096, ADD", "tcp, 65536, ADD",
                "tcp, 1048576, ADD", "tcp, 0, SWAP", "tcp, 61, SWAP", "tcp, 8192, SWAP", "tcp, 65536, SWAP",
                "shm, 0, ADD", "shm, 1, ADD", "shm, 61, ADD", "shm, 65536, ADD", "shm, 1048576, ADD",
                "shm, 61, SWAP", "shm, 65536, SWAP"})
    void readerThatSeesTheSignalSeesTheData(final String tl, final int size, final AtomicOp op)
        throws InterruptedException {
        final int rounds = size > 4096 ? 30 : 300;
        try (Context ctx = Context.builder().transports(tl, "self").config(CFG).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofShared();
             MemoryMap heap = ctx.memMap(DATA + Math.max(size, 8), 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            final long base = heap.address();
            final MemorySegment src = arena.allocate(Math.max(size, 1), 64);
            final MemorySegment target = heap.segment();
            final AtomicLong seen = new AtomicLong();
            final AtomicReference<String> failure = new AtomicReference<>();
            final Thread reader = Thread.ofPlatform().name("signal-reader").start(() -> {
                final MemorySegment expected = Arena.ofAuto().allocate(Math.max(size, 1));
                for (long r = 1; r <= rounds && failure.get() == null; r++) {
                    long sig;
                    while ((sig = (long) I64.getVolatile(target, 0L)) < r && failure.get() == null) {
                        Thread.onSpinWait();
                    }
                    if (sig != r) {
                        failure.compareAndSet(null, "signal " + sig + " in round " + r);
                        return;
                    }
                    expected.fill((byte) r);
                    final long at = MemorySegment.mismatch(target, DATA, DATA + size, expected, 0, size);
                    if (at >= 0) {
                        failure.compareAndSet(null, "round " + r + ": byte " + at + " is "
                            + target.get(ValueLayout.JAVA_BYTE, DATA + at) + " when the signal was seen");
                        return;
                    }
                    seen.set(r);
                }
            });
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                TwoWorkers.settle(a, b, ab.flush());
                final long fusedBefore = fused(ab);
                for (int r = 1; r <= rounds && failure.get() == null; r++) {
                    src.fill((byte) r);
                    final Status st = ab.putSignalNbi(src, 0, size, base + DATA, rk, op, op == AtomicOp.ADD ? 1 : r,
                        base, rk);
                    assertFalse(st.isError(), "round " + r + ": " + st);
                    while (seen.get() < r && failure.get() == null) {
                        a.progress();
                        b.progress();
                    }
                    TwoWorkers.settle(a, b, ab.flush()); // the source is the next round's
                }
                assertNull(failure.get());
                assertEquals(rounds, (long) I64.getVolatile(target, 0L));
                if (size <= 8192 || tl.equals("shm")) {
                    assertEquals(rounds, fused(ab) - fusedBefore, "puts up to a segment with their signal in one operation");
                }
            } finally {
                failure.compareAndSet(null, "stopped");
                reader.join();
            }
        }
    }

    private static long fused(final Endpoint ep) {
        long n = 0;
        for (final Map<Counter, Long> c : ep.laneCounters().values()) {
            n += c.getOrDefault(Counter.PUT_SIGNALS, 0L);
        }
        return n;
    }

}
