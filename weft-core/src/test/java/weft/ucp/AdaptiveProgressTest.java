package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Adaptive progress: interfaces without lanes are progressed only sparsely, yet traffic that arrives on
 * one (a peer whose lanes differ from ours) is still delivered, in order and promptly.
 */
@Timeout(60)
class AdaptiveProgressTest {
    private static int lanesOn(final Worker w, final String transport) {
        int n = 0;
        for (final WorkerIface wi : w.ifaces) {
            if (wi.transport.name().equals(transport)) {
                n += wi.lanes;
            }
        }
        return n;
    }

    @Test
    void shouldCountLanesPerInterfaceAndReleaseThemOnClose() {
        try (Context ctx = Context.builder().transports("shm", "cma", "self", "tcp").build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker()) {
            final Endpoint ab = a.connect(b.address());
            assertTrue(ab.describe().contains("shm/"), ab.describe());
            assertEquals(1, lanesOn(a, "shm"), ab.describe());
            assertEquals(0, lanesOn(a, "tcp"), "tcp carries no lane of a same-node endpoint: idle");
            assertEquals(0, lanesOn(a, "self"));
            ab.close();
            assertEquals(0, lanesOn(a, "shm"));
            assertEquals(0, lanesOn(a, "cma"));
        }
    }

    @Test
    void shouldDeliverTrafficArrivingOnAnIdleInterface() {
        try (Context ctx = Context.builder().transports("shm", "cma", "self", "tcp").build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            // a reaches b over tcp only (b's address without its same-node entries); b's endpoint back to a,
            // created from a's full address in wireup, uses shm: b's tcp interface has no lane, yet a's
            // messages arrive on it
            final WorkerAddress full = WorkerAddress.unpack(b.address());
            final List<WorkerAddress.Entry> tcpOnly = new ArrayList<>();
            for (final WorkerAddress.Entry e : full.entries()) {
                if (e.transport().equals("tcp")) {
                    tcpOnly.add(e);
                }
            }
            final Endpoint ab = a.connect(new WorkerAddress(full.uuid(), tcpOnly).pack());
            assertTrue(ab.describe().startsWith("lane 0: tcp/"), ab.describe());
            final int n = 2000;
            final MemorySegment src = arena.allocate(8);
            final MemorySegment dst = arena.allocate(8);
            final long deadline = System.nanoTime() + 30_000_000_000L;
            for (int i = 0; i < n; i++) {
                src.set(ValueLayout.JAVA_LONG, 0, i);
                final Request sr = ab.sendTag(5, src, 0, 8);
                final Request rr = b.recvTag(dst, 0, 8, 5, -1L);
                while (!(rr.isCompleted() && sr.isCompleted())) {
                    a.progress();
                    b.progress();
                    assertTrue(System.nanoTime() < deadline, "message " + i + " not delivered: " + rr);
                }
                assertEquals(Status.OK, rr.status());
                assertEquals(i, dst.get(ValueLayout.JAVA_LONG, 0), "in order");
                rr.release();
                sr.release();
            }
            final Endpoint ba = b.endpoints().get(0);
            assertTrue(ba.describe().startsWith("lane 0: shm/"), ba.describe());
            assertEquals(0, lanesOn(b, "tcp"), "b's tcp interface stayed idle (no lane): " + ba.describe());
        }
    }
}
