package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import weft.ucs.Status;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GET-based eager places a contiguous message in its slot at the source's page offset ({@link EagerGet}), and
 * every slot still holds the largest message at the largest offset, so messages lent at once never overlap,
 * whatever the offsets of their sources and of the receive buffers.
 */
@Timeout(60)
class EagerGetPlacementTest {
    private static final int MESSAGES = 8;

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 16, 64, 2048, 4032, 4095})
    void messagesLentTogetherStayWholeAtEverySourceOffset(final long firstOffset) {
        try (Context ctx = Context.builder().features(Feature.TAG).transports("shm", "self").build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            final long max = ctx.eagerGetMax;
            assertTrue(max >= 16384, "GET-based eager is on (" + max + ")");
            final MemorySegment src = arena.allocate(max + 8192, 4096);
            final MemorySegment dst = arena.allocate(max + 8192, 4096);
            // the endpoint's first eager-get message also sends the pool's key: one message first
            final Request first = b.recvTag(dst, 0, max, 99, -1L);
            ab.sendTag(99, src, firstOffset, max).release();
            TwoWorkers.settle(a, b, first);
            for (int m = 0; m < MESSAGES; m++) {
                final long off = offset(firstOffset, m); // neighbouring slots at different offsets
                fill(src, off, max, m);
                final Request s = ab.sendTag(m, src, off, max); // complete at once: the data is in a slot
                assertTrue(s.isCompleted(), "an eager-get send completes in the call");
                s.release();
            }
            assertTrue(a.eagerGetSlotsLent() >= MESSAGES, "the messages sit in slots of their own");
            for (int m = 0; m < MESSAGES; m++) {
                final long at = find(a.eagerGet.memory(), max + 4096, m);
                assertEquals(offset(firstOffset, m), at % 4096, "message " + m + " starts at its source's page offset");
            }
            final List<Request> recvs = new ArrayList<>();
            for (int m = 0; m < MESSAGES; m++) {
                recvs.add(b.recvTag(dst, (m * 61L) % 4096, max, m, -1L)); // receive buffers at other offsets
                final Request r = recvs.get(m);
                while (!r.isCompleted()) {
                    a.progress();
                    b.progress();
                }
                assertEquals(Status.OK, r.status());
                assertEquals(max, r.length());
                check(dst, (m * 61L) % 4096, max, m, offset(firstOffset, m));
                r.release();
            }
        }
    }

    private static long offset(final long first, final int m) {
        return (first + m * 1031L) % 4096;
    }

    /**
     * Where message {@code seed}'s first word lies in the sender's pool, looked for in the first page of each slot
     * ({@code stride} bytes apart: the largest message and a page).
     */
    private static long find(final MemorySegment pool, final long stride, final int seed) {
        for (long slot = 0; slot + stride <= pool.byteSize(); slot += stride) {
            for (long at = slot; at < slot + 4096; at++) {
                if (pool.get(ValueLayout.JAVA_LONG_UNALIGNED, at) == word(seed, 0)) {
                    return at;
                }
            }
        }
        throw new AssertionError("message " + seed + " does not start in the first page of a slot");
    }

    /** Word {@code i} of message {@code seed}: never 0, so a fresh pool holds none. */
    private static long word(final int seed, final long i) {
        return (seed + 1L) * 0x1_0000_0000L + i;
    }

    private static void fill(final MemorySegment s, final long off, final long n, final int seed) {
        for (long i = 0; i < n; i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, off + i, word(seed, i));
        }
    }

    private static void check(final MemorySegment s, final long off, final long n, final int seed, final long srcOffset) {
        for (long i = 0; i < n; i += 8) {
            final long v = s.get(ValueLayout.JAVA_LONG_UNALIGNED, off + i);
            if (v != word(seed, i)) {
                throw new AssertionError("message " + seed + " (source offset " + srcOffset + ") differs at byte " + i
                    + ": 0x" + Long.toHexString(v));
            }
        }
    }
}
