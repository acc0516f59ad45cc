package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(60)
class TagSmokeTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "shm,self", "tcp,self", "tcp"})
    void sizesAcrossThresholds(final String tls) {
        try (Context ctx = Context.builder().transports(tls.split(",")).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            System.out.println(tls + ":\n" + ab.describe());
            for (final long size : new long[] {0, 1, 8, 100, 1000, 5000, 9000, 20000, 100_000, 300_000, 3_000_000}) {
                final MemorySegment src = arena.allocate(size + 1);
                final MemorySegment dst = arena.allocate(size + 1);
                for (long i = 0; i < size; i++) {
                    src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
                }
                final Request rr = b.recvTag(dst, 0, size, 77, -1L);
                final Request sr = ab.sendTag(77, src, 0, size);
                final long deadline = System.nanoTime() + 20_000_000_000L;
                while (!(rr.isCompleted() && sr.isCompleted())) {
                    a.progress();
                    b.progress();
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("size " + size + " did not complete: " + rr + " " + sr);
                    }
                }
                assertEquals(Status.OK, rr.status(), "recv " + size);
                assertEquals(Status.OK, sr.status(), "send " + size);
                assertEquals(-1, src.asSlice(0, size).mismatch(dst.asSlice(0, size)), "data " + size);
                rr.release();
                sr.release();
            }
        }
    }
}
