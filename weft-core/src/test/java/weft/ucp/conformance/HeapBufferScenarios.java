package weft.ucp.conformance;

import weft.ucp.AmFlags;
import weft.ucp.Request;
import weft.ucs.Status;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Java-heap buffers ({@code MemorySegment.ofArray}) on the large-message paths, run by
 * {@link HeapBufferConformanceTest} over every transport set and mode: no transport can register heap
 * memory (it has no fixed native address), so rendezvous must not need it to.
 */
public final class HeapBufferScenarios {
    private static final int AM_ID = 9;

    private HeapBufferScenarios() {
    }

    /** A heap segment holding {@link Pe#pattern}{@code (n, seed)}. */
    static MemorySegment heapPattern(final Pe pe, final long n, final int seed) {
        final MemorySegment m = MemorySegment.ofArray(new byte[(int) n]);
        MemorySegment.copy(pe.pattern(n, seed), 0, m, 0, n);
        return m;
    }

    /** Where a message's bytes live at each side. */
    private enum Sides {
        HEAP_TO_NATIVE(true, false), NATIVE_TO_HEAP(false, true), HEAP_TO_HEAP(true, true);

        final boolean heapSend;
        final boolean heapRecv;

        Sides(final boolean heapSend, final boolean heapRecv) {
            this.heapSend = heapSend;
            this.heapRecv = heapRecv;
        }
    }

    /**
     * Tag sends of 64 KiB + 1, the rendezvous threshold and 1 MiB between heap and native buffers (heap
     * send, heap receive, both), expected and unexpected, then the same through active messages
     * (rendezvous forced and by size, the data received into a heap or native buffer); both directions,
     * every byte checked.
     */
    public static final class Rendezvous implements Scenario {
        private final List<Request> pulls = new ArrayList<>();
        private final List<MemorySegment> pulled = new ArrayList<>();
        private final List<long[]> pulledCase = new ArrayList<>();
        private long[] amCase;

        @Override
        public void run(final Pe pe) {
            final long r = pe.ep().rendezvousThreshold();
            final long[] sizes = {64 * 1024 + 1, r, 1 << 20};
            pe.worker().setAmHandler(AM_ID, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                final long[] c = amCase; // {size, seed, heapRecv}
                assertEquals(c[0], dLen, "AM data length");
                final MemorySegment dst = c[2] != 0 ? MemorySegment.ofArray(new byte[(int) dLen])
                    : pe.arena().allocate(dLen, 64);
                if (msg.isRendezvous()) {
                    pulls.add(pe.worker().recvAmData(msg, dst, 0, dLen));
                } else {
                    MemorySegment.copy(d, dOff, dst, 0, dLen);
                    pulls.add(null);
                }
                pulled.add(dst);
                pulledCase.add(c);
                return Status.OK;
            }, 0);
            int seed = 1;
            for (int dir = 0; dir < 2; dir++) {
                final boolean sender = pe.rank() == dir;
                for (final Sides sides : Sides.values()) {
                    for (final long n : sizes) {
                        for (final boolean unexpected : new boolean[] {false, true}) {
                            tag(pe, sender, sides, n, seed++, unexpected, r);
                        }
                        for (final int flags : new int[] {0, AmFlags.SEND_RNDV}) {
                            am(pe, sender, sides, n, seed++, flags);
                        }
                    }
                }
            }
        }

        private static void tag(final Pe pe, final boolean sender, final Sides sides, final long n, final int seed,
                                final boolean unexpected, final long rndv) {
            final String what = "tag " + sides + " " + n + " B" + (unexpected ? " unexpected" : "") + " (rendezvous from "
                + rndv + ")";
            final long tag = 0x4EA9_0000L | seed;
            if (sender) {
                if (!unexpected) {
                    pe.barrier(); // the receive is posted
                }
                final MemorySegment src = sides.heapSend ? heapPattern(pe, n, seed) : pe.pattern(n, seed);
                final Request q = pe.ep().sendTag(tag, src, 0, n);
                if (unexpected) {
                    pe.barrier(); // a rendezvous send completes once the receiver has matched it
                }
                assertEquals(Status.OK, pe.await(q), what + ": send");
                q.release();
            } else {
                final MemorySegment dst = sides.heapRecv ? MemorySegment.ofArray(new byte[(int) n])
                    : pe.arena().allocate(n, 64);
                if (unexpected) {
                    pe.barrier(); // the RTS (or eager data) waits unexpected
                }
                final Request q = pe.worker().recvTag(dst, 0, n, tag, -1L);
                if (!unexpected) {
                    pe.barrier();
                }
                assertEquals(Status.OK, pe.await(q), what + ": receive");
                q.release();
                Pe.checkPattern(dst, n, seed, what);
            }
            pe.barrier();
        }

        private void am(final Pe pe, final boolean sender, final Sides sides, final long n, final int seed,
                        final int flags) {
            final String what = "AM " + sides + " " + n + " B flags " + flags;
            amCase = new long[] {n, seed, sides.heapRecv ? 1 : 0};
            pe.barrier(); // both know the case
            if (sender) {
                final MemorySegment src = sides.heapSend ? heapPattern(pe, n, seed) : pe.pattern(n, seed);
                final Request q = pe.ep().sendAm(AM_ID, MemorySegment.NULL, 0, 0, src, 0, n, flags);
                assertEquals(Status.OK, pe.await(q), what + ": send");
                q.release();
            } else {
                AmScenarios.until(pe, () -> !pulled.isEmpty(), what + ": arrival");
                final Request q = pulls.getFirst();
                if (q != null) {
                    assertEquals(Status.OK, pe.await(q), what + ": rendezvous receive");
                    q.release();
                } else {
                    assertTrue(flags == 0, what + ": a forced rendezvous arrived eager");
                }
                assertEquals(seed, pulledCase.getFirst()[1], what + ": message order");
                Pe.checkPattern(pulled.getFirst(), n, seed, what);
                pulls.clear();
                pulled.clear();
                pulledCase.clear();
            }
            pe.barrier();
        }
    }
}
