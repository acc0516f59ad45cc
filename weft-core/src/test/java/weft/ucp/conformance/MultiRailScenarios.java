package weft.ucp.conformance;

import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.ucs.stats.Counter;
import weft.uct.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Multi-rail one-sided scenarios, run by {@link MultiRailConformanceTest} over tcp with two rails per
 * remote key: striping, the lane policies (rr alternates, lu prefers the idle lane), atomics on one lane,
 * and fence ordering across lanes. Which lane carried what is read from {@code Endpoint.laneCounters()}.
 */
public final class MultiRailScenarios {
    private static final long HEAP = 4 << 20;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private MultiRailScenarios() {
    }

    /** The key's rails, from its description ("rma=tcp/lo,tcp/lo#1 amo=tcp/lo"). */
    static List<String> rails(final Rkey rk) {
        final String d = rk.describe();
        final String rma = d.substring(d.indexOf("rma=") + 4, d.indexOf(' '));
        return List.of(rma.split(","));
    }

    static long counter(final Pe pe, final String lane, final Counter c) {
        final Map<Counter, Long> m = pe.ep().laneCounters().get(lane);
        return m == null ? 0 : m.get(c);
    }

    static long[] counters(final Pe pe, final List<String> lanes, final Counter c) {
        final long[] v = new long[lanes.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = counter(pe, lanes.get(i), c);
        }
        return v;
    }

    static void flush(final Pe pe) {
        final Request f = pe.ep().flush();
        assertEquals(Status.OK, pe.await(f), "flush");
        f.release();
    }

