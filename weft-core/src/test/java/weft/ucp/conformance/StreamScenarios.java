package weft.ucp.conformance;

import weft.ucs.Status;
import weft.ucp.Endpoint;
import weft.ucp.Request;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stream scenarios; each is run by {@link StreamConformanceTest} over every transport set and mode. */
public final class StreamScenarios {
    private StreamScenarios() {
    }

    /** Receives exactly {@code n} bytes into {@code dst} with receives of at most {@code piece} (not wait-all). */
    static void recvInPieces(final Pe pe, final MemorySegment dst, final long n, final long piece) {
        long got = 0;
        while (got < n) {
            final long want = Math.min(piece, n - got);
            final Request q = pe.ep().recvStream(dst, got, want, false);
            assertEquals(Status.OK, pe.await(q), "stream piece at " + got);
            final long k = q == Request.done(Status.OK) ? want : q.length();
            assertTrue(k > 0 && k <= want, "partial length " + k + " of " + want);
            q.release();
            got += k;
        }
    }

    /**
     * Many small sends received by one wait-all receive; one large send received by many small partial
     * receives; a partial receive completing with fewer bytes than asked; bytes that arrived before the
     * receive (pollStreams lists the endpoint); both directions. Byte order is checked everywhere.
     */
    public static final class PartialAndWaitAll implements Scenario {
        @Override
        public void run(final Pe pe) {
            final Endpoint ep = pe.ep();
            final Endpoint[] ready = new Endpoint[4];
            for (int dir = 0; dir < 2; dir++) {
                final boolean sender = pe.rank() == dir;
                final int seed = 40 + dir;
                // 1. many small sends (sizes 1..300, mixed short and bcopy), one wait-all receive
                final long total = 200 * 151;
                if (sender) {
                    final MemorySegment src = pe.pattern(total, seed);
                    long at = 0;
                    for (int i = 0; at < total; i++) {
                        final long n = Math.min(total - at, 1 + (i * 37) % 300);
                        final Request q = ep.sendStream(src, at, n);
                        assertEquals(Status.OK, pe.await(q), "small send " + i);
                        q.release();
                        at += n;
                    }
                } else {
                    final MemorySegment dst = pe.arena().allocate(total, 64);
                    final Request q = ep.recvStream(dst, 0, total, true);
                    assertEquals(Status.OK, pe.await(q), "wait-all receive");
                    if (q != Request.done(Status.OK)) {
                        assertEquals(total, q.length(), "wait-all length");
                    }
                    q.release();
                    Pe.checkPattern(dst, total, seed, "many small sends");
                }
                pe.barrier();
                // 2. one large send (several windows), received in partial pieces of 1000
                final long big = (3L << 20) + 17;
                if (sender) {
                    final Request q = ep.sendStream(pe.pattern(big, seed + 1), 0, big);
                    assertEquals(Status.OK, pe.await(q), "large send");
                    q.release();
                } else {
                    final MemorySegment dst = pe.arena().allocate(big, 64);
                    recvInPieces(pe, dst, big, 1000);
                    Pe.checkPattern(dst, big, seed + 1, "large send in pieces");
                }
                pe.barrier();
                // 3. bytes before the receive: pollStreams lists the endpoint; a partial receive gets them
                if (sender) {
                    final Request q = ep.sendStream(pe.pattern(10, seed + 2), 0, 10);
                    assertEquals(Status.OK, pe.await(q), "10-byte send");
                    q.release();
                    pe.barrier();
                } else {
                    pe.barrier();
                    final long deadline = System.nanoTime() + (long) (Pe.WAIT_SECONDS * 1e9);
                    int n;
                    while ((n = pe.worker().pollStreams(ready)) == 0 && System.nanoTime() < deadline) {
                        pe.worker().progress();
                    }
                    assertEquals(1, n, "endpoints with stream data");
                    assertSame(ep, ready[0], "the ready endpoint");
                    final MemorySegment dst = pe.arena().allocate(100, 64);
                    final Request q = ep.recvStream(dst, 0, 100, false);
                    assertTrue(q.isCompleted(), "buffered bytes complete a partial receive at once");
                    assertEquals(10, q.length(), "partial length");
                    q.release();
                    Pe.checkPattern(dst, 10, seed + 2, "partial receive");
                    assertEquals(0, pe.worker().pollStreams(ready), "no stream data left");
                }
                // 4. a posted partial receive, then a wait-all one spanning two sends
                final MemorySegment dst = pe.arena().allocate(64, 64);
                Request posted = null;
                if (!sender) {
                    posted = ep.recvStream(dst, 0, 64, false);
                }
                pe.barrier();
                if (sender) {
                    final MemorySegment src = pe.pattern(40, seed + 3);
                    Request q = ep.sendStream(src, 0, 7);
                    pe.await(q);
                    q.release();
                    pe.barrier(); // the receiver saw 7 bytes
                    q = ep.sendStream(src, 7, 20);
                    pe.await(q);
                    q.release();
                    q = ep.sendStream(src, 27, 13);
                    pe.await(q);
                    q.release();
                } else {
                    assertEquals(Status.OK, pe.await(posted), "posted partial receive");
                    assertEquals(7, posted.length(), "posted partial length");
                    posted.release();
                    pe.barrier();
                    final Request q = ep.recvStream(dst, 7, 33, true);
                    assertEquals(Status.OK, pe.await(q), "wait-all over two sends");
                    q.release();
                    Pe.checkPattern(dst, 40, seed + 3, "partial then wait-all");
                }
                pe.barrier();
            }
        }
    }

