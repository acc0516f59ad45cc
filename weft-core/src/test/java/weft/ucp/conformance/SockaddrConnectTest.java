package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.CloseMode;
import weft.ucp.ConnectionRequest;
import weft.ucp.Endpoint;
import weft.ucp.Listener;
import weft.ucp.Request;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.conformance.Resources;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The non-blocking {@code Worker.connect(InetSocketAddress)}: the endpoint comes back before the handshake,
 * operations posted on it wait and go out in order once it binds, and a failed connect (refused, timed out,
 * rejected) reaches the error handler and every waiting operation, leaking nothing.
 */
@Timeout(120)
class SockaddrConnectTest {
    private static final Config SECRET = Config.global().with("JOB_SECRET", "s3cret-for-tests");
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    static {
        Two.warmUp();
        warmUpTimedOutConnect();
    }

    /**
     * The first timed-out connect in a JVM leaves one socket descriptor open for good (a second one does not:
     * aSilentServerTimesTheConnectOut counts descriptors around one), so one runs before any test counts.
     */
    private static void warmUpTimedOutConnect() {
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             Two t = new Two("shm,self", SECRET.with("CONNECT_TIMEOUT", "100ms")); Arena arena = Arena.ofConfined()) {
            final Endpoint ep = t.a.connect((InetSocketAddress) silent.getLocalSocketAddress());
            final Request queued = ep.sendTag(1, arena.allocate(8), 0, 8);
            t.await(queued, 30, "the warm-up connect's time-out");
            queued.release();
            ep.close();
        } catch (final java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<String> sets() {
        return ScenarioRunner.TRANSPORT_SETS;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sets")
    void operationsPostedBeforeBindingCompleteInOrder(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Two t = new Two(tls, SECRET); Arena arena = Arena.ofConfined()) {
            final List<Endpoint> served = new ArrayList<>();
            try (Listener l = t.b.listen(ANY_PORT, req -> served.add(req.accept()))) {
                final Endpoint client = t.a.connect(l.address());
                // nothing progressed the worker yet: the endpoint is still a shell
                assertTrue(client.describe().contains("not connected yet"), client.describe());
                assertEquals(Status.OK, client.status());
                assertTrue(client.isConnecting());
                assertTrue(t.a.endpoints().contains(client), "a shell is listed while it connects");
                final long[] sizes = {8, 3000, 40_000, 1 << 20, 16};
                final MemorySegment[] src = new MemorySegment[sizes.length];
                final List<Request> sends = new ArrayList<>();
                final AtomicInteger callbacks = new AtomicInteger();
                for (int i = 0; i < sizes.length; i++) {
                    src[i] = arena.allocate(sizes[i]);
                    for (long j = 0; j < sizes[i]; j += 8) {
                        src[i].set(ValueLayout.JAVA_LONG_UNALIGNED, j, i * 1_000_003L + j);
                    }
                    sends.add(i == 2 ? client.sendTagSync(9, src[i], 0, sizes[i], r -> callbacks.incrementAndGet())
                        : i == 4 ? client.sendTag(9, src[i], 0, sizes[i], r -> callbacks.incrementAndGet())
                        : client.sendTag(9, src[i], 0, sizes[i]));
                }
                final MemorySegment stream = arena.allocate(64);
                stream.fill((byte) 0x5A);
                sends.add(client.sendStream(stream, 0, 64));
                final Request flush = client.flush();
                for (final Request r : sends) {
                    assertFalse(r.isCompleted(), "nothing is sent before the endpoint binds");
                }
                // same tag: matched in posting order, so receive i gets send i
                final MemorySegment[] dst = new MemorySegment[sizes.length];
                final List<Request> recvs = new ArrayList<>();
                for (int i = 0; i < sizes.length; i++) {
                    dst[i] = arena.allocate(1 << 20);
                    recvs.add(t.b.recvTag(dst[i], 0, 1 << 20, 9, -1L));
                }
                for (int i = 0; i < recvs.size(); i++) {
                    try {
                        t.await(recvs.get(i), 30, "receive " + i);
                    } catch (final AssertionError e) {
                        throw new AssertionError(e.getMessage() + "; " + states(client, served, sends, recvs, flush), e);
                    }
                    assertEquals(Status.OK, recvs.get(i).status());
                }
                for (int i = 0; i < sizes.length; i++) {
                    assertEquals(sizes[i], recvs.get(i).length(), "message " + i + " in order");
                    assertEquals(-1L, src[i].mismatch(dst[i].asSlice(0, sizes[i])), "message " + i + " intact");
                }
                for (final Request r : sends) {
                    t.await(r, 30, "send");
                    assertEquals(Status.OK, r.status());
                }
                t.await(flush, 30, "flush");
                assertEquals(Status.OK, flush.status());
                t.progressUntil(() -> callbacks.get() == 2, 10, "the callbacks of the early sends");
                final MemorySegment in = arena.allocate(64);
                final Request sr = served.get(0).recvStream(in, 0, 64, true);
                t.await(sr, 10, "stream bytes");
                assertEquals(-1L, stream.mismatch(in));
                assertTrue(t.a.endpoints().contains(client), "listed once bound");
                assertEquals(1, t.a.endpoints().stream().filter(e -> e == client).count(), "listed once");
                assertFalse(client.isConnecting());
                assertTrue(client.maxShort() >= 0 && client.rendezvousThreshold() < Long.MAX_VALUE,
                    "the lanes' thresholds once bound: " + client.describe());
                assertEquals(Status.OK, client.connectRequest().status());
                client.connectRequest().release();
                for (final Request r : sends) {
                    r.release();
                }
                for (final Request r : recvs) {
                    r.release();
                }
                flush.release();
                sr.release();
                client.close();
            }
        }
        Resources.assertBackTo(before, "early operations over " + tls, 3000);
    }

    /** What a timed-out wait reports: where the connect and each operation stand. */
    private static String states(final Endpoint client, final List<Endpoint> served, final List<Request> sends,
                                 final List<Request> recvs, final Request flush) {
        final StringBuilder b = new StringBuilder("client ").append(client).append(" status ").append(client.status())
            .append(client.isConnecting() ? " connecting" : " bound").append(", connect request ")
            .append(state(client.connectRequest())).append(", served ").append(served.size()).append(", sends");
        for (final Request r : sends) {
            b.append(' ').append(state(r));
        }
        b.append(", receives");
        for (final Request r : recvs) {
            b.append(' ').append(state(r)).append('/').append(r.isCompleted() ? r.length() : -1);
        }
        return b.append(", flush ").append(state(flush)).toString();
    }

    private static String state(final Request r) {
        return r == null ? "none" : r.isCompleted() ? r.status().toString() : "pending";
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "tcp,self"})
    void aClosedPortFailsTheEndpointThroughItsErrorHandler(final String tls) throws Exception {
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there now
        }
        final Resources.Snapshot before = Resources.take();
        try (Two t = new Two(tls, SECRET); Arena arena = Arena.ofConfined()) {
            final Endpoint ep = t.a.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            final AtomicReference<Status> err = new AtomicReference<>();
            final AtomicInteger handlerCalls = new AtomicInteger();
            ep.onError((e, st) -> {
                err.set(st);
                handlerCalls.incrementAndGet();
            });
            final MemorySegment buf = arena.allocate(8);
            final AtomicReference<Status> cbStatus = new AtomicReference<>();
            final Request plain = ep.sendTag(1, buf, 0, 8);
            final Request withCb = ep.sendTag(1, buf, 0, 8, r -> cbStatus.set(r.status()));
            final Request am = ep.sendAm(3, buf, 0, 8, 0);
            final Request flush = ep.flush();
            t.await(ep.connectRequest(), 30, "the failed connect");
            assertEquals(Status.UNREACHABLE, err.get());
            assertEquals(1, handlerCalls.get());
            assertEquals(Status.UNREACHABLE, ep.status());
            assertEquals(Status.UNREACHABLE, ep.connectRequest().status());
            for (final Request r : List.of(plain, withCb, am, flush)) {
                t.await(r, 5, "a waiting operation");
                assertEquals(Status.UNREACHABLE, r.status(), "a waiting operation fails with the connect's error");
                r.release();
            }
            t.progressUntil(() -> cbStatus.get() != null, 5, "the callback");
            assertEquals(Status.UNREACHABLE, cbStatus.get());
            assertEquals(Status.UNREACHABLE, ep.sendTag(1, buf, 0, 8).status(), "later sends fail at once");
            ep.connectRequest().release();
            ep.close();
        }
        Resources.assertBackTo(before, "refused connect over " + tls, 3000);
    }

    @Test
    void aSilentServerTimesTheConnectOut() throws Exception {
        final Resources.Snapshot before = Resources.take();
        // the kernel completes the TCP connect (backlog), but nobody ever answers the handshake
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             Two t = new Two("shm,self", SECRET.with("CONNECT_TIMEOUT", "300ms")); Arena arena = Arena.ofConfined()) {
            final Endpoint ep = t.a.connect((InetSocketAddress) silent.getLocalSocketAddress());
            final AtomicReference<Status> err = new AtomicReference<>();
            ep.onError((e, st) -> err.set(st));
            final Request queued = ep.sendTag(1, arena.allocate(8), 0, 8);
            t.await(queued, 30, "the timed-out connect");
            assertEquals(Status.TIMED_OUT, queued.status());
            assertEquals(Status.TIMED_OUT, err.get());
            assertEquals(Status.TIMED_OUT, ep.status());
            queued.release();
            ep.close();
        }
        Resources.assertBackTo(before, "timed-out connect", 3000);
    }

    @Test
    void aConnectingEndpointIsListedFlushedByTheWorkerAndItsWaitingOperationsCancel() throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             Two t = new Two("shm,self", SECRET.with("CONNECT_TIMEOUT", "60s").with("EP_CLOSE_TIMEOUT", "200ms"));
             Arena arena = Arena.ofConfined()) {
            final Endpoint ep = t.a.connect((InetSocketAddress) silent.getLocalSocketAddress()); // never accepted
            assertTrue(ep.isConnecting());
            assertTrue(t.a.endpoints().contains(ep), "listed while connecting");
            // placeholders until the endpoint binds: no fast path
            assertEquals(-1, ep.maxShort());
            assertEquals(Long.MAX_VALUE, ep.rendezvousThreshold());
            assertEquals(Long.MAX_VALUE, ep.zeroCopyThreshold());
            assertEquals(0, ep.maxZeroCopyFragment());
            final AtomicReference<Status> cb = new AtomicReference<>();
            final Request canceled = ep.sendTag(1, arena.allocate(8), 0, 8, r -> cb.set(r.status()));
            final Request kept = ep.sendTag(1, arena.allocate(8), 0, 8);
            assertTrue(t.a.cancel(canceled), "an operation waiting in a connecting endpoint cancels");
            assertTrue(canceled.isCompleted());
            assertEquals(Status.CANCELED, canceled.status());
            assertFalse(t.a.cancel(canceled), "canceled once");
            t.progressUntil(() -> cb.get() == Status.CANCELED, 5, "the canceled send's callback");
            final Request flush = t.a.flush();
            final Request sent = t.a.flushSent();
            for (int i = 0; i < 1000; i++) {
                t.a.progress();
            }
            assertFalse(flush.isCompleted(), "the worker's flush waits for the connecting endpoint");
            assertFalse(sent.isCompleted(), "so does its local completion: the waiting send has not left");
            assertFalse(kept.isCompleted());
            ep.closeNonBlocking(CloseMode.FORCE).release();
            t.await(flush, 5, "the worker flush once the endpoint closed");
            assertEquals(Status.CANCELED, flush.status(), "the flush reports the canceled endpoint");
            t.await(sent, 5, "the worker's flushSent once the endpoint closed");
            assertEquals(Status.CANCELED, sent.status());
            assertEquals(Status.CANCELED, kept.status());
            assertFalse(t.a.endpoints().contains(ep), "a closed shell is not listed");
            canceled.release();
            kept.release();
            flush.release();
            sent.release();
        }
        Resources.assertBackTo(before, "canceled operations of a connecting endpoint", 3000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "tcp,self"})
    void aCanceledEarlySendNeverLeavesAndTheOthersKeepTheirOrder(final String tls) throws Exception {
        try (Two t = new Two(tls, SECRET); Arena arena = Arena.ofConfined()) {
            try (Listener l = t.b.listen(ANY_PORT, ConnectionRequest::accept)) {
                final Endpoint client = t.a.connect(l.address());
                final Request[] sends = new Request[3];
                for (int i = 0; i < 3; i++) {
                    final MemorySegment m = arena.allocate(8);
                    m.set(ValueLayout.JAVA_LONG, 0, 100 + i);
                    sends[i] = client.sendTag(9, m, 0, 8);
                }
                assertTrue(t.a.cancel(sends[1]), "the middle send, still waiting for the connection");
                final MemorySegment in = arena.allocate(8);
                for (final long want : new long[] {100, 102}) {
                    final Request r = t.b.recvTag(in, 0, 8, 9, -1L);
                    t.await(r, 30, "receive of " + want);
                    assertEquals(want, in.get(ValueLayout.JAVA_LONG, 0));
                    r.release();
                }
                t.await(sends[2], 30, "the last send");
                assertFalse(t.a.cancel(sends[2]), "a started (here completed) operation is not canceled");
                final Request f = client.flush();
                t.await(f, 30, "flush");
                f.release();
                for (int i = 0; i < 100; i++) {
                    t.b.progress();
                }
                assertEquals(null, t.b.probeTag(9, -1L, false), "the canceled send never arrived");
                for (final Request r : sends) {
                    r.release();
                }
                client.connectRequest().release();
                client.close();
            }
        }
    }

    @Test
    void closingAnUnboundEndpointCancelsItsOperationsAndTheHandshake() throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             Two t = new Two("shm,self", SECRET.with("CONNECT_TIMEOUT", "60s").with("EP_CLOSE_TIMEOUT", "200ms"));
             Arena arena = Arena.ofConfined()) {
            final InetSocketAddress addr = (InetSocketAddress) silent.getLocalSocketAddress();
            // FORCE: at once
            final Endpoint forced = t.a.connect(addr);
            final AtomicReference<Status> cb = new AtomicReference<>();
            final Request r1 = forced.sendTag(1, arena.allocate(8), 0, 8, r -> cb.set(r.status()));
            forced.closeNonBlocking(CloseMode.FORCE).release();
            assertEquals(Status.CLOSED, forced.status());
            t.await(r1, 5, "the canceled send");
            assertEquals(Status.CANCELED, r1.status());
            t.progressUntil(() -> cb.get() != null, 5, "its callback");
            r1.release();
            // FLUSH: waits for the connection at most the close timeout, then cancels
            final Endpoint flushed = t.a.connect(addr);
            final Request r2 = flushed.sendTag(1, arena.allocate(8), 0, 8);
            flushed.close();
            assertEquals(Status.CLOSED, flushed.status());
            assertEquals(Status.CANCELED, r2.status());
            r2.release();
            // worker close with a connect in flight
            final Endpoint dropped = t.a.connect(addr);
            final Request r3 = dropped.sendTag(1, arena.allocate(8), 0, 8);
            t.a.close();
            assertEquals(Status.CANCELED, r3.status());
        }
        Resources.assertBackTo(before, "closed unbound endpoints", 3000);
    }

    @Test
    void rejectionAndAWrongSecretReachTheErrorHandler() {
        try (Two t = new Two("shm,self", SECRET);
             var other = Two.context("shm,self", Config.global().with("JOB_SECRET", "wrong"));
             var w = other.newWorker(); Arena arena = Arena.ofConfined()) {
            try (Listener l = t.b.listen(ANY_PORT, ConnectionRequest::reject)) {
                final Endpoint ep = w.connect(l.address());
                final AtomicReference<Status> err = new AtomicReference<>();
                ep.onError((e, st) -> err.set(st));
                final Request q = ep.sendTag(1, arena.allocate(8), 0, 8);
                PeerFailureConformanceTest.await(w, q, 30, "wrong secret");
                assertEquals(Status.REJECTED, q.status());
                assertEquals(Status.REJECTED, err.get());
                q.release();
                ep.close();
                final Endpoint rejected = t.a.connect(l.address());
                final Request q2 = rejected.sendTag(1, arena.allocate(8), 0, 8);
                t.await(q2, 30, "rejection");
                assertEquals(Status.REJECTED, q2.status());
                q2.release();
                rejected.close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "tcp,self"})
    void aRequestAcceptedOnAnotherWorkerConnectsTheClientToThatWorker(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Two t = new Two(tls, SECRET); var other = t.ctxB.newWorker(); Arena arena = Arena.ofConfined()) {
            final List<Endpoint> served = new ArrayList<>();
            try (Listener l = t.b.listen(ANY_PORT, req -> served.add(req.accept(other)))) {
                final Endpoint client = t.a.connect(l.address());
                final MemorySegment src = arena.allocate(16);
                src.set(ValueLayout.JAVA_LONG, 0, 11);
                src.set(ValueLayout.JAVA_LONG, 8, 22);
                final Request s1 = client.sendTag(3, src, 0, 8);
                final Request s2 = client.sendTag(3, src, 8, 8);
                final MemorySegment dst = arena.allocate(16);
                final Request r1 = other.recvTag(dst, 0, 8, 3, -1L);
                final Request r2 = other.recvTag(dst, 8, 8, 3, -1L);
                final long deadline = System.nanoTime() + 30_000_000_000L;
                while (!r2.isCompleted() || !s2.isCompleted()) {
                    assertTrue(System.nanoTime() < deadline, "hang guard");
                    t.progressBoth();
                    other.progress();
                }
                assertEquals(11, dst.get(ValueLayout.JAVA_LONG, 0), "in order, on the accepting worker");
                assertEquals(22, dst.get(ValueLayout.JAVA_LONG, 8));
                assertEquals(1, served.size());
                assertSame(other, served.get(0).worker());
                assertTrue(t.b.endpoints().isEmpty(), "the listener's worker made no endpoint");
                assertEquals(Status.OK, client.connectRequest().status());
                // and back: the accepting worker's endpoint reaches the client (wireup ids both ways)
                final Request back = t.a.recvTag(dst, 0, 8, 4, -1L);
                final Request sb = served.get(0).sendTagSync(4, src, 8, 8);
                while (!back.isCompleted() || !sb.isCompleted()) {
                    assertTrue(System.nanoTime() < deadline, "hang guard");
                    t.progressBoth();
                    other.progress();
                }
                assertEquals(22, dst.get(ValueLayout.JAVA_LONG, 0));
                for (final Request r : List.of(s1, s2, r1, r2, back, sb, client.connectRequest())) {
                    r.release();
                }
                client.closeNonBlocking(CloseMode.FORCE).release();
                served.get(0).closeNonBlocking(CloseMode.FORCE).release();
            }
        }
        Resources.assertBackTo(before, "accepted on another worker over " + tls, 3000);
    }

    @Test
    void theClientIdReachesTheServersHandler() {
        try (Two t = new Two("shm,self", SECRET)) {
            final List<Long> ids = new ArrayList<>();
            try (Listener l = t.b.listen(ANY_PORT, req -> {
                ids.add(req.clientId());
                req.accept();
            })) {
                final Endpoint a = t.a.connect(l.address(), 0x1234_5678_9ABCL);
                final Endpoint b = t.a.connect(l.address());
                final Endpoint c = t.a.connectBlocking(l.address(), -7L);
                t.progressUntil(() -> ids.size() == 3, 30, "three requests");
                assertTrue(ids.containsAll(List.of(0x1234_5678_9ABCL, 0L, -7L)), ids.toString());
                for (final Endpoint e : List.of(a, b, c)) {
                    t.await(e.connectRequest(), 30, "accept");
                    e.connectRequest().release();
                    e.close();
                }
            }
        }
    }

    /** Across processes: the child accepts and echoes tag 1 on tag 2; sends posted before binding come back in order. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sets")
    void crossProcessEarlySendsArriveInOrder(final String tls) throws Exception {
        try (PeerProcess child = new PeerProcess("listen", tls, "s3cret-for-tests", "accept");
             var ctx = Two.context(tls, SECRET); var w = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final int port = Integer.parseInt(child.expect("PORT "));
            child.expect("READY");
            final Endpoint ep = w.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            final int n = 8;
            final MemorySegment out = arena.allocate(8L * n);
            final MemorySegment in = arena.allocate(8L * n);
            final List<Request> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.set(ValueLayout.JAVA_LONG, 8L * i, 1000 + i);
                sends.add(ep.sendTag(1, out, 8L * i, 8));
            }
            for (int i = 0; i < n; i++) {
                final Request r = w.recvTag(in, 8L * i, 8, 2, -1L);
                PeerFailureConformanceTest.await(w, r, 30, "echo " + i);
                r.release();
                assertEquals(1000 + i, in.get(ValueLayout.JAVA_LONG, 8L * i), "echo " + i + " in order");
            }
            for (final Request r : sends) {
                assertEquals(Status.OK, r.status());
                r.release();
            }
            ep.close();
        }
    }
}
