package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A handler that keeps many messages: nothing is lost or corrupted while they are held (on shm the
 * transport descriptors themselves are held, so senders wait for releases), and persistent-data
 * handlers read their data at the same place after the call.
 */
@Timeout(60)
class AmKeepTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void keptMessagesStayIntactUntilReleased(final String tls) {
        final int n = 2000;
        try (Context ctx = Context.builder().features(Feature.values()).transports(tls.split(",")).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final ArrayDeque<AmMessage> kept = new ArrayDeque<>();
            final List<MemorySegment> seenData = new ArrayList<>();
            final long[] persistentOk = new long[1];
            b.setAmHandler(1, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                kept.add(msg);
                return Status.IN_PROGRESS;
            }, 0);
            b.setAmHandler(2, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                assertTrue(msg.isPersistent(), "persistent-data handler sees persistent data");
                seenData.add(d.asSlice(dOff, dLen)); // read after the call, at the same place
                kept.add(msg);
                return Status.IN_PROGRESS;
            }, AmFlags.HANDLER_PERSISTENT_DATA);
            final Endpoint ab = a.connect(b.address());
            final MemorySegment src = arena.allocate(200L * n, 8);
            for (int i = 0; i < n; i++) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, 200L * i, i);
            }
            final List<Request> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sends.add(ab.sendAm(i % 2 == 0 ? 1 : 2, src, 200L * i, 200, 0));
            }
            // hold everything for a while: senders may run out of resources, but nothing is lost
            final long holdEnd = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < holdEnd) {
                a.progress();
                b.progress();
            }
            final int heldAtOnce = kept.size();
            assertTrue(heldAtOnce > 0, "messages were kept");
            long next = 0;
            int persistentIdx = 0;
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (next < n) {
                a.progress();
                b.progress();
                while (!kept.isEmpty()) {
                    final AmMessage m = kept.poll();
                    assertEquals(next, m.data().get(ValueLayout.JAVA_LONG_UNALIGNED, m.dataOffset()), "message order and data");
                    if (m.id() == 2) {
                        assertEquals(next, seenData.get(persistentIdx++).get(ValueLayout.JAVA_LONG_UNALIGNED, 0),
                            "persistent data at the place the handler saw");
                        persistentOk[0]++;
                    }
                    b.releaseAmData(m);
                    next++;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + next + " of " + n + " messages arrived");
                }
            }
            for (final Request q : sends) {
                while (!q.isCompleted()) {
                    a.progress();
                    b.progress();
                }
                assertEquals(Status.OK, q.status());
                q.release();
            }
            assertEquals(n / 2, persistentOk[0]);
            System.out.println(tls + ": held " + heldAtOnce + " of " + n + " kept messages at once");
        }
    }
}