    /**
     * Zero-copy receive: three stream windows sent in pieces of 1 B..70 KB are read through
     * {@code recvStreamData} views (read-only, in order) and released, which must move the sender's
     * window; the tail then arrives through a normal wait-all receive; over-releasing is refused.
     */
    public static final class ZeroCopyReceive implements Scenario {
        @Override
        public void run(final Pe pe) {
            final Endpoint ep = pe.ep();
            final long total = 3L << 20;
            final long tail = 100_000;
            final int seed = 9;
            if (pe.rank() == 0) {
                final MemorySegment src = pe.pattern(total, seed);
                final java.util.List<Request> rs = new java.util.ArrayList<>();
                long at = 0;
                for (int i = 0; at < total; i++) {
                    final long n = Math.min(total - at, 1 + (i * 7919L) % 70_000);
                    rs.add(ep.sendStream(src, at, n));
                    at += n;
                }
                for (final Request q : rs) {
                    assertEquals(Status.OK, pe.await(q), "stream send");
                    q.release();
                }
            } else {
                final MemorySegment want = pe.pattern(total, seed);
                long got = 0;
                int views = 0;
                final long deadline = System.nanoTime() + 60_000_000_000L;
                while (got < total - tail) {
                    pe.worker().progress();
                    final MemorySegment d = ep.recvStreamData();
                    if (d == null) {
                        assertTrue(System.nanoTime() < deadline, "zero-copy receive stalled at " + got);
                        continue;
                    }
                    assertTrue(d.isReadOnly(), "the view is read-only");
                    final long n = Math.min(d.byteSize(), total - tail - got);
                    assertEquals(-1L, MemorySegment.mismatch(d, 0, n, want, got, got + n), "bytes at " + got);
                    ep.releaseStreamData(n);
                    got += n;
                    views++;
                }
                final MemorySegment rest = pe.arena().allocate(tail, 64);
                final Request q = ep.recvStream(rest, 0, tail, true);
                assertEquals(Status.OK, pe.await(q), "the tail after zero-copy views");
                q.release();
                assertEquals(-1L, MemorySegment.mismatch(rest, 0, tail, want, total - tail, total), "tail bytes");
                assertTrue(views > 0, "views");
                assertEquals(Status.INVALID_PARAM, org.junit.jupiter.api.Assertions.assertThrows(
                    weft.ucs.WeftException.class, () -> ep.releaseStreamData(1)).status(), "nothing left to release");
            }
            pe.barrier();
        }
    }

