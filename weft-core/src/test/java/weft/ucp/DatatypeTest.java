package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.IoVector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Datatype arguments are checked; iov and generic also work over the self lane (a worker to itself). */
@Timeout(30)
class DatatypeTest {
    private static final GenericDatatype BYTES = new GenericDatatype() {
        @Override
        public void pack(final Object s, final long p, final MemorySegment d, final long o, final long n) {
            MemorySegment.copy((MemorySegment) s, p, d, o, n);
        }

        @Override
        public void unpack(final Object s, final long p, final MemorySegment src, final long o, final long n) {
            MemorySegment.copy(src, o, (MemorySegment) s, p, n);
        }
    };

    @Test
    void badDatatypeArgumentsAreRejected() {
        try (Context ctx = Context.builder().transports("self").build(); Worker w = ctx.newWorker()) {
            final Endpoint ep = w.connect(w.address());
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                () -> ep.sendTag(1, (IoVector) null, null)).status());
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                () -> ep.sendTag(1, null, null, 8, null)).status());
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                () -> ep.sendTag(1, BYTES, null, -1, null)).status());
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                () -> w.recvTag((IoVector) null, 1, -1L, null, null)).status());
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                () -> w.recvTag(BYTES, null, -5, 1, -1L, null, null)).status());
            assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                () -> w.recvTag(null, null, 5, 1, -1L, null, null)).status());
        }
    }

    @Test
    void iovToGenericAndBackOverSelf() {
        try (Context ctx = Context.builder().transports("self").build(); Worker w = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Endpoint ep = w.connect(w.address());
            for (final long n : new long[] {5, 100, 8193, 300_000}) {
                final MemorySegment src = arena.allocate(n);
                for (long i = 0; i < n; i++) {
                    src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + n));
                }
                final MemorySegment mid = arena.allocate(n);
                final MemorySegment dst = arena.allocate(n);
                final Request r1 = w.recvTag(BYTES, mid, n, 9, -1L, null, null);
                final Request s1 = ep.sendTag(9, new IoVector(3).add(src, 0, 1).add(src, 1, n / 2 - 1)
                    .add(src, n / 2, n - n / 2), null);
                assertEquals(Status.OK, r1.await(), "iov -> generic " + n);
                assertEquals(Status.OK, s1.await());
                final Request s2 = ep.sendTag(10, BYTES, mid, n, null);
                final Request r2 = w.recvTag(new IoVector(2).add(dst, 0, n - 3).add(dst, n - 3, 3), 10, -1L, null,
                    null);
                assertEquals(Status.OK, r2.await(), "generic -> iov " + n);
                assertEquals(Status.OK, s2.await());
                assertEquals(-1, src.mismatch(dst), "data " + n);
                r1.release();
                s1.release();
                r2.release();
                s2.release();
            }
        }
    }
}
