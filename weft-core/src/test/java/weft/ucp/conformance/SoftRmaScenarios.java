package weft.ucp.conformance;

import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Put/get on memory the peer registered (not allocated), run by {@link SoftRmaConformanceTest}: over shm
 * without cma no lane reaches it, and put/get are emulated over active messages at the target.
 */
public final class SoftRmaScenarios {
    private static final long LEN = 8L << 20;

    private SoftRmaScenarios() {
    }

    /** True when no lane of the set reaches a same-node peer's registered memory. */
    static boolean emulated(final Pe pe) {
        final String t = pe.tls();
        return !t.contains("tcp") && !t.contains("cma");
    }

    /** Sizes from 0 to rendezvous, contiguous and heap, put then get; fence order; out-of-range refusals. */
    public static final class RegisteredPutGet implements Scenario {
        @Override
        public void run(final Pe pe) {
            final var ctx = pe.worker().context();
            try (MemoryMap map = ctx.memMap(pe.arena().allocate(LEN, 4096), 0);
                 Rkey rk = RmaScenarios.exchange(pe, map, 0x5A01)) {
                final MemorySegment mine = map.segment();
                mine.fill((byte) 0);
                pe.barrier();
                if (emulated(pe)) {
                    assertTrue(rk.describe().startsWith("rma=emulated("), rk.describe());
                }
                final long base = rk.base();
                long at = pe.rank() * (LEN / 2) + 64 + 3; // each PE writes its half of the peer's map
                for (final long n : new long[] {0, 1, 8, 100, 4099, 65537, 3L << 20}) {
                    final MemorySegment src = pe.pattern(n, (int) n + 1);
                    if ((n & 1) == 0) {
                        final Request p = pe.ep().put(src, 0, n, base + at, rk);
                        assertEquals(Status.OK, pe.await(p), "put " + n + " over " + rk.describe());
                        p.release();
                    } else {
                        final Status st = pe.ep().putNbi(src, 0, n, base + at, rk);
                        assertTrue(st == Status.OK || st == Status.IN_PROGRESS, "putNbi " + n + ": " + st);
                    }
                    final Request f = pe.ep().flush();
                    assertEquals(Status.OK, pe.await(f), "flush after a put of " + n);
                    f.release();
                    final MemorySegment back = pe.arena().allocate(Math.max(1, n));
                    final Request g = pe.ep().get(back, 0, n, base + at, rk);
                    assertEquals(Status.OK, pe.await(g), "get " + n);
                    g.release();
                    Pe.checkPattern(back, n, (int) n + 1, "get after put of " + n + " over " + rk.describe());
                    if (n > 0 && n <= 65537) { // into a Java array too
                        final byte[] heap = new byte[(int) n];
                        final Request h = pe.ep().get(MemorySegment.ofArray(heap), 0, n, base + at, rk);
                        assertEquals(Status.OK, pe.await(h), "heap get " + n);
                        h.release();
                        Pe.checkPattern(MemorySegment.ofArray(heap), n, (int) n + 1, "heap get of " + n);
                    }
                    at += n + 5;
                }
                // put, fence, put to one word: the second lands last
                final long word = base + pe.rank() * (LEN / 2) + 8;
                final MemorySegment one = pe.arena().allocate(8);
                for (long v = 1; v <= 20; v++) {
                    one.set(ValueLayout.JAVA_LONG, 0, v);
                    final Status st = pe.ep().putNbi(one, 0, 8, word, rk);
                    assertTrue(st == Status.OK || st == Status.IN_PROGRESS, "putNbi: " + st);
                    pe.worker().fence();
                }
                final Request f = pe.ep().flush();
                assertEquals(Status.OK, pe.await(f));
                f.release();
                final Request g = pe.ep().get(one, 0, 8, word, rk);
                assertEquals(Status.OK, pe.await(g));
                g.release();
                assertEquals(20, one.get(ValueLayout.JAVA_LONG, 0), "puts separated by fences land in order");
                // out of range: refused at the target, nothing written or read
                final MemorySegment eight = pe.pattern(8, 99);
                final Request bad = pe.ep().put(eight, 0, 8, base + LEN - 4, rk);
                assertEquals(Status.OUT_OF_RANGE, pe.await(bad), "put across the end of the region");
                bad.release();
                final Request below = pe.ep().get(eight, 0, 8, base - 8, rk);
                assertEquals(Status.OUT_OF_RANGE, pe.await(below), "get before the region");
                below.release();
                final Request ok = pe.ep().flush();
                final Status fst = pe.await(ok);
                assertTrue(fst == Status.OK || fst == Status.OUT_OF_RANGE, "flush after refusals: " + fst);
                ok.release();
                pe.barrier();
                assertEquals(0L, mine.get(ValueLayout.JAVA_LONG_UNALIGNED, LEN - 8), "nothing written past the end");
                pe.barrier();
            }
        }
    }

    /**
     * A key stripped of its emulation entry, over a set with no lane to registered memory: UNREACHABLE
     * naming the lanes that were considered.
     */
    public static final class UnreachableNamesLanes implements Scenario {
        @Override
        public void run(final Pe pe) {
            try (MemoryMap map = pe.worker().context().memMap(pe.arena().allocate(4096, 4096), 0)) {
                final byte[] stripped = withoutLastEntry(map.packRkey());
                if (emulated(pe)) {
                    final WeftException e = assertThrows(WeftException.class, () -> pe.ep().unpackRkey(stripped));
                    assertEquals(Status.UNREACHABLE, e.status());
                    assertTrue(e.getMessage().contains("lanes considered: ") && e.getMessage().contains("shm"),
                        e.getMessage());
                } else {
                    try (Rkey k = pe.ep().unpackRkey(stripped)) {
                        assertTrue(!k.describe().startsWith("rma=none"), k.describe());
                    }
                }
            }
            pe.barrier();
        }

        /** The packed key without its last entry (the emulation entry, which packRkey puts last). */
        private static byte[] withoutLastEntry(final byte[] k) {
            final int countAt = 4 + 1 + 1 + 8 + 8;
            final int n = k[countAt] & 0xFF;
            int p = countAt + 1;
            for (int i = 0; i < n - 1; i++) {
                p += 1 + (k[p] & 0xFF);
                p += 2 + ((k[p] & 0xFF) | (k[p + 1] & 0xFF) << 8);
            }
            assertEquals("ucp-amo", new String(k, p + 1, k[p] & 0xFF, StandardCharsets.US_ASCII), "last entry");
            final byte[] out = java.util.Arrays.copyOf(k, p);
            out[countAt] = (byte) (n - 1);
            return out;
        }
    }
}
