package weft.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.Device;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;
import weft.uct.Unpacker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Per-operation cost of the UCT short paths in one process (two interfaces of the same transport,
 * or one for self). Run with the GC profiler to see bytes allocated per operation:
 * {@code ./weft jmh TransportOpsBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class TransportOpsBenchmark {
    @Param({"self", "shm"})
    public String transport;

    private UctWorker worker;
    private Interface sender;
    private Interface receiver;
    private Endpoint ep;
    private MemoryHandle region;
    private RemoteKey rkey;
    private Arena arena;
    private MemorySegment src;
    private MemorySegment result;
    private long received;
    private final CopyUnpacker unpacker = new CopyUnpacker();

    /** Copies what a get reads into {@link #src}, as the perftest's bcopy get does. */
    private final class CopyUnpacker implements Unpacker {
        @Override
        public void unpack(final MemorySegment from, final long offset, final long length) {
            MemorySegment.copy(from, offset, src, 0, length);
        }
    }

    @Setup(Level.Trial)
    public void setup() {
        final Transport t = Transports.byName(transport);
        final Device d = t.devices().get(0);
        worker = new UctWorker();
        sender = t.openInterface(worker, d, InterfaceParams.defaults());
        // a second interface where the transport can reach one (self reaches only itself)
        final Interface other = t.openInterface(worker, d, InterfaceParams.defaults());
        if (sender.isReachable(other.deviceAddress(), other.interfaceAddress())) {
            receiver = other;
        } else {
            other.close();
            receiver = sender;
        }
        receiver.setAmHandler(1, (data, off, len, flags) -> {
            received++;
            return Status.OK;
        });
        ep = sender.connect(receiver.deviceAddress(), receiver.interfaceAddress());
        region = t.memoryDomain().allocate(4096);
        rkey = t.memoryDomain().unpackRkey(t.memoryDomain().packRkey(region));
        arena = Arena.ofConfined();
        src = arena.allocate(64, 8);
        result = arena.allocate(8, 8);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rkey.close();
        region.domain().deregister(region);
        worker.close();
        arena.close();
    }

    @Benchmark
    public long amShort8() {
        while (ep.amShort(1, 42L, src, 0, 8) == Status.NO_RESOURCE) {
            worker.progress();
        }
        worker.progress();
        return received;
    }

    @Benchmark
    public Status putShort8() {
        return ep.putShort(src, 0, 8, region.address() + 64, rkey);
    }

    @Benchmark
    public long fetchAdd64() {
        ep.atomic64Fetch(AtomicOp.ADD, 1, result, 0, region.address(), rkey, null);
        worker.progress();
        return result.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
    }

    @Benchmark
    public Status getBcopy8() {
        return ep.getBcopy(unpacker, 8, region.address() + 64, rkey, null);
    }

    /** The floor the data paths are compared with: an 8-byte copy out of the mapped region. */
    @Benchmark
    public MemorySegment rawCopy8() {
        MemorySegment.copy(region.segment(), 64, src, 0, 8);
        return src;
    }

    /** What the perftest's per-iteration time stamp costs here. */
    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
