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
import weft.ucs.memory.MemoryCopy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * One copy between two native segments, {@link MemoryCopy} against {@link MemorySegment#copy}, by size and
 * by how far the destination lies ahead of the source modulo 4 KiB ({@code distance}): 0 (both page
 * aligned), 8 (a payload behind an 8-byte header copied from an aligned buffer: glibc's slow case, which
 * MemoryCopy leaves to the JDK) and 64. Both segments stay in the cache (the copies of a message path).
 * Run with {@code ./weft jmh MemoryCopy}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class MemoryCopyBenchmark {
    @Param({"2048", "8184", "65536"})
    public int size;

    @Param({"0", "8", "64"})
    public int distance;

    private Arena arena;
    private MemorySegment src;
    private MemorySegment dst;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofConfined();
        src = arena.allocate(size + 4096, 4096);
        dst = arena.allocate(size + 4096, 4096);
        src.fill((byte) 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public MemorySegment weft() {
        MemoryCopy.copy(src, 0, dst, distance, size);
        return dst;
    }

    @Benchmark
    public MemorySegment jdk() {
        MemorySegment.copy(src, 0, dst, distance, size);
        return dst;
    }
}
