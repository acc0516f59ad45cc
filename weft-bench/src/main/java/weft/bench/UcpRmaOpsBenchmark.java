package weft.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AtomicOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * Per-call cost of weft.ucp's blocking one-sided operations of 8 bytes over shm (what perftest's
 * {@code ucp_get} and {@code ucp_fadd} issue), against the floor: the same access as a plain copy or
 * VarHandle atomic on the peer's mapping ({@link Rkey#ptr}). One process, two workers; the operations
 * complete inside the call, so the difference is the protocol layer's own work per operation.
 * {@code ./weft jmh UcpRmaOps -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class UcpRmaOpsBenchmark {
    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();

    private Context ctx;
    private Worker a;
    private Worker b;
    private MemoryMap region;
    private Endpoint ep;
    private Rkey rkey;
    private Arena arena;
    private MemorySegment dst;
    private MemorySegment mapped;
    private long remote;

    @Setup(Level.Trial)
    public void setUp() {
        final Config cfg = Config.global().with("KEEPALIVE_INTERVAL", "10m");
        ctx = Context.builder().features(Feature.values()).transports("shm").config(cfg).build();
        a = ctx.newWorker();
        b = ctx.newWorker();
        region = ctx.memMap(4096, 0);
        ep = a.connect(b.address());
        rkey = ep.unpackRkey(region.packRkey());
        remote = region.address();
        mapped = rkey.ptr(remote, 8);
        arena = Arena.ofConfined();
        dst = arena.allocate(64, 64);
        for (int i = 0; i < 100; i++) {
            a.progress();
            b.progress();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rkey.close();
        a.close();
        b.close();
        region.close();
        ctx.close();
        arena.close();
    }

    @Benchmark
    public long rawFadd() {
        final long old = (long) I64.getAndAdd(mapped, 0L, 1L);
        dst.set(ValueLayout.JAVA_LONG, 0, old);
        return old;
    }

    @Benchmark
    public long rawGet8() {
        MemorySegment.copy(mapped, 0, dst, 0, 8);
        return dst.get(ValueLayout.JAVA_LONG, 0);
    }

    @Benchmark
    public Status ucpFadd() {
        final Request r = ep.atomicFetch(AtomicOp.ADD, 1L, dst, 0, remote, rkey);
        return finish(r);
    }

    @Benchmark
    public Status ucpGet8() {
        final Request r = ep.get(dst, 0, 8, remote, rkey);
        return finish(r);
    }

    @Benchmark
    public Status ucpPutNbi8() {
        return ep.putNbi(dst, 0, 8, remote, rkey);
    }

    /** One idle round of progress: what a waiting loop (a put_lat ping-pong) pays between two looks. */
    @Benchmark
    public int idleProgress() {
        return a.progress();
    }

    private Status finish(final Request r) {
        while (!r.isCompleted()) {
            a.progress();
        }
        final Status st = r.status();
        r.release();
        return st;
    }
}
