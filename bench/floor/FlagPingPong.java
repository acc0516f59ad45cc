import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * The floor of a shm put_lat ping-pong between two JVMs, with nothing of weft in it: side 1 waits for
 * the last byte of its page of a shared file, then copies 8 bytes into the other side's page; side 0
 * starts. Prints the one-way time (half a round trip) as ucx_perftest's put_lat does. Run by floor.sh.
 */
public final class FlagPingPong {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    public static void main(final String[] args) throws Exception {
        final int side = Integer.parseInt(args[0]);
        final long n = Long.parseLong(args[1]);
        final Path file = Path.of(args[2]);
        try (FileChannel ch = FileChannel.open(file, CREATE, READ, WRITE); Arena arena = Arena.ofShared()) {
            final MemorySegment map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8192, arena);
            final MemorySegment mine = map.asSlice(side == 0 ? 4096 : 0, 64);
            final MemorySegment peer = map.asSlice(side == 0 ? 0 : 4096, 64);
            final MemorySegment src = arena.allocate(64, 64);
            long t0 = 0;
            for (long i = 1; i <= n; i++) {
                if (i == n / 5) {
                    t0 = System.nanoTime(); // the first fifth warms up
                }
                final byte sn = (byte) i;
                if (side == 0) {
                    put(src, peer, sn);
                    await(mine, sn);
                } else {
                    await(mine, sn);
                    put(src, peer, sn);
                }
            }
            if (side == 0) {
                System.out.printf("java one-way %.4f us%n", (System.nanoTime() - t0) / 1e3 / (n - n / 5) / 2);
            }
        }
    }

    private static void put(final MemorySegment src, final MemorySegment peer, final byte sn) {
        src.set(ValueLayout.JAVA_BYTE, 7, sn);
        MemorySegment.copy(src, 0, peer, 0, 8);
    }

    private static void await(final MemorySegment mine, final byte sn) {
        while ((byte) BYTE.getAcquire(mine, 7L) != sn) {
            // a bare spin, as ucx_perftest's wait (whose body is a progress call, no pause)
        }
    }
}
