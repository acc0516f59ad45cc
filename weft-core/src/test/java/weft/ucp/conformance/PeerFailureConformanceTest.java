package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.conformance.Resources;
import weft.uct.conformance.Waits;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Error handling on by default: a peer process killed with SIGKILL fails its endpoint within 2 s over
 * every transport set, every outstanding request to it completes with an error, its error handler runs,
 * and the worker goes on serving another peer.
 */
@Timeout(90)
class PeerFailureConformanceTest {
    /** A dead peer is seen within the ucp keepalive interval plus shm's liveness check (defaults 500 + 200 ms). */
    private static final long DETECTION_MS = 500 + 200;

    static {
        Two.warmUp();
    }

    static List<String> sets() {
        return ScenarioRunner.TRANSPORT_SETS;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sets")
    void sigkilledPeerFailsItsEndpointAndEverythingOutstanding(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Child peer = new Child(tls);
             Context ctx2 = Two.context(tls, Config.global());
             Worker other = ctx2.newWorker()) {
            final PeerProcess child = peer.process;
            final Worker w = peer.worker;
            final Endpoint ep = w.connect(peer.address);
            final AtomicReference<Status> err = new AtomicReference<>();
            final AtomicLong errAt = new AtomicLong();
            ep.onError((e, st) -> {
                errAt.set(System.nanoTime());
                err.set(st);
            });
            final MemorySegment buf = peer.arena.allocate(1 << 20);
            echo(w, ep, buf, 4096);
            // outstanding work toward the peer: a sync send (never matched) and a rendezvous (never
            // received) in flight, then sends queued behind a full lane (the peer stops reading)
            final Request sync = ep.sendTagSync(50, buf, 0, 64);
            final Request rndv = ep.sendTag(51, buf, 0, Math.max(ep.rendezvousThreshold(), 8192) * 2);
            for (int i = 0; i < 1000; i++) {
                w.progress();
            }
            assertTrue(!sync.isCompleted() && !rndv.isCompleted(), "both wait for the peer");
            child.send("STOP");
            Thread.sleep(100);
            // medium messages the peer will never read: where they go by reference (eager get), their pool
            // slots stay lent until the peer is known dead
            for (int i = 0; i < 4; i++) {
                ep.sendTag(61, buf, 0, 16 * 1024).release();
                w.progress();
            }
            final int lentBeforeKill = w.eagerGetSlotsLent();
            final List<Request> queued = new java.util.ArrayList<>();
            for (int i = 0; i < 50_000 && queued.size() < 4; i++) {
                final Request q = ep.sendTag(60, buf, 0, 4096);
                if (!q.isCompleted()) {
                    queued.add(q); // the lane is full: this one waits in the endpoint's send queue
                }
                w.progress();
            }
            assertTrue(!queued.isEmpty(), "the lane never filled up");
            final long t0 = System.nanoTime();
            child.kill();
            await(w, () -> err.get() != null, 10, "the error handler");
            final long ms = (errAt.get() - t0) / 1_000_000;
            System.out.println("peer SIGKILL over " + tls + ": endpoint failed with " + err.get() + " after " + ms + " ms");
            assertTrue(ms <= Waits.bound(DETECTION_MS), "detected after " + ms + " ms (want <= "
                + Waits.bound(DETECTION_MS) + " ms)");
            assertTrue(err.get().isError());
            await(w, () -> sync.isCompleted() && rndv.isCompleted(), 2, "outstanding requests");
            assertTrue(sync.status().isError(), "sync send: " + sync.status());
            assertTrue(rndv.status().isError(), "rendezvous send: " + rndv.status());
            for (final Request q : queued) {
                assertTrue(q.isCompleted() && q.status().isError(), "queued send: " + q.status());
                q.release();
            }
            assertEquals(err.get(), ep.status());
            if (lentBeforeKill > 0) {
                assertEquals(0, w.eagerGetSlotsLent(), "eager-get slots lent to the dead peer come back");
            }
            System.out.println("eager-get slots lent to the peer before its kill: " + lentBeforeKill);
            assertTrue(ep.sendTag(1, buf, 0, 8).status().isError(), "sends to a failed endpoint fail at once");
            sync.release();
            rndv.release();
            // the worker still serves other peers
            final Endpoint toOther = w.connect(other.address());
            final Endpoint back = other.connect(w.address());
            final Request rr = other.recvTag(buf, 8192, 8, 7, -1L);
            final Request ss = toOther.sendTag(7, buf, 0, 8);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!rr.isCompleted() && System.nanoTime() < deadline) {
                w.progress();
                other.progress();
            }
            assertEquals(Status.OK, rr.status(), "another peer is still served");
            assertEquals(0x1234_5678L, buf.get(ValueLayout.JAVA_LONG, 8192));
            ss.release();
            rr.release();
            assertNotNull(back);
            ep.close(); // closing a failed endpoint is fine
        }
        Resources.assertBackTo(before, "peer failure over " + tls, 3000);
    }

    /** Across processes: each side's close (endpoint, then worker) fails the other side's endpoint. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sets")
    void crossProcessCloseIsSeenByThePeer(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Child peer = new Child(tls)) {
            final PeerProcess child = peer.process;
            final Worker w = peer.worker;
            final byte[] childAddr = peer.address;
            final MemorySegment buf = peer.arena.allocate(64);
            final Endpoint ep = w.connect(childAddr);
            echo(w, ep, buf, 8);
            // our endpoint close (flush) -> the child's endpoint fails at once (EP_REMOVED)
            final long t0 = System.nanoTime();
            ep.close();
            assertEquals("CONNECTION_RESET", child.expect("EPFAILED "));
            System.out.println("close over " + tls + ": the peer saw it after " + (System.nanoTime() - t0) / 1_000_000
                + " ms");
            // a second endpoint; the child's worker closes -> ours fails within the bound
            final Endpoint ep2 = w.connect(childAddr);
            final AtomicReference<Status> err = new AtomicReference<>();
            ep2.onError((e, st) -> err.set(st));
            final Request sync = ep2.sendTagSync(9, buf, 0, 8); // matched by nobody: in flight until the close
            for (int i = 0; i < 2000; i++) {
                w.progress();
            }
            child.send("CLOSEWORKER");
            child.expect("WORKERCLOSED");
            final long t1 = System.nanoTime();
            await(w, () -> err.get() != null, Waits.bound(DETECTION_MS) / 1000.0,
                "our endpoint to fail after the peer's worker closed");
            assertTrue(System.nanoTime() - t1 < Waits.bound(DETECTION_MS) * 1_000_000L);
            await(w, sync, 2, "the sync send");
            assertTrue(sync.status().isError(), "sync send: " + sync.status());
            sync.release();
            ep2.close();
        }
        Resources.assertBackTo(before, "cross-process close over " + tls, 3000);
    }

    /**
     * A peer that drops its endpoint (force close, no progress) leaves our eager-get messages unread: the
     * slots they hold come back when its notice fails our endpoint, though the peer process lives on.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sets")
    void peerEndpointCloseReturnsTheSlotsItNeverRead(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Child peer = new Child(tls)) {
            final PeerProcess child = peer.process;
            final Worker w = peer.worker;
            final MemorySegment buf = peer.arena.allocate(64 * 1024);
            final Endpoint ep = w.connect(peer.address);
            final AtomicReference<Status> err = new AtomicReference<>();
            ep.onError((e, st) -> err.set(st));
            echo(w, ep, buf, 32 * 1024);
            child.send("STOP");
            Thread.sleep(100);
            for (int i = 0; i < 4; i++) {
                ep.sendTag(61, buf, 0, 16 * 1024).release();
                w.progress();
            }
            final int lent = w.eagerGetSlotsLent();
            child.send("CLOSEEP");
            child.expect("EPCLOSED");
            await(w, () -> err.get() != null, 5, "our endpoint to fail after the peer closed its endpoint");
            System.out.println("peer endpoint close over " + tls + ": " + err.get() + ", " + lent
                + " eager-get slots were lent");
            assertEquals(0, w.eagerGetSlotsLent(), "slots lent to an endpoint the peer dropped come back");
            ep.close();
        }
        Resources.assertBackTo(before, "peer endpoint close over " + tls, 3000);
    }

    /**
     * The peer process (LifecyclePeerMain "address" mode), our worker on its own context, an arena, and
     * the child's worker address: addresses swapped and the child ready. Closed in reverse order.
     */
    private static final class Child implements AutoCloseable {
        final PeerProcess process;
        final Worker worker;
        final Arena arena;
        final byte[] address;
        private final Context ctx;

        Child(final String tls) throws Exception {
            process = new PeerProcess("address", tls);
            Context c = null;
            Worker w = null;
            try {
                c = Two.context(tls, Config.global());
                w = c.newWorker();
                address = HexFormat.of().parseHex(process.expect("ADDR "));
                process.send("ADDR " + HexFormat.of().formatHex(w.address()));
                process.expect("READY");
            } catch (final Exception | Error e) {
                if (w != null) {
                    w.close();
                }
                if (c != null) {
                    c.close();
                }
                process.close();
                throw e;
            }
            ctx = c;
            worker = w;
            arena = Arena.ofConfined();
        }

        @Override
        public void close() throws Exception {
            try (PeerProcess p = process; Context c = ctx; Worker w = worker; Arena a = arena) {
                // closed in reverse: arena, worker, context, process
            }
        }
    }

    /** The child echoes tag 1 back on tag 2: proves the endpoint works both ways (and both sides are wired). */
    private static void echo(final Worker w, final Endpoint ep, final MemorySegment buf, final long at) {
        buf.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678L);
        final Request echo = w.recvTag(buf, at, 8, 2, -1L);
        final Request ping = ep.sendTag(1, buf, 0, 8);
        await(w, echo, 20, "echo from the peer");
        assertEquals(0x1234_5678L, buf.get(ValueLayout.JAVA_LONG, at));
        ping.release();
        echo.release();
    }

    static void await(final Worker w, final Request r, final double s, final String what) {
        await(w, r::isCompleted, s, what);
    }

    static void await(final Worker w, final java.util.function.BooleanSupplier c, final double s, final String what) {
        final long deadline = System.nanoTime() + (long) (s * 1e9);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + s + " s waiting for " + what);
            }
            w.progress();
        }
    }
}