    /** A striped put and get use every rail, in bandwidth-weighted shares, and move the right bytes. */
    public static final class Striping implements Scenario {
        @Override
        public void run(final Pe pe) {
            try (MemoryMap heap = pe.worker().context().memMap(HEAP, 0);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6001)) {
                heap.segment().fill((byte) 0);
                final List<String> rails = rails(rk);
                final long tcpDevices = pe.worker().resources().stream().filter(n -> n.startsWith("tcp/")).count();
                assertEquals(Math.min(2, tcpDevices), rails.size(), "rails of " + rk.describe());
                pe.barrier();
                final long n = (1 << 20) + 17;
                final long at = pe.rank() * (HEAP / 2) + 5; // each PE writes its half of the peer's heap, unaligned
                final MemorySegment src = pe.pattern(n, 77 + pe.rank());
                final long[] tx0 = counters(pe, rails, Counter.TX_BYTES);
                final Request p = pe.ep().put(src, 0, n, rk.base() + at, rk);
                assertEquals(Status.OK, pe.await(p), "striped put");
                p.release();
                flush(pe);
                final long[] tx1 = counters(pe, rails, Counter.TX_BYTES);
                long sum = 0;
                for (int i = 0; i < rails.size(); i++) {
                    final long d = tx1[i] - tx0[i];
                    sum += d;
                    // every rail carries a real share (the shares follow the rails' bandwidths: >= 1/4 each here)
                    assertTrue(d >= n / (4L * rails.size()), "rail " + rails.get(i) + " carried " + d + " of " + n
                        + " bytes of a striped put: " + pe.ep().laneCounters());
                }
                assertEquals(n, sum, "bytes put over all rails: " + pe.ep().laneCounters());
                // read it back with a striped get
                final MemorySegment back = pe.arena().allocate(n);
                final long[] rx0 = counters(pe, rails, Counter.RX_BYTES);
                final Request g = pe.ep().get(back, 0, n, rk.base() + at, rk);
                assertEquals(Status.OK, pe.await(g), "striped get");
                g.release();
                Pe.checkPattern(back, n, 77 + pe.rank(), "striped get after striped put over " + rk.describe());
                final long[] rx1 = counters(pe, rails, Counter.RX_BYTES);
                sum = 0;
                for (int i = 0; i < rails.size(); i++) {
                    assertTrue(rx1[i] - rx0[i] >= n / (4L * rails.size()), "rail " + rails.get(i) + " got "
                        + (rx1[i] - rx0[i]) + " bytes of a striped get");
                    sum += rx1[i] - rx0[i];
                }
                assertEquals(n, sum, "bytes got over all rails");
                // small operations below two chunks stay on one lane (fixed policy: the first rail)
                final long[] puts0 = counters(pe, rails, Counter.PUTS);
                for (int i = 0; i < 10; i++) {
                    assertTrue(!pe.ep().putNbi(src, i, 8, rk.base() + at + (1 << 21) - 64, rk).isError(), "put 8");
                }
                flush(pe);
                final long[] puts1 = counters(pe, rails, Counter.PUTS);
                assertEquals(10, puts1[0] - puts0[0], "fixed policy: small puts on the first rail");
                for (int i = 1; i < rails.size(); i++) {
                    assertEquals(0, puts1[i] - puts0[i], "fixed policy: no small put on " + rails.get(i));
                }
                pe.barrier();
                // the peer's striped put landed intact in my heap
                final long peerAt = (1 - pe.rank()) * (HEAP / 2) + 5;
                Pe.checkPattern(heap.segment().asSlice(peerAt, n), n, 77 + 1 - pe.rank(),
                    "my heap after the peer's striped put");
                pe.barrier();
            }
        }
    }

    /** WEFT_LANE_POLICY=rr: small puts and gets alternate over the rails; atomics all take one lane. */
    public static final class RoundRobin implements Scenario {
        @Override
        public void run(final Pe pe) {
            try (MemoryMap heap = pe.worker().context().memMap(HEAP, 0);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6002)) {
                heap.segment().fill((byte) 0);
                final List<String> rails = rails(rk);
                assertEquals(2, rails.size(), "rails of " + rk.describe());
                pe.barrier();
                final MemorySegment buf = pe.arena().allocate(64);
                final long base = rk.base() + 4096;
                final List<Integer> putLanes = new ArrayList<>();
                final List<Integer> getLanes = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    buf.set(ValueLayout.JAVA_LONG, 8 * i, 1000 + i); // a slot each: a put may read it later
                    final long[] before = counters(pe, rails, Counter.PUTS);
                    final Status st = pe.ep().putNbi(buf, 8 * i, 8, base + 8 * i, rk);
                    assertTrue(!st.isError(), "put: " + st);
                    putLanes.add(changed(before, counters(pe, rails, Counter.PUTS)));
                }
                flush(pe);
                for (int i = 0; i < 8; i++) {
                    final long[] before = counters(pe, rails, Counter.GETS);
                    final Request g = pe.ep().get(buf, 8, 8, base + 8 * i, rk);
                    getLanes.add(changed(before, counters(pe, rails, Counter.GETS)));
                    assertEquals(Status.OK, pe.await(g), "get");
                    g.release();
                    assertEquals(1000 + i, buf.get(ValueLayout.JAVA_LONG, 8), "value read back");
                }
                for (int i = 1; i < 8; i++) {
                    assertTrue(putLanes.get(i) != putLanes.get(i - 1), "rr: puts alternate lanes: " + putLanes);
                    assertTrue(getLanes.get(i) != getLanes.get(i - 1), "rr: gets alternate lanes: " + getLanes);
                }
                // atomics: every one on one lane whatever the policy, and none lost under contention
                pe.barrier();
                final Map<String, Map<Counter, Long>> c0 = pe.ep().laneCounters();
                final MemorySegment res = pe.arena().allocate(8);
                final int iters = 300;
                for (int i = 0; i < iters; i++) {
                    if (i % 3 == 0) {
                        final Request f = pe.ep().atomicFetch(AtomicOp.ADD, 1, res, 0, rk.base(), rk);
                        assertEquals(Status.OK, pe.await(f), "fetch-add");
                        f.release();
                    } else {
                        assertTrue(!pe.ep().atomicPost(AtomicOp.ADD, 1, rk.base(), rk).isError(), "post add");
                    }
                    LONG.getAndAdd(heap.segment(), 0L, 1L); // my own local atomics on the same word, meanwhile
                    if (i % 50 == 0) {
                        pe.worker().progress();
                    }
                }
                flush(pe);
                final Map<String, Map<Counter, Long>> c1 = pe.ep().laneCounters();
                int lanesWithAtomics = 0;
                for (final String lane : c1.keySet()) {
                    final long d = c1.get(lane).get(Counter.ATOMICS) - c0.getOrDefault(lane, Map.of(Counter.ATOMICS, 0L))
                        .get(Counter.ATOMICS);
                    if (d > 0) {
                        lanesWithAtomics++;
                        assertEquals(iters, d, "atomics on " + lane);
                    }
                }
                assertEquals(1, lanesWithAtomics, "atomics of one key on one lane: " + c1);
                pe.barrier();
                assertEquals(2L * iters, (long) LONG.getVolatile(heap.segment(), 0L),
                    "remote and local adds on my heap word (none lost)");
                pe.barrier();
            }
        }

        private static int changed(final long[] before, final long[] after) {
            int which = -1;
            for (int i = 0; i < before.length; i++) {
                if (after[i] != before[i]) {
                    assertEquals(1, after[i] - before[i], "one operation counted");
                    assertEquals(-1, which, "one lane per small operation");
                    which = i;
                }
            }
            assertTrue(which >= 0, "the operation was counted on a rail");
            return which;
        }
    }

    /** WEFT_LANE_POLICY=lu (striping off): a small get goes to the rail that a large get does not load. */
    public static final class LeastUsed implements Scenario {
        @Override
        public void run(final Pe pe) {
            try (MemoryMap heap = pe.worker().context().memMap(HEAP, 0);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6003)) {
                final List<String> rails = rails(rk);
                assertEquals(2, rails.size(), "rails of " + rk.describe());
                pe.barrier();
                final MemorySegment big = pe.arena().allocate(1 << 20);
                final MemorySegment small = pe.arena().allocate(8);
                for (int round = 0; round < 3; round++) {
                    final long[] g0 = counters(pe, rails, Counter.GETS);
                    final long[] b0 = counters(pe, rails, Counter.RX_BYTES);
                    final Request large = pe.ep().get(big, 0, big.byteSize(), rk.base(), rk);
                    assertTrue(!large.isCompleted(), "a 1 MiB tcp get completes from progress, not inside the call");
                    final long[] b1 = counters(pe, rails, Counter.RX_BYTES);
                    assertEquals(big.byteSize(), b1[0] - b0[0], "idle rails: the large get takes the first rail");
                    final long[] g1 = counters(pe, rails, Counter.GETS);
                    final Request s = pe.ep().get(small, 0, 8, rk.base() + 64, rk);
                    final long[] g2 = counters(pe, rails, Counter.GETS);
                    assertEquals(1, g2[1] - g1[1], "lu: the small get goes to the idle rail " + rails.get(1)
                        + " (gets before " + java.util.Arrays.toString(g0) + ")");
                    assertEquals(Status.OK, pe.await(large), "large get");
                    assertEquals(Status.OK, pe.await(s), "small get");
                    large.release();
                    s.release();
                    // both idle again: the next small get takes the first rail
                    final long[] g3 = counters(pe, rails, Counter.GETS);
                    final Request t = pe.ep().get(small, 0, 8, rk.base() + 64, rk);
                    assertEquals(1, counters(pe, rails, Counter.GETS)[0] - g3[0], "lu: idle rails, first rail");
                    assertEquals(Status.OK, pe.await(t), "small get");
                    t.release();
                }
                pe.barrier();
            }
        }
    }

    /**
     * Put-fence-put across lanes: with rr the data put goes on one rail and the flag put on the other; a
     * reader progressing its worker must never see a flag without the data written before the fence.
     * Each PE writes once and reads once.
     */
    public static final class FenceAcrossLanes implements Scenario {
        private static final int ROUNDS = 200;
        private static final int DATA = 48 * 1024; // one put, not striped, so it loads its rail

        @Override
        public void run(final Pe pe) {
            try (MemoryMap heap = pe.worker().context().memMap(HEAP, 0);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6004)) {
                heap.segment().fill((byte) 0);
                assertEquals(2, rails(rk).size(), "rails of " + rk.describe());
                pe.barrier();
                for (int writer = 0; writer < 2; writer++) {
                    if (pe.rank() == writer) {
                        write(pe, rk);
                    } else {
                        read(pe, heap.segment());
                    }
                    pe.barrier();
                }
            }
        }

        private static void write(final Pe pe, final Rkey rk) {
            final MemorySegment data = pe.arena().allocate(DATA, 8);
            final MemorySegment flag = pe.arena().allocate(8, 8);
            final long[] puts0 = counters(pe, rails(rk), Counter.PUTS);
            for (int i = 1; i <= ROUNDS; i++) {
                data.set(ValueLayout.JAVA_LONG, 0, i);
                data.set(ValueLayout.JAVA_LONG, DATA - 8, i);
                final Request d = pe.ep().put(data, 0, DATA, rk.base() + 4096, rk);
                pe.worker().fence();
                flag.set(ValueLayout.JAVA_LONG, 0, i);
                final Request f = pe.ep().put(flag, 0, 8, rk.base(), rk);
                assertEquals(Status.OK, pe.await(d), "data put " + i);
                assertEquals(Status.OK, pe.await(f), "flag put " + i);
                d.release();
                f.release();
            }
            flush(pe);
            final long[] puts1 = counters(pe, rails(rk), Counter.PUTS);
            assertTrue(puts1[0] > puts0[0] && puts1[1] > puts0[1], "both rails carried puts: " + pe.ep().laneCounters());
        }

        private static void read(final Pe pe, final MemorySegment heap) {
            final long deadline = System.nanoTime() + 30_000_000_000L;
            long last = 0;
            int seen = 0;
            while (last < ROUNDS) {
                pe.worker().progress(); // tcp puts land from the target's progress
                final long f = (long) LONG.getAcquire(heap, 0L);
                if (f != last) {
                    final long first = (long) LONG.getAcquire(heap, 4096L);
                    final long end = (long) LONG.getAcquire(heap, 4096L + DATA - 8);
                    if (first < f || end < f) {
                        throw new AssertionError("fence broken: flag " + f + " visible before its data (data words "
                            + first + ", " + end + ")");
                    }
                    last = f;
                    seen++;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("reader saw flag " + last + " of " + ROUNDS + " in 30 s");
                }
            }
            assertTrue(seen > 0, "flag changes seen");
        }
    }

    /**
     * Rendezvous over AM ({@code WEFT_RNDV_SCHEME=am}: the receiver answers RTR and the sender streams) is
     * striped over the rendezvous lanes: each carries a real share of a 1 MiB message, which arrives intact
     * both ways.
     */
    public static final class RendezvousOverAm extends StripedRendezvous {
        public RendezvousOverAm() {
            super("am");
        }
    }

    /**
     * Rendezvous by put, tcp's default ({@code WEFT_RNDV_SCHEME=auto}: a get would bring no other data
     * path, and the payload of a put streams from the socket straight into the receive buffer), striped
     * over the rendezvous lanes as {@link RendezvousOverAm}.
     */
    public static final class RendezvousByPutByDefault extends StripedRendezvous {
        public RendezvousByPutByDefault() {
            super("put");
        }
    }

    /** A 1 MiB rendezvous each way with the given scheme, each rendezvous lane carrying a real share. */
    abstract static class StripedRendezvous implements Scenario {
        private final String scheme;

        StripedRendezvous(final String scheme) {
            this.scheme = scheme;
        }

        @Override
        public void run(final Pe pe) {
            final String d = pe.ep().describe();
            assertTrue(d.contains("rendezvous (" + scheme + ")"), d);
            final List<String> lanes = d.lines().filter(l -> l.contains("rma_bw"))
                .map(l -> l.substring(l.indexOf(": ") + 2, l.indexOf(" ->"))).toList();
            assertEquals(2, lanes.size(), d);
            final long n = (1 << 20) + 3;
            for (int dir = 0; dir < 2; dir++) {
                if (pe.rank() == dir) {
                    final long[] tx0 = counters(pe, lanes, Counter.TX_BYTES);
                    final Request s = pe.ep().sendTag(77, pe.pattern(n, 5 + dir), 0, n);
                    assertEquals(Status.OK, pe.await(s), "send");
                    s.release();
                    final long[] tx1 = counters(pe, lanes, Counter.TX_BYTES);
                    long sum = 0;
                    for (int i = 0; i < 2; i++) {
                        assertTrue(tx1[i] - tx0[i] >= n / 8, "lane " + lanes.get(i) + " streamed " + (tx1[i] - tx0[i])
                            + " bytes of a " + n + "-byte rendezvous: " + pe.ep().laneCounters());
                        sum += tx1[i] - tx0[i];
                    }
                    assertEquals(n, sum, "rendezvous bytes over the lanes");
                } else {
                    final MemorySegment dst = pe.arena().allocate(n);
                    final Request r = pe.worker().recvTag(dst, 0, n, 77, -1L);
                    assertEquals(Status.OK, pe.await(r), "recv");
                    assertEquals(n, r.length(), "length");
                    r.release();
                    Pe.checkPattern(dst, n, 5 + dir, "striped rendezvous");
                }
                pe.barrier();
            }
            new TagScenarios.Thresholds().run(pe);
        }
    }
}
