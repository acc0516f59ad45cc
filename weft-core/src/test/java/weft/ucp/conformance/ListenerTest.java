package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.ConnectionRequest;
import weft.ucp.Endpoint;
import weft.ucp.Listener;
import weft.ucp.Request;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.uct.conformance.Resources;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Listener accept/reject and the authenticated handshake, two workers in one JVM (one thread). */
@Timeout(60)
class ListenerTest {
    static {
        Two.warmUp();
    }

    private static final Config SECRET = Config.global().with("JOB_SECRET", "s3cret-for-tests");
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "tcp,self"})
    void acceptedConnectionCarriesDataBothWaysOnTheChosenLanes(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Two t = new Two(tls, SECRET); Arena arena = Arena.ofConfined()) {
            final List<Endpoint> served = new ArrayList<>();
            final List<InetSocketAddress> peers = new ArrayList<>();
            try (Listener l = t.b.listen(ANY_PORT, req -> {
                peers.add(req.peerAddress());
                served.add(req.accept());
            })) {
                assertTrue(l.address().getPort() > 0, "port 0 picks a port");
                final Endpoint client = t.a.connect(l.address());
                assertNotNull(client.connectRequest());
                // a send posted before the server decided waits in the queue, then goes out in order
                final MemorySegment msg = arena.allocate(64);
                msg.fill((byte) 7);
                final Request early = client.sendTag(5, msg, 0, 64);
                t.await(client.connectRequest(), 10, "accept");
                assertEquals(Status.OK, client.connectRequest().status());
                client.connectRequest().release();
                assertEquals(1, served.size());
                assertEquals(InetAddress.getLoopbackAddress(), peers.get(0).getAddress());
                final MemorySegment in = arena.allocate(64);
                final Request r = t.b.recvTag(in, 0, 64, 5, -1L);
                t.await(r, 10, "first message");
                assertEquals(Status.OK, r.status());
                assertEquals(7, in.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63));
                t.await(early, 10, "early send");
                early.release();
                r.release();
                // the reverse direction, and a rendezvous-sized message (needs wireup ids both ways)
                final long big = served.get(0).rendezvousThreshold() + 4096;
                final MemorySegment src = arena.allocate(big);
                for (long i = 0; i < big; i++) {
                    src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 13));
                }
                final MemorySegment dst = arena.allocate(big);
                final Request rr = t.a.recvTag(dst, 0, big, 6, -1L);
                final Request ss = served.get(0).sendTag(6, src, 0, big);
                t.await(rr, 10, "rendezvous receive");
                t.await(ss, 10, "rendezvous send");
                assertEquals(Status.OK, rr.status());
                assertEquals(-1L, src.mismatch(dst));
                rr.release();
                ss.release();
                final String lanes = client.describe();
                if (tls.startsWith("shm")) {
                    assertTrue(lanes.contains("shm"), "same node picks shm: " + lanes);
                } else {
                    assertTrue(lanes.contains("tcp"), lanes);
                }
            }
        }
        Resources.assertBackTo(before, "listener over " + tls, 3000);
    }

    @Test
    void rejectedClientFailsWithRejectedAndItsHandlerRuns() {
        try (Two t = new Two("shm,self", SECRET); Arena arena = Arena.ofConfined()) {
            try (Listener l = t.b.listen(ANY_PORT, ConnectionRequest::reject)) {
                final Endpoint client = t.a.connect(l.address());
                final AtomicReference<Status> err = new AtomicReference<>();
                client.onError((ep, st) -> err.set(st));
                final MemorySegment msg = arena.allocate(8);
                final Request queued = client.sendTag(1, msg, 0, 8);
                t.await(client.connectRequest(), 10, "reject");
                assertEquals(Status.REJECTED, client.connectRequest().status());
                assertEquals(Status.REJECTED, err.get());
                assertEquals(Status.REJECTED, client.status());
                t.await(queued, 1, "queued send");
                assertEquals(Status.REJECTED, queued.status(), "the queued send completes with the failure");
                assertEquals(Status.REJECTED, client.sendTag(1, msg, 0, 8).status());
                assertTrue(t.b.endpoints().isEmpty(), "no endpoint on the server");
                client.close();
            }
        }
    }

    @Test
    void aWorkerCanConnectToItsOwnListener() {
        try (Two t = new Two("shm,self", SECRET); Arena arena = Arena.ofConfined()) {
            final List<Endpoint> served = new ArrayList<>();
            try (Listener l = t.a.listen(ANY_PORT, req -> served.add(req.accept()))) {
                final Endpoint client = t.a.connect(l.address());
                final MemorySegment buf = arena.allocate(16);
                buf.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 99);
                final Request r = t.a.recvTag(buf, 8, 8, 4, -1L);
                final Request s = client.sendTag(4, buf, 0, 8);
                t.await(r, 10, "loopback message");
                assertEquals(99, buf.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8));
                assertEquals(1, served.size());
                assertTrue(client.describe().contains("self"), client.describe());
                // the server side answers through its own endpoint (needs the ids learned by wireup)
                final Request r2 = t.a.recvTag(buf, 0, 8, 5, -1L);
                final Request s2 = served.get(0).sendTagSync(5, buf, 8, 8);
                t.await(s2, 10, "sync send back");
                assertEquals(Status.OK, r2.status());
                for (final Request x : List.of(r, s, r2, s2)) {
                    x.release();
                }
            }
        }
    }

    @Test
    void wrongSecretIsRefusedWithAClearError() {
        try (Two t = new Two("shm,self", SECRET);
             var other = Two.context("shm,self", Config.global().with("JOB_SECRET", "wrong"));
             var w = other.newWorker()) {
            final List<ConnectionRequest> seen = new ArrayList<>();
            try (Listener l = t.b.listen(ANY_PORT, seen::add)) {
                final WeftException e = assertThrows(WeftException.class, () -> w.connectBlocking(l.address(), 0));
                assertEquals(Status.REJECTED, e.status());
                assertTrue(e.getMessage().contains("WEFT_JOB_SECRET"), e.getMessage());
                for (int i = 0; i < 100; i++) {
                    t.b.progress();
                }
                assertTrue(seen.isEmpty(), "an unauthenticated client never reaches the handler");
            }
        }
    }

    @Test
    void nothingListeningIsUnreachableAndListenerCloseRejectsUndecided() throws Exception {
        try (Two t = new Two("shm,self", SECRET)) {
            final InetSocketAddress addr;
            final List<ConnectionRequest> pending = new ArrayList<>();
            final Endpoint client;
            try (Listener l = t.b.listen(ANY_PORT, pending::add)) { // decides nothing
                addr = l.address();
                client = t.a.connect(addr);
                t.progressUntil(() -> !pending.isEmpty(), 10, "request delivered");
                assertNull(t.b.endpoints().isEmpty() ? null : "endpoint", "not accepted yet");
            }
            t.await(client.connectRequest(), 10, "listener close");
            assertEquals(Status.REJECTED, client.connectRequest().status());
            assertTrue(pending.get(0).isDecided());
            final WeftException e = assertThrows(WeftException.class, () -> t.a.connectBlocking(addr, 0));
            assertEquals(Status.UNREACHABLE, e.status());
        }
    }

    static java.util.List<String> sets() {
        return ScenarioRunner.TRANSPORT_SETS;
    }

    /** Across processes: the child listens and accepts; data flows; killing it fails the endpoint. */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("sets")
    void crossProcessListenerAcceptsAndItsDeathFailsTheEndpoint(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (PeerProcess child = new PeerProcess("listen", tls, "s3cret-for-tests", "accept");
             var ctx = Two.context(tls, SECRET); var w = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final int port = Integer.parseInt(child.expect("PORT "));
            child.expect("READY");
            final Endpoint ep = w.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            final AtomicReference<Status> err = new AtomicReference<>();
            ep.onError((e, st) -> err.set(st));
            final MemorySegment buf = arena.allocate(4096);
            buf.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 0xFEEDL);
            final Request echo = w.recvTag(buf, 1024, 8, 2, -1L);
            final Request ping = ep.sendTag(1, buf, 0, 8); // queued until the child accepts
            PeerFailureConformanceTest.await(w, echo, 20, "echo through the accepted endpoint");
            assertEquals(0xFEEDL, buf.get(java.lang.foreign.ValueLayout.JAVA_LONG, 1024));
            assertEquals(Status.OK, ep.connectRequest().status());
            final String lanes = ep.describe();
            assertTrue(lanes.contains(tls.startsWith("shm") ? "shm" : "tcp"), "lanes: " + lanes);
            ping.release();
            echo.release();
            child.kill();
            PeerFailureConformanceTest.await(w, () -> err.get() != null, 5, "the error handler");
            ep.close();
        }
        Resources.assertBackTo(before, "cross-process listener over " + tls, 3000);
    }

    @Test
    void crossProcessRejectFailsTheClientEndpoint() throws Exception {
        try (PeerProcess child = new PeerProcess("listen", "shm,self", "s3cret-for-tests", "reject");
             var ctx = Two.context("shm,self", SECRET); var w = ctx.newWorker()) {
            final int port = Integer.parseInt(child.expect("PORT "));
            final Endpoint ep = w.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            final AtomicReference<Status> err = new AtomicReference<>();
            ep.onError((e, st) -> err.set(st));
            PeerFailureConformanceTest.await(w, ep.connectRequest(), 20, "the decision");
            assertEquals(Status.REJECTED, ep.connectRequest().status());
            assertEquals(Status.REJECTED, err.get());
            ep.close();
        }
    }
}
