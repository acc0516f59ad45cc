package weft.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.Request;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * CPU cost per 8-byte tag message over shm in one thread (what perftest's tag_bw streams): a burst of
 * {@value #BURST} eager short sends, then the receiver progresses and receives them (unexpected, as a
 * receiver that lags behind a streaming sender). The sum of the sender's and the receiver's work per
 * message; on two cores each side has about half of it. {@code ./weft jmh UcpTagOps -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class UcpTagOpsBenchmark {
    static final int BURST = 16;
    private static final long TAG = 0x1234;

    private Context ctx;
    private Worker a;
    private Worker b;
    private Endpoint ep;
    private Arena arena;
    private MemorySegment src;
    private MemorySegment dst;
    private final Request[] posted = new Request[BURST];

    @Setup(Level.Trial)
    public void setUp() {
        final Config cfg = Config.global().with("KEEPALIVE_INTERVAL", "10m");
        ctx = Context.builder().features(Feature.values()).transports("shm").config(cfg).build();
        a = ctx.newWorker();
        b = ctx.newWorker();
        ep = a.connect(b.address());
        b.connect(a.address());
        arena = Arena.ofConfined();
        src = arena.allocate(64, 64);
        dst = arena.allocate(64, 64);
        for (int i = 0; i < 100; i++) {
            a.progress();
            b.progress();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        a.close();
        b.close();
        ctx.close();
        arena.close();
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int sendThenReceive() {
        sendBurst();
        long spins = 0;
        for (int i = 0; i < BURST; i++) {
            // done at once when the message is buffered
            spins = awaitReceive(b.recvTag(dst, 0, 8, TAG, -1L), spins);
        }
        return BURST;
    }

    /**
     * The expected path, as tag_bw's receiver runs it: BURST receives posted first, then the sends,
     * then the receiver's progress matches each arriving message against a posted receive.
     */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public int postThenSend() {
        for (int i = 0; i < BURST; i++) {
            posted[i] = b.recvTag(dst, 0, 8, TAG, -1L);
        }
        sendBurst();
        long spins = 0;
        for (int i = 0; i < BURST; i++) {
            spins = awaitReceive(posted[i], spins);
        }
        return BURST;
    }

    /** BURST 8-byte sends, each done at once (eager short). */
    private void sendBurst() {
        for (int i = 0; i < BURST; i++) {
            final Request r = ep.sendTag(TAG, src, 0, 8);
            if (!r.isCompleted()) {
                throw new IllegalStateException("send did not complete at once: " + r);
            }
        }
    }

    /** Progresses the receiver until {@code r} completes, checks and releases it; returns the spins so far. */
    private long awaitReceive(final Request r, final long spinsSoFar) {
        long spins = spinsSoFar;
        while (!r.isCompleted()) {
            b.progress();
            if (++spins > 100_000_000L) {
                throw new IllegalStateException("stalled");
            }
        }
        if (r.status() != Status.OK) {
            throw new IllegalStateException("receive failed: " + r.status());
        }
        r.release();
        return spins;
    }
}
