package weft.ucp.conformance;

import weft.ucs.Status;
import weft.ucp.Request;
import weft.ucp.RequestCallback;
import weft.ucp.TagInfo;
import weft.ucp.TagMessage;
import weft.uct.IoVector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tag-matching scenarios; each is run by {@link TagConformanceTest} over every transport set and mode. */
public final class TagScenarios {
    private TagScenarios() {
    }

    /**
     * Rendezvous forced to get ({@code weft.rndv_scheme=get}): the data is striped over every rendezvous
     * lane by bandwidth weight (over tcp: lo and the other devices when there are any).
     */
    public static final class StripedGet implements Scenario {
        @Override
        public void run(final Pe pe) throws Exception {
            final String d = pe.ep().describe();
            if (!d.contains("rendezvous (get)")) {
                throw new AssertionError("rendezvous does not use get: " + d);
            }
            final long tcpDevices = pe.worker().resources().stream().filter(n -> n.startsWith("tcp/")).count();
            final long bwLanes = d.lines().filter(l -> l.contains("rma_bw")).count();
            if (bwLanes != Math.min(tcpDevices, 2)) {
                throw new AssertionError(tcpDevices + " tcp devices but " + bwLanes + " rendezvous lanes: " + d);
            }
            new Thresholds().run(pe);
        }
    }

    /**
     * Rendezvous forced to stream over active messages ({@code weft.rndv_scheme=am}: RTR, then RNDV_DATA):
     * sizes around every threshold, sync sends, truncation and unexpected receives.
     */
    public static final class RendezvousByAm implements Scenario {
        @Override
        public void run(final Pe pe) throws Exception {
            final String d = pe.ep().describe();
            if (!d.contains("rendezvous (am)")) {
                throw new AssertionError("rendezvous expected to stream over " + pe.tls() + ": " + d);
            }
            new Thresholds().run(pe);
            new SyncTruncationUnexpected().run(pe);
        }
    }

    /**
     * Rendezvous forced to put ({@code weft.rndv_scheme=put}) where the rendezvous lanes can register
     * memory (cma, tcp): the receiver registers its buffer, the sender puts and flushes, then ATP. Sizes
     * around every threshold, sync sends, truncation and unexpected receives; a heap buffer (not one
     * off-heap region) falls back to the AM data path.
     */
    public static final class RendezvousByPut implements Scenario {
        @Override
        public void run(final Pe pe) throws Exception {
            final String d = pe.ep().describe();
            final boolean registrable = pe.tls().contains("cma") || pe.tls().contains("tcp");
            if (registrable != d.contains("rendezvous (put)")) {
                throw new AssertionError("rendezvous by put expected " + registrable + " over " + pe.tls() + ": " + d);
            }
            new Thresholds().run(pe);
            new SyncTruncationUnexpected().run(pe);
            final long n = pe.ep().rendezvousThreshold() + 4096;
            final byte[] heap = new byte[(int) n];
            final int seed = 77;
            if (pe.rank() == 0) {
                MemorySegment.copy(pe.pattern(n, seed), 0, MemorySegment.ofArray(heap), 0, n);
                final Request q = pe.ep().sendTag(0x7700, MemorySegment.ofArray(heap), 0, n);
                assertEquals(Status.OK, pe.await(q), "heap rendezvous send");
                q.release();
            } else {
                final Request q = pe.worker().recvTag(MemorySegment.ofArray(heap), 0, n, 0x7700, -1L);
                assertEquals(Status.OK, pe.await(q), "heap rendezvous receive");
                q.release();
                Pe.checkPattern(MemorySegment.ofArray(heap), n, seed, "heap rendezvous");
            }
            pe.barrier();
        }
    }

