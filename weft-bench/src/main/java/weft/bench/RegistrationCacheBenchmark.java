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
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.Transports;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cost of one register + deregister pair in each memory domain that registers (tcp, cma, self), as the
 * rendezvous path pays per large send and {@code memMap(segment)} per map:
 * <ul>
 *   <li>{@code cached}: the buffer lies inside memory that is registered already (a heap mapped once):
 *   the registration cache answers with a lookup and a reference;</li>
 *   <li>{@code uncached}: nothing covers the buffer, so the domain makes and revokes a registration
 *   every time (what every registration would cost without the cache).</li>
 * </ul>
 * {@code live} other registrations are held meanwhile (a process with many regions). Run with
 * {@code ./weft jmh RegistrationCache}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class RegistrationCacheBenchmark {
    @Param({"tcp", "cma", "self"})
    public String transport;

    @Param({"16", "256"})
    public int live;

    private MemoryDomain md;
    private Arena arena;
    private MemorySegment heap;
    private MemorySegment buffer;
    private MemorySegment outside;
    private MemoryHandle heapHandle;
    private final List<MemoryHandle> others = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() {
        md = Transports.byName(transport).memoryDomain();
        arena = Arena.ofShared();
        heap = arena.allocate(1 << 20, 4096);
        buffer = heap.asSlice(64 << 10, 64 << 10);
        outside = arena.allocate(64 << 10, 4096);
        heapHandle = md.register(heap);
        for (int i = 0; i < live; i++) {
            others.add(md.register(arena.allocate(4096, 4096)));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (final MemoryHandle h : others) {
            md.deregister(h);
        }
        others.clear();
        md.deregister(heapHandle);
        arena.close();
    }

    /** Register + deregister a buffer inside registered memory: a cache hit. */
    @Benchmark
    public MemoryHandle cached() {
        final MemoryHandle h = md.register(buffer);
        md.deregister(h);
        return h;
    }

    /** Register + deregister a buffer nothing covers: a full registration and revocation. */
    @Benchmark
    public MemoryHandle uncached() {
        final MemoryHandle h = md.register(outside);
        md.deregister(h);
        return h;
    }
}