    /** {@code seg[0, n)} as uneven iov entries (an empty one included), cut differently for {@code other}. */
    static weft.uct.IoVector cut(final MemorySegment seg, final long n, final boolean other) {
        final weft.uct.IoVector v = new weft.uct.IoVector(4);
        final long a = Math.min(n, other ? 3 : n / 3);
        final long b = Math.min(n - a, other ? n / 2 : 7);
        return v.add(seg, 0, a).add(seg, a, 0).add(seg, a, b).add(seg, a + b, n - a - b);
    }

    /**
     * Gather sends and scatter receives ({@code IoVector}) of 1 B to several windows, expected (receive posted
     * first) and unexpected (bytes buffered first), against contiguous peers, cut differently on each side;
     * a partial scatter receive. Byte order is checked everywhere.
     */
    public static final class Iov implements Scenario {
        private static final long[] SIZES = {1, 40, 5000, 70_000, (2L << 20) + 3};
        /**
         * Below the default stream window (1 MiB): such a send completes before any receive. A larger one waits
         * for the receiver in the endpoint's ordered send queue, and so does anything sent after it.
         */
        private static final long WITHIN_WINDOW = 512 << 10;

        @Override
        public void run(final Pe pe) {
            final Endpoint ep = pe.ep();
            for (int round = 0; round < 2; round++) {
                final boolean expected = round == 0;
                for (int i = 0; i < SIZES.length; i++) {
                    final long n = SIZES[i];
                    if (!expected && n > WITHIN_WINDOW) {
                        continue; // beyond a window the send waits for the receive, and the barrier behind it
                    }
                    final int seed = 60 + 10 * round + i;
                    if (pe.rank() == 0) {
                        // expected: the receive is posted before the data leaves; unexpected: the data (up to
                        // a window) waits at the receiver before the receive is posted
                        if (expected) {
                            pe.barrier();
                        }
                        final MemorySegment src = pe.pattern(n, seed);
                        final Request q = i % 2 == 0 ? ep.sendStream(cut(src, n, false), null)
                            : ep.sendStream(src, 0, n);
                        if (!expected) {
                            assertEquals(Status.OK, pe.await(q), "iov send of " + n + " before the receive");
                            pe.barrier();
                        }
                        assertEquals(Status.OK, pe.await(q), "iov send of " + n);
                        q.release();
                    } else {
                        final MemorySegment dst = pe.arena().allocate(n, 64);
                        if (!expected) {
                            pe.barrier();
                        }
                        final Request q = ep.recvStream(cut(dst, n, true), true, null);
                        if (expected) {
                            pe.barrier();
                        }
                        assertEquals(Status.OK, pe.await(q), "iov receive of " + n);
                        assertEquals(n, q.length(), "iov receive length");
                        q.release();
                        Pe.checkPattern(dst, n, seed, (expected ? "expected" : "unexpected") + " iov " + n);
                    }
                    pe.barrier();
                }
            }
            // a partial scatter receive: 100 bytes sent, a 1000-byte iov without wait-all gets them
            if (pe.rank() == 0) {
                final Request q = ep.sendStream(pe.pattern(100, 99), 0, 100);
                assertEquals(Status.OK, pe.await(q));
                q.release();
            } else {
                final MemorySegment dst = pe.arena().allocate(1000, 64);
                long got = 0;
                while (got < 100) {
                    final Request q = ep.recvStream(weft.uct.IoVector.of(dst, got, 1000 - got), false, null);
                    assertEquals(Status.OK, pe.await(q));
                    assertTrue(q.length() > 0 && q.length() <= 100 - got, "partial iov length " + q.length());
                    got += q.length();
                    q.release();
                }
                Pe.checkPattern(dst, 100, 99, "partial iov receive");
            }
            pe.barrier();
        }
    }
}
