package weft.ucp.conformance;

import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.uct.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which lane carries the atomics of a key, run by {@link AmoLaneConformanceTest} over transport sets that
 * offer tcp beside same-node transports: a same-node peer's registered (not allocated) memory has no
 * same-node transport with atomics on it (cma has none, shm cannot register it), and its atomics must still
 * stay on the node (emulated at the target over the shm AM lane) rather than go over a tcp connection.
 */
public final class AmoLaneScenarios {
    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();

    private AmoLaneScenarios() {
    }

    /** The atomic lane named by {@code Rkey.describe()} ("amo=..."). */
    static String amo(final Rkey rk) {
        final String d = rk.describe();
        return d.substring(d.indexOf("amo=") + 4);
    }

    /**
     * Registered and allocated memory: the key's atomics take a same-node path when the transport set has
     * one, and unpacking the key connected no lane the key does not use; fetch-adds from the peer and the
     * owner's CPU fetch-adds on one word interleave, and the old values both sides saw are exactly
     * 0 .. 2n-1, each once (every other op under contention: {@link RmaExactScenarios.AtomicContention}).
     */
    public static final class SameNodeFirst implements Scenario {
        @Override
        public void run(final Pe pe) {
            run(pe, true);
            run(pe, false);
        }

        private static void run(final Pe pe, final boolean registered) {
            final boolean sameNode = pe.tls().contains("shm");
            final int n = pe.tls().contains("tcp") && !sameNode ? 300 : 1000;
            final Set<String> lanesBefore = pe.ep().laneCounters().keySet();
            try (MemoryMap map = RmaExactScenarios.map(pe, 4096, registered);
                 Rkey rk = RmaScenarios.exchange(pe, map, 0x7A00 + (registered ? 1 : 0))) {
                final String amo = amo(rk);
                final String what = (registered ? "registered" : "allocated") + " memory over " + pe.tls() + ": "
                    + rk.describe();
                assertTrue(!amo.startsWith("none"), "no atomic lane for " + what);
                if (sameNode) {
                    assertTrue(!amo.contains("tcp"), "atomics go over tcp for " + what);
                }
                final Set<String> added = new TreeSet<>(pe.ep().laneCounters().keySet());
                added.removeAll(lanesBefore);
                for (final String lane : added) {
                    assertTrue(rk.describe().contains(lane), "unpacking the key connected " + lane + ", which it does "
                        + "not use, for " + what);
                }
                final MemorySegment w = map.segment();
                w.set(ValueLayout.JAVA_LONG, 0, 0);
                pe.barrier();
                final MemorySegment res = pe.arena().allocate(8);
                final long[] remoteOld = new long[n];
                final long[] localOld = new long[n];
                for (int i = 0; i < n; i++) {
                    final Request r = pe.ep().atomicFetch(AtomicOp.ADD, 1, res, 0, rk.base(), rk);
                    assertEquals(Status.OK, pe.await(r), "fetch-add " + i + " on " + what);
                    r.release();
                    remoteOld[i] = res.get(ValueLayout.JAVA_LONG, 0);
                    localOld[i] = (long) I64.getAndAdd(w, 0L, 1L); // the owner's CPU atomic, same word
                }
                // the peer learns what my fetch-adds on its word returned
                final MemorySegment mine = pe.arena().allocate(8L * n);
                MemorySegment.copy(remoteOld, 0, mine, ValueLayout.JAVA_LONG, 0, n);
                final MemorySegment theirs = pe.arena().allocate(8L * n);
                final Request recv = pe.worker().recvTag(theirs, 0, 8L * n, 0x7B00 + (registered ? 1 : 0), -1L);
                final Request send = pe.ep().sendTag(0x7B00 + (registered ? 1 : 0), mine, 0, 8L * n);
                assertEquals(Status.OK, pe.await(send));
                assertEquals(Status.OK, pe.await(recv));
                send.release();
                recv.release();
                pe.barrier();
                assertEquals(2L * n, w.get(ValueLayout.JAVA_LONG, 0), "final value on " + what);
                final long[] all = new long[2 * n];
                System.arraycopy(localOld, 0, all, 0, n);
                MemorySegment.copy(theirs, ValueLayout.JAVA_LONG, 0, all, n, n);
                Arrays.sort(all);
                for (int i = 0; i < all.length; i++) {
                    if (all[i] != i) {
                        throw new AssertionError("fetch-add results on " + what + " are not 0.." + (2 * n - 1)
                            + " each once: position " + i + " holds " + all[i]);
                    }
                }
                pe.barrier();
            }
        }
    }
}
