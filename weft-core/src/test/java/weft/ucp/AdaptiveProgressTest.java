package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Adaptive progress: interfaces without lanes and without activity of their own are progressed only on a
 * sparse idle turn ({@code WEFT_IDLE_PROGRESS_INTERVAL}), yet a peer's first contact on one is noticed
 * (by that turn, or at once through {@code arm()}), and traffic that arrives on one (a peer whose lanes
 * differ from ours) is still delivered, in order and promptly.
 */
@Timeout(60)
class AdaptiveProgressTest {
    private static final long GUARD_NS = 60_000_000_000L; // a hang guard, not a speed bound

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

    /** True if an interface of {@code transport} says it has work of its own (see Interface.hasActivity). */
    private static boolean activityOn(final Worker w, final String transport) {
        for (final WorkerIface wi : w.ifaces) {
            if (wi.transport.name().equals(transport) && wi.iface.hasActivity()) {
                return true;
            }
        }
        return false;
    }

    /** {@code b}'s address with only its tcp entries: a peer given it reaches b over tcp alone. */
    private static byte[] tcpOnly(final Worker b) {
        final WorkerAddress full = WorkerAddress.unpack(b.address());
        final List<WorkerAddress.Entry> tcp = new ArrayList<>();
        for (final WorkerAddress.Entry e : full.entries()) {
            if (e.transport().equals("tcp")) {
                tcp.add(e);
            }
        }
        return new WorkerAddress(full.uuid(), tcp).pack();
    }

    /** Sends one tag message a to b and waits for it, progressing both (fails only on the hang guard). */
    private static void exchange(final Worker a, final Endpoint ab, final Worker b, final Arena arena, final long v) {
        final MemorySegment src = arena.allocate(8);
        final MemorySegment dst = arena.allocate(8);
        src.set(ValueLayout.JAVA_LONG, 0, v);
        final Request sr = ab.sendTag(9, src, 0, 8);
        final Request rr = b.recvTag(dst, 0, 8, 9, -1L);
        final long deadline = System.nanoTime() + GUARD_NS;
        while (!(rr.isCompleted() && sr.isCompleted())) {
            a.progress();
            b.progress();
            assertTrue(System.nanoTime() - deadline < 0, "a first contact on an idle interface was never noticed");
        }
        assertEquals(Status.OK, rr.status());
        assertEquals(Status.OK, sr.status());
        assertEquals(v, dst.get(ValueLayout.JAVA_LONG, 0));
        rr.release();
        sr.release();
    }

    @ParameterizedTest(name = "WEFT_IDLE_PROGRESS_INTERVAL={0}")
    @ValueSource(strings = {"0", "100us", "inf"})
    void aFirstContactOnAnIdleInterfaceIsNoticedOnItsIdleTurn(final String interval) {
        final Config cfg = Config.global().with("IDLE_PROGRESS_INTERVAL", interval);
        try (Context ctx = Context.builder().transports("shm", "cma", "self", "tcp").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Worker c = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            // b is busy over shm with c; its tcp interfaces carry no lane and hold no connection: idle
            final Endpoint cb = c.connect(b.address());
            exchange(c, cb, b, arena, 1);
            assertEquals(0, lanesOn(b, "tcp"));
            assertFalse(activityOn(b, "tcp"), "no connection on b's tcp interfaces yet");
            // a reaches b over tcp only: its connection and wireup arrive on b's idle tcp interface, which
            // only its idle turn serves (b never sleeps, so nothing heats it)
            final Endpoint ab = a.connect(tcpOnly(b));
            exchange(a, ab, b, arena, 2);
            assertEquals(0, lanesOn(b, "tcp"), "b answers a over shm: its tcp interface still has no lane");
            assertTrue(activityOn(b, "tcp"), "the accepted connection is activity: progressed on every call");
            for (int i = 3; i < 200; i++) {
                exchange(a, ab, b, arena, i);
            }
            // a goes away: b's tcp interface notices the closed connection although it carries no lane
            ab.close();
            a.close();
            final long deadline = System.nanoTime() + GUARD_NS;
            while (activityOn(b, "tcp")) {
                b.progress();
                assertTrue(System.nanoTime() - deadline < 0, "the peer's closed connection was never noticed");
            }
            exchange(c, cb, b, arena, 7); // and b's busy lanes are unaffected
        }
    }

    @Test
    void armFindsEventsOnAnIdleInterfaceAndTheNextProgressServesThem() {
        // an idle turn at most once a second: what serves the event below is arm() making the interface hot
        final Config cfg = Config.global().with("IDLE_PROGRESS_INTERVAL", "1s");
        try (Context ctx = Context.builder().transports("shm", "cma", "self", "tcp").features(Feature.TAG,
                Feature.WAKEUP).config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            assertEquals(Status.OK, b.arm(), "nothing pending on a new worker");
            final Endpoint ab = a.connect(tcpOnly(b)); // a's connection reaches b's idle tcp listener
            final long deadline = System.nanoTime() + GUARD_NS;
            while (b.arm() == Status.OK) {
                a.progress();
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                assertTrue(System.nanoTime() - deadline < 0, "arm() never saw the connection on the idle interface");
            }
            assertTrue(b.progress() > 0, "arm() found events on an idle interface: the next progress must serve them");
            exchange(a, ab, b, arena, 42);
        }
    }
}
