package weft.ucp.conformance;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.uct.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What an 8-byte tcp get costs next to one tcp tag round trip (the issue's bound: a get is served by
 * the target's progress in the pass that reads the request, so it should cost one round trip, not
 * more). Two processes over tcp; prints median-of-rounds figures, asserts only correctness. Run on
 * demand: {@code mvn -pl weft-core test -Dweft.slow=true -Dtest=RmaTcpGetCostMeasurement}, then read
 * {@code target/surefire-reports/*RmaTcpGetCostMeasurement-output.txt}.
 */
@Tag("slow")
@Timeout(120)
class RmaTcpGetCostMeasurement {
    @Test
    void tcpGetOfEightBytesCostsOneTagRoundTrip() throws Exception {
        ScenarioRunner.run(GetCost.class, "tcp,self", ScenarioRunner.Mode.CROSS_PROCESS, 100);
    }

    /** Rank 0 measures; rank 1 echoes tags, then only progresses (serving the gets) until told to stop. */
    public static final class GetCost implements Scenario {
        static final int N = 5000;
        static final int ROUNDS = 5;

        @Override
        public void run(final Pe pe) {
            try (MemoryMap heap = pe.worker().context().memMap(4096, 0);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6200)) {
                heap.segment().set(ValueLayout.JAVA_LONG, 0, 42L);
                pe.barrier();
                final MemorySegment buf = pe.arena().allocate(64);
                final double[] tag = new double[ROUNDS];
                final double[] get = new double[ROUNDS];
                final double[] fadd = new double[ROUNDS];
                for (int round = 0; round < ROUNDS; round++) {
                    if (pe.rank() == 0) {
                        long t = System.nanoTime();
                        for (int i = 0; i < N; i++) {
                            final Request r = pe.worker().recvTag(buf, 8, 8, 2, -1L);
                            final Request s = pe.ep().sendTag(1, buf, 0, 8);
                            pe.await(r);
                            pe.await(s);
                            r.release();
                            s.release();
                        }
                        tag[round] = (System.nanoTime() - t) / 1e3 / N;
                        t = System.nanoTime();
                        for (int i = 0; i < N; i++) {
                            final Request g = pe.ep().get(buf, 16, 8, rk.base(), rk);
                            pe.await(g);
                            g.release();
                        }
                        get[round] = (System.nanoTime() - t) / 1e3 / N;
                        assertEquals(42L, buf.get(ValueLayout.JAVA_LONG, 16), "get data");
                        t = System.nanoTime();
                        for (int i = 0; i < N; i++) {
                            final Request g = pe.ep().atomicFetch(AtomicOp.ADD, 0, buf, 24, rk.base() + 8, rk);
                            pe.await(g);
                            g.release();
                        }
                        fadd[round] = (System.nanoTime() - t) / 1e3 / N;
                        final Request s = pe.ep().sendTag(3, buf, 0, 8);
                        assertEquals(Status.OK, pe.await(s));
                        s.release();
                    } else {
                        for (int i = 0; i < N; i++) {
                            final Request r = pe.worker().recvTag(buf, 8, 8, 1, -1L);
                            pe.await(r);
                            r.release();
                            final Request s = pe.ep().sendTag(2, buf, 8, 8);
                            pe.await(s);
                            s.release();
                        }
                        final Request stop = pe.worker().recvTag(buf, 0, 8, 3, -1L);
                        assertEquals(Status.OK, pe.await(stop, 60)); // progress serves the gets meanwhile
                        stop.release();
                    }
                }
                if (pe.rank() == 0) {
                    java.util.Arrays.sort(tag);
                    java.util.Arrays.sort(get);
                    java.util.Arrays.sort(fadd);
                    System.out.printf("tcp, two processes, median of %d rounds of %d: tag round trip 8 B %.2f us, "
                        + "get 8 B %.2f us (%.2fx the round trip), fetch-add 64 %.2f us%n", ROUNDS, N, tag[ROUNDS / 2],
                        get[ROUNDS / 2], get[ROUNDS / 2] / tag[ROUNDS / 2], fadd[ROUNDS / 2]);
                }
                pe.barrier();
            }
        }
    }
}