    /**
     * GET-based eager with a pool of two slots ({@code weft.eager_get_pool=128k}): over shm the medium range
     * goes eager-get; 40 messages in flight before the receiver progresses use both slots and then fall back
     * to eager fragments, and still match in send order (same tag), expected and unexpected, contiguous
     * and iov; a truncated one reports MESSAGE_TRUNCATED and writes nothing past the buffer. Elsewhere the
     * protocol is off.
     */
    public static final class EagerGetPool implements Scenario {
        @Override
        public void run(final Pe pe) {
            final String d = pe.ep().describe();
            final boolean shm = pe.tls().startsWith("shm");
            if (shm != d.contains("eager get")) {
                throw new AssertionError("eager get expected " + shm + " over " + pe.tls() + ": " + d);
            }
            final long r = pe.ep().rendezvousThreshold();
            final long n = Math.min(32 * 1024, r - 1);
            final int count = 40;
            for (int round = 0; round < 2; round++) {
                final boolean expected = round == 1;
                final List<Request> rs = new ArrayList<>();
                final List<MemorySegment> bufs = new ArrayList<>();
                if (pe.rank() == 1 && expected) {
                    for (int i = 0; i < count; i++) {
                        final MemorySegment b = pe.arena().allocate(n);
                        bufs.add(b);
                        rs.add(pe.worker().recvTag(b, 0, n, 0xE6, -1L));
                    }
                }
                pe.barrier();
                if (pe.rank() == 0) {
                    for (int i = 0; i < count; i++) {
                        final MemorySegment src = pe.pattern(n, 900 + i);
                        rs.add((i & 1) == 0 ? pe.ep().sendTag(0xE6, src, 0, n)
                            : pe.ep().sendTag(0xE6, weft.uct.IoVector.of(src, 0, 100).add(src, 100, n - 100), null));
                    }
                    for (final Request q : rs) {
                        assertEquals(Status.OK, pe.await(q), "eager-get send");
                        q.release();
                    }
                } else {
                    if (!expected) {
                        pe.progressFor(30);
                        for (int i = 0; i < count; i++) {
                            final MemorySegment b = pe.arena().allocate(n);
                            bufs.add(b);
                            rs.add(pe.worker().recvTag(b, 0, n, 0xE6, -1L));
                        }
                    }
                    for (int i = 0; i < count; i++) {
                        assertEquals(Status.OK, pe.await(rs.get(i)), "eager-get receive " + i);
                        rs.get(i).release();
                        Pe.checkPattern(bufs.get(i), n, 900 + i, (expected ? "expected" : "unexpected")
                            + " eager-get message " + i + " (send order)");
                    }
                }
                pe.barrier();
            }
            // truncation: the receiver's buffer is smaller than the message
            if (pe.rank() == 0) {
                final Request q = pe.ep().sendTag(0xE7, pe.pattern(n, 5), 0, n);
                assertEquals(Status.OK, pe.await(q), "truncated eager-get send");
                q.release();
            } else {
                final MemorySegment b = pe.arena().allocate(n);
                b.fill((byte) 0x3C);
                final TagInfo info = new TagInfo();
                final Request q = pe.worker().recvTag(b, 0, n / 2, 0xE7, -1L, info, null);
                assertEquals(Status.MESSAGE_TRUNCATED, pe.await(q), "truncated eager-get receive");
                q.release();
                assertEquals(n, info.length(), "the sender's length");
                Pe.checkPattern(b, n / 2, 5, "truncated eager-get prefix");
                for (long i = n / 2; i < n; i++) {
                    assertEquals((byte) 0x3C, b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i),
                        "byte " + i + " past the buffer");
                }
            }
            pe.barrier();
        }
    }

    /** Sizes around every protocol threshold of the endpoint, both directions, expected receives. */
    public static final class Thresholds implements Scenario {
        @Override
        public void run(final Pe pe) {
            final long s = pe.ep().maxShort();
            final long r = pe.ep().rendezvousThreshold();
            // eager zero-copy (where the lane can, below r): around its threshold and its fragment size
            final long z = Math.min(pe.ep().zeroCopyThreshold(), r);
            final long f = pe.ep().maxZeroCopyFragment();
            final long[] sizes = {0, 1, 7, 8, s - 1, s, s + 1, 8191, 8192, 8193, 16384 + 5, z - 1, z, z + 1,
                Math.min(r - 1, f), Math.min(r - 1, f + 1), Math.min(r - 1, 3 * f + 7), r - 1, r, r + 1,
                3 * r + 17, 1 << 20};
            for (int dir = 0; dir < 2; dir++) {
                for (final long n : sizes) {
                    if (n < 0) {
                        continue;
                    }
                    final int seed = (int) n + dir;
                    if (pe.rank() == dir) {
                        final MemorySegment src = pe.pattern(n, seed);
                        final Request q = pe.ep().sendTag(1000 + n, src, 0, n);
                        assertEquals(Status.OK, pe.await(q), "send " + n);
                        q.release();
                    } else {
                        final MemorySegment dst = pe.arena().allocate(Math.max(1, n), 64);
                        final TagInfo info = new TagInfo();
                        final Request q = pe.worker().recvTag(dst, 0, n, 1000 + n, -1L, info, null);
                        assertEquals(Status.OK, pe.await(q), "recv " + n);
                        q.release();
                        assertEquals(n, info.length(), "length " + n);
                        Pe.checkPattern(dst, n, seed, "recv " + n);
                    }
                }
                pe.barrier();
            }
        }
    }

    /** One size per protocol: empty, short, bcopy single, multi-fragment, rendezvous (twice). */
    static long[] protocolSizes(final Pe pe) {
        final long s = pe.ep().maxShort();
        final long r = pe.ep().rendezvousThreshold();
        return new long[] {0, 8, s, s + 1, 8000, 8193, r - 1, r, 3 * r + 17};
    }

    static String proto(final Pe pe, final long n) {
        return n <= pe.ep().maxShort() ? "short" : n < pe.ep().rendezvousThreshold() ? "eager" : "rndv";
    }

    static void await(final Pe pe, final List<Request> rs, final String what) {
        for (final Request q : rs) {
            assertEquals(Status.OK, pe.await(q), what + ": " + q);
            q.release();
        }
        rs.clear();
    }

    /**
     * Wildcards and masks (exact, masked, tag 0 mask 0 = any; earliest-posted wins between an exact
     * and a masked receive), MPI ordering of many same-tag messages of every protocol (expected and
     * unexpected), probe with and without remove (eager and rendezvous), cancel, and the callback rule.
     */
    public static final class Matching implements Scenario {
        @Override
        public void run(final Pe pe) {
            wildcards(pe);
            ordering(pe, true);
            ordering(pe, false);
            probe(pe);
            cancel(pe);
            callbacks(pe);
        }

        private static void wildcards(final Pe pe) {
            final MemorySegment[] bufs = new MemorySegment[5];
            final TagInfo[] infos = new TagInfo[5];
            final Request[] rs = new Request[5];
            if (pe.rank() == 1) {
                for (int i = 0; i < 5; i++) {
                    bufs[i] = pe.arena().allocate(64);
                    infos[i] = new TagInfo();
                }
                rs[0] = pe.worker().recvTag(bufs[0], 0, 64, 0x1234, -1L, infos[0], null);            // exact
                rs[1] = pe.worker().recvTag(bufs[1], 0, 64, 0xAB00, 0xFF00, infos[1], null);          // masked
                rs[2] = pe.worker().recvTag(bufs[2], 0, 64, 0x7700, 0xFFFF_FFFF_FFFF_FF00L, infos[2], null);
                rs[3] = pe.worker().recvTag(bufs[3], 0, 64, 0x7701, -1L, infos[3], null);
            }
            pe.barrier();
            if (pe.rank() == 1) {
                // any tag: posted after the barrier so that no harness message can reach it first
                rs[4] = pe.worker().recvTag(bufs[4], 0, 64, 0, 0, infos[4], null);
                for (int i = 0; i < 5; i++) {
                    assertEquals(Status.OK, pe.await(rs[i]), "wildcard receive " + i);
                    rs[i].release();
                }
                assertEquals(0x1234, infos[0].senderTag());
                assertEquals(0xAB77, infos[1].senderTag());
                assertEquals(0x7701, infos[2].senderTag(), "masked receive posted first wins over exact");
                assertEquals(0x7701, infos[3].senderTag());
                assertEquals(0x9999, infos[4].senderTag(), "tag 0 mask 0 matches anything");
                Pe.checkPattern(bufs[1], 10, 1, "masked");
                Pe.checkPattern(bufs[0], 20, 2, "exact");
                Pe.checkPattern(bufs[2], 30, 3, "wild-first");
                Pe.checkPattern(bufs[3], 40, 4, "exact-second");
                Pe.checkPattern(bufs[4], 50, 5, "any");
                assertEquals(50, infos[4].length());
            } else {
                final long[] tags = {0xAB77, 0x1234, 0x7701, 0x7701, 0x9999};
                for (int i = 0; i < 5; i++) {
                    final Request q = pe.ep().sendTag(tags[i], pe.pattern(10 * (i + 1), i + 1), 0, 10 * (i + 1));
                    assertEquals(Status.OK, pe.await(q));
                    q.release();
                }
            }
            pe.barrier();
            // masks on the unexpected queue: arrival order among matches
            if (pe.rank() == 0) {
                final long[] tags = {0x500, 0x601, 0x502, 0x603};
                for (int i = 0; i < tags.length; i++) {
                    final Request q = pe.ep().sendTag(tags[i], pe.pattern(16, i), 0, 16);
                    assertEquals(Status.OK, pe.await(q));
                    q.release();
                }
            }
            pe.barrier();
            if (pe.rank() == 1) {
                final MemorySegment b = pe.arena().allocate(16);
                final TagInfo info = new TagInfo();
                final long[][] posts = {{0x600, 0xF00}, {0x500, 0xF00}, {0x603, -1L}, {0x0FF, ~0xFFFL & 0}};
                final long[] want = {0x601, 0x500, 0x603, 0x502};
                final int[] seeds = {1, 0, 3, 2};
                for (int i = 0; i < posts.length; i++) {
                    final long mask = i == 3 ? 0xF0FL : posts[i][1];
                    final long tag = i == 3 ? 0x502 : posts[i][0];
                    final Request q = pe.worker().recvTag(b, 0, 16, tag, mask, info, null);
                    assertEquals(Status.OK, pe.await(q), "unexpected masked " + i);
                    q.release();
                    assertEquals(want[i], info.senderTag(), "unexpected masked " + i);
                    Pe.checkPattern(b, 16, seeds[i], "unexpected masked " + i);
                }
                assertNull(pe.worker().probeTag(0, 0xFFFF_FFFF_FFFF_F000L, false), "nothing left");
            }
            pe.barrier();
        }

        /** Many messages with one tag, sizes cycling over every protocol: received in send order. */
        private static void ordering(final Pe pe, final boolean expected) {
            final long[] sizes = protocolSizes(pe);
            final int count = 3 * sizes.length;
            final long tag = expected ? 0x4242 : 0x4343;
            final List<Request> rs = new ArrayList<>();
            final MemorySegment[] bufs = new MemorySegment[count];
            final TagInfo[] infos = new TagInfo[count];
            if (pe.rank() == 1 && expected) {
                for (int i = 0; i < count; i++) {
                    final long n = sizes[(i * 5) % sizes.length];
                    bufs[i] = pe.arena().allocate(Math.max(1, n));
                    infos[i] = new TagInfo();
                    // every receive exactly as large as the message it should get: a reorder truncates
                    rs.add(pe.worker().recvTag(bufs[i], 0, n, tag, i % 3 == 0 ? 0xFFFF : -1L, infos[i], null));
                }
            }
            pe.barrier();
            if (pe.rank() == 0) {
                for (int i = 0; i < count; i++) {
                    final long n = sizes[(i * 5) % sizes.length];
                    rs.add(pe.ep().sendTag(tag, pe.pattern(n, 100 + i), 0, n));
                }
            }
            if (!expected) {
                pe.barrier(); // the receiver posts only now: everything it gets is unexpected
                if (pe.rank() == 1) {
                    for (int i = 0; i < count; i++) {
                        final long n = sizes[(i * 5) % sizes.length];
                        bufs[i] = pe.arena().allocate(Math.max(1, n));
                        infos[i] = new TagInfo();
                        rs.add(pe.worker().recvTag(bufs[i], 0, n, tag, i % 3 == 0 ? 0xFFFF : -1L, infos[i], null));
                    }
                }
            }
            await(pe, rs, (expected ? "expected" : "unexpected") + " ordering");
            if (pe.rank() == 1) {
                for (int i = 0; i < count; i++) {
                    final long n = sizes[(i * 5) % sizes.length];
                    assertEquals(n, infos[i].length(), "message " + i + " out of order");
                    Pe.checkPattern(bufs[i], n, 100 + i, "ordered message " + i + " (" + proto(pe, n) + ")");
                }
            }
            pe.barrier();
        }

        /** Probe without remove, probe with remove and receive the probed message, eager and rendezvous. */
        private static void probe(final Pe pe) {
            final long rndv = pe.ep().rendezvousThreshold() + 1;
            final long[] sizes = {1000, rndv, 8193, 40};
            final List<Request> rs = new ArrayList<>();
            if (pe.rank() == 1) {
                assertNull(pe.worker().probeTag(0x7000, -1L, false), "probe before anything was sent");
            }
            pe.barrier();
            if (pe.rank() == 0) {
                for (int i = 0; i < sizes.length; i++) {
                    rs.add(pe.ep().sendTag(0x7000 + i, pe.pattern(sizes[i], 50 + i), 0, sizes[i]));
                }
            } else {
                for (int i = 0; i < sizes.length; i++) {
                    final TagMessage m = probeWait(pe, 0x7000 + i, -1L, false);
                    assertEquals(0x7000 + i, m.tag());
                    assertEquals(sizes[i], m.length(), "probed length " + i);
                    assertSame(m, pe.worker().probeTag(0x7000 + i, -1L, false), "probe without remove keeps it");
                }
                // 0: plain receive after a probe without remove
                final MemorySegment b0 = pe.arena().allocate(sizes[0]);
                Request q = pe.worker().recvTag(b0, 0, sizes[0], 0x7000, -1L);
                assertEquals(Status.OK, pe.await(q));
                q.release();
                Pe.checkPattern(b0, sizes[0], 50, "probed eager");
                // 1, 2, 3: probe with remove (exact, masked), then receive the message itself
                for (int i = 1; i < sizes.length; i++) {
                    final TagMessage m = i == 2 ? probeWait(pe, 0x7002, 0xFFFF_FFFF_FFFF_FFF3L, true)
                        : probeWait(pe, 0x7000 + i, -1L, true);
                    assertEquals(0x7000 + i, m.tag());
                    assertNull(pe.worker().probeTag(0x7000 + i, -1L, false), "removed by probe");
                    final MemorySegment b = pe.arena().allocate(sizes[i]);
                    final TagInfo info = new TagInfo();
                    q = pe.worker().recvTag(m, b, 0, sizes[i], info, null);
                    assertEquals(Status.OK, pe.await(q), "receive probed " + i);
                    q.release();
                    assertEquals(sizes[i], info.length());
                    Pe.checkPattern(b, sizes[i], 50 + i, "probed message " + i);
                    final TagMessage gone = m;
                    try {
                        pe.worker().recvTag(gone, b, 0, sizes[i]);
                        throw new AssertionError("a probed message was received twice");
                    } catch (final weft.ucs.WeftException e) {
                        assertEquals(Status.INVALID_PARAM, e.status());
                    }
                }
            }
            await(pe, rs, "probe sends");
            pe.barrier();
        }

        private static TagMessage probeWait(final Pe pe, final long tag, final long mask, final boolean remove) {
            final long deadline = System.nanoTime() + (long) (Pe.WAIT_SECONDS * 1e9);
            while (true) {
                final TagMessage m = pe.worker().probeTag(tag, mask, remove);
                if (m != null) {
                    return m;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no message with tag 0x" + Long.toHexString(tag) + " to probe");
                }
                pe.worker().progress();
            }
        }

        /** A receive nobody sends to completes with CANCELED, its callback from progress, once. */
        private static void cancel(final Pe pe) {
            final int[] calls = new int[1];
            final Status[] seen = new Status[1];
            final MemorySegment b = pe.arena().allocate(64);
            final Request q = pe.worker().recvTag(b, 0, 64, 0xDEAD, -1L, null, r -> {
                calls[0]++;
                seen[0] = r.status();
            });
            assertTrue(pe.worker().cancel(q), "cancel of an unmatched receive");
            assertEquals(0, calls[0], "callback ran inside cancel()");
            pe.progressFor(20);
            assertEquals(1, calls[0], "cancel callback runs once, from progress");
            assertEquals(Status.CANCELED, seen[0]);
            final Request q2 = pe.worker().recvTag(b, 0, 64, 0xDEAE, -1L);
            assertTrue(pe.worker().cancel(q2));
            assertEquals(Status.CANCELED, q2.status());
            assertFalse(pe.worker().cancel(q2), "second cancel");
            q2.release();
            pe.barrier();
        }

        /** Callbacks never run inside the starting call and run exactly once, on every path. */
        private static void callbacks(final Pe pe) {
            final long[] sizes = protocolSizes(pe);
            final int n = sizes.length;
            final int[] calls = new int[2 * n];
            final Status[] st = new Status[2 * n];
            final long[] lens = new long[2 * n];
            final RequestCallback[] cbs = new RequestCallback[2 * n];
            for (int i = 0; i < 2 * n; i++) {
                final int k = i;
                cbs[i] = r -> {
                    calls[k]++;
                    st[k] = r.status();
                    lens[k] = r.length();
                };
            }
            final MemorySegment[] bufs = new MemorySegment[2 * n];
            if (pe.rank() == 1) { // first half expected: posted before the sends
                for (int i = 0; i < n; i++) {
                    bufs[i] = pe.arena().allocate(Math.max(1, sizes[i]));
                    pe.worker().recvTag(bufs[i], 0, sizes[i], 0x8000 + i, -1L, null, cbs[i]);
                    assertEquals(0, calls[i], "receive callback inside recvTag");
                }
            }
            pe.barrier();
            if (pe.rank() == 0) {
                for (int i = 0; i < 2 * n; i++) {
                    final long sz = sizes[i % n];
                    pe.ep().sendTag(0x8000 + i, pe.pattern(sz, 200 + i), 0, sz, cbs[i]);
                    assertEquals(0, calls[i], "send callback inside sendTag, size " + sz);
                }
            }
            pe.barrier();
            if (pe.rank() == 1) { // second half unexpected: the eager data is here already
                for (int i = n; i < 2 * n; i++) {
                    bufs[i] = pe.arena().allocate(Math.max(1, sizes[i - n]));
                    pe.worker().recvTag(bufs[i], 0, sizes[i - n], 0x8000 + i, -1L, null, cbs[i]);
                    assertEquals(0, calls[i], "receive callback inside recvTag (unexpected)");
                }
            }
            final long deadline = System.nanoTime() + (long) (Pe.WAIT_SECONDS * 1e9);
            while (!allCalled(calls)) {
                if (pe.worker().progress() == 0 && System.nanoTime() > deadline) {
                    throw new AssertionError("callbacks missing: " + java.util.Arrays.toString(calls));
                }
            }
            pe.barrier();
            pe.progressFor(20);
            for (int i = 0; i < 2 * n; i++) {
                assertEquals(1, calls[i], "callback " + i + " calls");
                assertEquals(Status.OK, st[i], "callback " + i + " status");
                assertEquals(sizes[i % n], lens[i], "callback " + i + " length");
                if (pe.rank() == 1) {
                    Pe.checkPattern(bufs[i], sizes[i % n], 200 + i, "callback receive " + i);
                }
            }
        }

        private static boolean allCalled(final int[] calls) {
            for (final int c : calls) {
                if (c == 0) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * Synchronous sends stay incomplete until the receiver posts; truncation for every protocol
     * (MESSAGE_TRUNCATED, the sender's length, nothing written past the buffer; expected and
     * unexpected); every size through the unexpected path.
     */
    public static final class SyncTruncationUnexpected implements Scenario {
        private static final int GUARD = 256;
        private static final byte GUARD_BYTE = 0x5A;

        @Override
        public void run(final Pe pe) {
            sync(pe);
            truncation(pe, true);
            truncation(pe, false);
            unexpected(pe);
        }

        private static void sync(final Pe pe) {
            final long[] sizes = {0, 8, pe.ep().maxShort() + 1, 8193, pe.ep().rendezvousThreshold() + 1};
            if (pe.rank() == 0) {
                final Request[] rs = new Request[sizes.length];
                for (int i = 0; i < sizes.length; i++) {
                    rs[i] = pe.ep().sendTagSync(0x9000 + i, pe.pattern(sizes[i], 300 + i), 0, sizes[i]);
                }
                pe.progressFor(150); // the peer progresses too, but posts nothing
                for (int i = 0; i < sizes.length; i++) {
                    assertFalse(rs[i].isCompleted(), "sync send of " + sizes[i] + " completed before a receive");
                }
                pe.barrier();
                for (int i = 0; i < sizes.length; i++) {
                    assertEquals(Status.OK, pe.await(rs[i]), "sync send " + sizes[i]);
                    rs[i].release();
                }
            } else {
                pe.barrier();
                for (int i = sizes.length - 1; i >= 0; i--) {
                    final MemorySegment b = pe.arena().allocate(Math.max(1, sizes[i]));
                    final Request q = pe.worker().recvTag(b, 0, sizes[i], 0x9000 + i, -1L);
                    assertEquals(Status.OK, pe.await(q), "sync receive " + sizes[i]);
                    q.release();
                    Pe.checkPattern(b, sizes[i], 300 + i, "sync receive");
                }
            }
            pe.barrier();
        }

        private static void truncation(final Pe pe, final boolean expected) {
            final long[] sizes = protocolSizes(pe);
            final List<Request> rs = new ArrayList<>();
            final MemorySegment[] bufs = new MemorySegment[sizes.length];
            final TagInfo[] infos = new TagInfo[sizes.length];
            final long base = expected ? 0xA000 : 0xA100;
            if (pe.rank() == 1 && expected) {
                post(pe, sizes, bufs, infos, rs, base);
            }
            pe.barrier();
            if (pe.rank() == 0) {
                for (int i = 1; i < sizes.length; i++) {
                    rs.add(pe.ep().sendTag(base + i, pe.pattern(sizes[i], 400 + i), 0, sizes[i]));
                }
            }
            if (!expected) {
                pe.barrier();
                if (pe.rank() == 1) {
                    post(pe, sizes, bufs, infos, rs, base);
                }
            }
            if (pe.rank() == 0) {
                await(pe, rs, "truncated sends (the sender sees OK)");
            }
            if (pe.rank() == 1) {
                for (int i = 1; i < sizes.length; i++) {
                    final long n = sizes[i];
                    final long cap = capacity(n);
                    assertEquals(Status.MESSAGE_TRUNCATED, pe.await(rs.get(i - 1)), "truncated receive of " + n);
                    rs.get(i - 1).release();
                    assertEquals(n, infos[i].length(), "TagInfo.length is the sender's length");
                    Pe.checkPattern(bufs[i], cap, 400 + i, "truncated receive of " + n + " (" + proto(pe, n) + ")");
                    for (long g = cap; g < cap + GUARD; g++) {
                        if (bufs[i].get(ValueLayout.JAVA_BYTE, g) != GUARD_BYTE) {
                            throw new AssertionError("truncated receive of " + n + " (" + proto(pe, n)
                                + ", capacity " + cap + ") wrote byte " + g + " past its buffer");
                        }
                    }
                }
            }
            pe.barrier();
        }

        private static long capacity(final long n) {
            return n / 2;
        }

        private static void post(final Pe pe, final long[] sizes, final MemorySegment[] bufs, final TagInfo[] infos,
                                 final List<Request> rs, final long base) {
            for (int i = 1; i < sizes.length; i++) {
                final long cap = capacity(sizes[i]);
                bufs[i] = pe.arena().allocate(cap + GUARD);
                bufs[i].fill(GUARD_BYTE);
                infos[i] = new TagInfo();
                rs.add(pe.worker().recvTag(bufs[i], 0, cap, base + i, -1L, infos[i], null));
            }
        }

        /** Every size around every threshold, sent before the receive is posted. */
        private static void unexpected(final Pe pe) {
            final long s = pe.ep().maxShort();
            final long r = pe.ep().rendezvousThreshold();
            // eager zero-copy (where the lane can, below r): around its threshold and its fragment size
            final long z = Math.min(pe.ep().zeroCopyThreshold(), r);
            final long f = pe.ep().maxZeroCopyFragment();
            final long[] sizes = {0, 1, 7, 8, s - 1, s, s + 1, 8191, 8192, 8193, 16384 + 5, z - 1, z, z + 1,
                Math.min(r - 1, f), Math.min(r - 1, f + 1), Math.min(r - 1, 3 * f + 7), r - 1, r, r + 1,
                3 * r + 17, 1 << 20};
            final List<Request> rs = new ArrayList<>();
            if (pe.rank() == 0) {
                for (int i = 0; i < sizes.length; i++) {
                    rs.add(pe.ep().sendTag(0xB000 + i, pe.pattern(sizes[i], 500 + i), 0, sizes[i]));
                }
            }
            pe.barrier();
            if (pe.rank() == 1) {
                pe.progressFor(30);
                for (int i = sizes.length - 1; i >= 0; i--) { // reverse order: found by tag, not position
                    final MemorySegment b = pe.arena().allocate(Math.max(1, sizes[i]));
                    final TagInfo info = new TagInfo();
                    final Request q = pe.worker().recvTag(b, 0, sizes[i], 0xB000 + i, -1L, info, null);
                    assertEquals(Status.OK, pe.await(q), "unexpected receive of " + sizes[i]);
                    q.release();
                    assertEquals(sizes[i], info.length());
                    Pe.checkPattern(b, sizes[i], 500 + i, "unexpected receive of " + sizes[i]);
                }
            }
            await(pe, rs, "unexpected sends");
            pe.barrier();
        }
    }

    /**
     * One message of 2 GiB + 4 KiB (lengths are longs end to end): contiguous (rendezvous get where a
     * get lane exists) and then the same bytes sent from an iov (rendezvous over AM). Slow: run with
     * {@code -Dweft.slow=true}.
     */
    public static final class Huge implements Scenario {
        static final long SIZE = (2L << 30) + 4096;

        @Override
        public void run(final Pe pe) {
            final MemorySegment buf = pe.arena().allocate(SIZE, 4096);
            for (int round = 0; round < 2; round++) {
                final long tag = 0xF000 + round;
                if (pe.rank() == 0) {
                    if (round == 0) {
                        for (long i = 0; i < SIZE; i += 8) {
                            buf.set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
                        }
                    }
                    final Request q = round == 0 ? pe.ep().sendTag(tag, buf, 0, SIZE)
                        : pe.ep().sendTag(tag, new IoVector(2).add(buf, 0, 1L << 30).add(buf, 1L << 30, SIZE - (1L << 30)),
                        null);
                    assertEquals(Status.OK, pe.await(q, 300), "send of " + SIZE);
                    assertEquals(SIZE, q.length());
                    q.release();
                } else {
                    buf.fill((byte) 0);
                    final TagInfo info = new TagInfo();
                    final Request q = pe.worker().recvTag(buf, 0, SIZE, tag, -1L, info, null);
                    assertEquals(Status.OK, pe.await(q, 300), "receive of " + SIZE);
                    q.release();
                    assertEquals(SIZE, info.length(), "TagInfo.length");
                    for (long i = 0; i < SIZE; i += 8) {
                        if (buf.get(ValueLayout.JAVA_LONG, i) != i * 0x9E3779B97F4A7C15L) {
                            throw new AssertionError("round " + round + ": wrong data at byte " + i + " of " + SIZE);
                        }
                    }
                }
                pe.barrier();
            }
        }
    }

    /**
     * Backpressure across the PEs (run with {@code weft.unexpected_budget} = {@link #BUDGET}): rank 0
     * sends 32x the budget without waiting while rank 1 progresses but posts nothing; rank 1 holds the
     * budget plus what the transport had in flight, rank 0's sends wait; then every message arrives
     * intact, in order.
     */
    public static final class Backpressure implements Scenario {
        public static final long BUDGET = 1 << 20;
        // in flight when STOP lands: shm cells, and for tcp the kernel's socket buffers (the test caps them
        // with WEFT_TCP_SNDBUF/RCVBUF at 256 KiB, which the kernel doubles) and the endpoint's own buffers
        static final long SLACK = 8L << 20;
        static final long FLOOD = 32L << 20;
        private static final long[] SIZES = {8, 3000, 8000, 30_000};
        /** How long the receiver sees no new bytes before it posts receives again (GO): ten times the
         *  sender's check window, so the sender checks its held sends before GO on a loaded machine. */
        static final long QUIET_MS = 1000;

        @Override
        public void run(final Pe pe) {
            int count = 0;
            for (long sent = 0; sent < FLOOD; count++) {
                sent += SIZES[count % SIZES.length];
            }
            final List<Request> rs = new ArrayList<>();
            final MemorySegment[] bufs = new MemorySegment[count];
            if (pe.rank() == 0) {
                for (int i = 0; i < count; i++) { // generated first: the flood itself is fast
                    bufs[i] = pe.pattern(SIZES[i % SIZES.length], i);
                }
            }
            pe.barrier();
            if (pe.rank() == 0) {
                for (int i = 0; i < count; i++) {
                    rs.add(pe.ep().sendTag(0x3000 + i, bufs[i], 0, SIZES[i % SIZES.length]));
                    pe.worker().progress();
                }
                // short: the receiver goes on to post a receive (which sends GO) once it has seen
                // the flood quiet for QUIET_MS, so this check must come well before that
                pe.progressFor(100);
                int waiting = 0;
                Status failed = null;
                for (final Request q : rs) {
                    waiting += q.isCompleted() ? 0 : 1;
                    failed = q.isCompleted() && q.status() != Status.OK ? q.status() : failed;
                }
                assertNull(failed, "a flood send failed");
                assertTrue(waiting > 0, "no send waits although the receiver took nothing");
                assertFalse(rs.get(count - 1).isCompleted(), "the last send should wait");
            } else {
                long peak = 0;
                long last = -1;
                long changed = System.nanoTime();
                final long start = changed;
                // progress, post nothing, until the flood has been quiet for QUIET_MS (at most 10 s)
                while (System.nanoTime() - changed < QUIET_MS * 1_000_000L
                    && System.nanoTime() - start < 10_000_000_000L) {
                    pe.worker().progress();
                    final long now = pe.worker().unexpectedBytes();
                    if (now != last) {
                        last = now;
                        changed = System.nanoTime();
                    }
                    peak = Math.max(peak, now);
                }
                System.out.println(pe.tls() + (pe.crossProcess() ? " cross-process" : " in-JVM")
                    + ": receiver held at most " + peak + " bytes of unexpected messages for a budget of " + BUDGET);
                assertTrue(peak >= BUDGET / 2, "the flood did not arrive: " + peak);
                assertTrue(peak <= BUDGET + SLACK, "receiver held " + peak + " bytes for a budget of " + BUDGET);
            }
            pe.barrier();
            if (pe.rank() == 1) {
                for (int i = 0; i < count; i++) {
                    final long n = SIZES[i % SIZES.length];
                    bufs[i] = pe.arena().allocate(n);
                    rs.add(pe.worker().recvTag(bufs[i], 0, n, 0x3000 + i, -1L));
                }
            }
            await(pe, rs, "backpressure");
            if (pe.rank() == 1) {
                for (int i = 0; i < count; i++) {
                    Pe.checkPattern(bufs[i], SIZES[i % SIZES.length], i, "message " + i + " after backpressure");
                }
            }
            pe.barrier();
        }
    }
}
