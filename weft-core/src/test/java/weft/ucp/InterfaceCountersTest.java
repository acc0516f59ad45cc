package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Worker#interfaceCounters()}: one entry per resource, in {@link Worker#resources()} order, whose
 * message counts follow the traffic (the sender's AM lane counts what it sent, the receiver's what it
 * received), and a copy: later traffic does not change a map already returned.
 */
@Timeout(60)
class InterfaceCountersTest {
    private static final int N = 1000;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void countersFollowTheTraffic(final String tl) {
        try (Context ctx = Context.builder().transports(tl).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment src = arena.allocate(8);
            final MemorySegment dst = arena.allocate(8);
            final Map<String, Counters> before = a.interfaceCounters();
            assertEquals(a.resources(), List.copyOf(before.keySet()));
            assertTrue(before.keySet().stream().anyMatch(n -> n.startsWith(tl + "/")), before.keySet().toString());
            final long tx0 = sum(before, tl, Counter.TX_MESSAGES);
            for (int i = 0; i < N; i++) {
                final Request r = b.recvTag(dst, 0, 8, 7, -1L);
                src.set(ValueLayout.JAVA_LONG, 0, i);
                final Request s = ab.sendTag(7, src, 0, 8);
                while (!r.isCompleted() || !s.isCompleted()) {
                    a.progress();
                    b.progress();
                }
                assertEquals(i, dst.get(ValueLayout.JAVA_LONG, 0));
                r.release();
                s.release();
            }
            // the transport's devices together (the AM lane is one of them: tcp may have several)
            final long sent = sum(a.interfaceCounters(), tl, Counter.TX_MESSAGES) - tx0;
            final long received = sum(b.interfaceCounters(), tl, Counter.RX_MESSAGES);
            assertTrue(sent >= N, tl + ": " + sent + " messages counted for " + N + " sends");
            assertTrue(received >= N, tl + ": " + received + " messages counted for " + N + " receives");
            assertEquals(tx0, sum(before, tl, Counter.TX_MESSAGES), "the first map is a copy");
        }
    }

    private static long sum(final Map<String, Counters> counters, final String tl, final Counter c) {
        return counters.entrySet().stream().filter(e -> e.getKey().startsWith(tl + "/"))
            .mapToLong(e -> e.getValue().get(c)).sum();
    }
}
