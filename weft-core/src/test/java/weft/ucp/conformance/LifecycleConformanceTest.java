package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.CloseMode;
import weft.ucp.Context;
import weft.ucp.Feature;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigVar;
import weft.uct.conformance.Resources;
import weft.uct.conformance.Waits;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Endpoint close modes, worker close with live endpoints, use after close (two workers, one JVM). */
@Timeout(60)
class LifecycleConformanceTest {
    static {
        Two.warmUp();
    }


    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "shm,self", "tcp,self"})
    void flushCloseWaitsForInFlightOperationsAndThePeerSeesItsEndpointFail(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        try (Two t = new Two(tls, Config.global()); Arena arena = Arena.ofConfined()) {
            final Endpoint[] e = t.connectByAddress();
            final AtomicReference<Status> peerErr = new AtomicReference<>();
            e[1].onError((ep, st) -> peerErr.set(st));
            final long big = e[0].rendezvousThreshold() * 2;
            final MemorySegment src = arena.allocate(big);
            src.fill((byte) 3);
            final Request send = e[0].sendTag(9, src, 0, big);       // rendezvous: waits for the receiver
            final Request sync = e[0].sendTagSync(10, src, 0, 16);   // waits for a match
            t.progressUntil(() -> false == t.b.endpoints().isEmpty(), 5, "wired");
            final Request close = e[0].closeNonBlocking(CloseMode.FLUSH);
            for (int i = 0; i < 2000; i++) {
                t.progressBoth();
            }
            assertTrue(!close.isCompleted(), "the flush waits for the unmatched operations");
            final MemorySegment dst = arena.allocate(big);
            final Request r1 = t.b.recvTag(dst, 0, big, 9, -1L);
            final Request r2 = t.b.recvTag(arena.allocate(16), 0, 16, 10, -1L);
            t.await(close, 10, "flush close");
            assertEquals(Status.OK, close.status());
            close.release();
            assertEquals(Status.OK, send.status());
            assertEquals(Status.OK, sync.status());
            t.await(r1, 5, "big receive");
            assertEquals(-1L, src.mismatch(dst));
            t.progressUntil(() -> peerErr.get() != null, 5, "the peer's endpoint to fail");
            assertEquals(Status.CONNECTION_RESET, peerErr.get());
            assertEquals(Status.CLOSED, e[0].status());
            assertEquals(Status.CLOSED, e[0].sendTag(1, src, 0, 8).status(), "a closed endpoint gives CLOSED");
            for (final Request r : List.of(send, sync, r1, r2)) {
                r.release();
            }
            e[1].close();
        }
        Resources.assertBackTo(before, "flush close over " + tls, 3000);
    }

    @Test
    void forceCloseCancelsOutstandingOperations() {
        try (Two t = new Two("shm,self", Config.global()); Arena arena = Arena.ofConfined()) {
            final Endpoint[] e = t.connectByAddress();
            final AtomicReference<Status> peerErr = new AtomicReference<>();
            e[1].onError((ep, st) -> peerErr.set(st));
            final MemorySegment src = arena.allocate(e[0].rendezvousThreshold() * 2);
            t.progressUntil(() -> !t.b.endpoints().isEmpty(), 5, "wired");
            for (int i = 0; i < 200; i++) {
                t.progressBoth();
            }
            final AtomicInteger callbacks = new AtomicInteger();
            final Request sync = e[0].sendTagSync(1, src, 0, 16, r -> callbacks.incrementAndGet());
            final Request rndv = e[0].sendTag(2, src);
            final Request close = e[0].closeNonBlocking(CloseMode.FORCE);
            assertTrue(close.isCompleted());
            assertEquals(Status.OK, close.status());
            assertEquals(Status.CANCELED, rndv.status());
            t.progressUntil(() -> callbacks.get() == 1, 5, "the sync send's callback");
            assertEquals(Status.CLOSED, e[0].status());
            t.progressUntil(() -> peerErr.get() != null, 5, "the peer to learn");
            assertEquals(Status.CONNECTION_RESET, e[1].status());
            assertEquals(Status.CONNECTION_RESET, e[1].sendTag(3, src, 0, 8).status());
            rndv.release();
            e[0].close(); // idempotent
        }
    }

    @Test
    void flushCloseTimesOutWhenThePeerNeverReceives() {
        final Config cfg = Config.global().with("EP_CLOSE_TIMEOUT", "300ms");
        try (Two t = new Two("shm,self", cfg); Arena arena = Arena.ofConfined()) {
            final Endpoint[] e = t.connectByAddress();
            t.progressUntil(() -> !t.b.endpoints().isEmpty(), 5, "wired");
            final Request sync = e[0].sendTagSync(1, arena.allocate(8), 0, 8);
            final long t0 = System.nanoTime();
            final Request close = e[0].closeNonBlocking(CloseMode.FLUSH);
            t.await(close, 5, "close timeout");
            final long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Status.TIMED_OUT, close.status());
            assertEquals(Status.CANCELED, sync.status());
            assertTrue(ms >= 250 && ms < Waits.bound(300), "took " + ms + " ms"); // EP_CLOSE_TIMEOUT=300ms
            close.release();
            sync.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "tcp,self"})
    void closingAWorkerWithLiveEndpointsCompletesEverythingAndReleasesEverything(final String tls) throws Exception {
        final Resources.Snapshot before = Resources.take();
        final Two t = new Two(tls, Config.global());
        try (Arena arena = Arena.ofConfined()) {
            final Endpoint[] e = t.connectByAddress();
            final AtomicReference<Status> peerErr = new AtomicReference<>();
            e[1].onError((ep, st) -> peerErr.set(st));
            t.progressUntil(() -> !t.b.endpoints().isEmpty(), 5, "wired");
            for (int i = 0; i < 200; i++) {
                t.progressBoth();
            }
            final List<Status> completed = new ArrayList<>();
            final MemorySegment buf = arena.allocate(1 << 20);
            t.a.recvTag(buf, 0, 64, 77, -1L, null, r -> completed.add(r.status()));
            final Request recv = t.a.recvTag(buf, 64, 64, 78, 0L);
            final Request sync = e[0].sendTagSync(5, buf, 0, 64);
            final Request rndv = e[0].sendTag(6, buf);
            final Worker a = t.a;
            a.close();
            assertEquals(List.of(Status.CANCELED), completed, "callbacks ran before close returned");
            assertEquals(Status.CANCELED, recv.status());
            assertEquals(Status.CANCELED, sync.status());
            assertEquals(Status.CANCELED, rndv.status());
            assertEquals(Status.CLOSED, e[0].status());
            assertEquals(Status.CLOSED, e[0].sendTag(1, buf, 0, 8).status());
            assertEquals(Status.CLOSED, assertThrows(WeftException.class,
                () -> a.recvTag(buf, 0, 8, 1, -1L)).status());
            assertEquals(Status.CLOSED, assertThrows(WeftException.class, () -> a.connect(t.b.address())).status());
            assertEquals(0, a.progress(), "progress on a closed worker does nothing");
            a.close();
            final long t0 = System.nanoTime();
            t.progressUntil(() -> peerErr.get() != null, 5, "the peer to see the endpoint fail");
            assertNotNull(peerErr.get());
            // detected within the ucp keepalive interval and shm's liveness check (defaults 500 + 200 ms)
            assertTrue(System.nanoTime() - t0 < Waits.bound(700) * 1_000_000L);
        } finally {
            t.close();
        }
        Resources.assertBackTo(before, "worker close over " + tls, 3000);
    }

    @Test
    void aPeerThatComputesWithoutProgressingIsNotFailedByDefault() {
        // an HPC rank computes for minutes without calling progress: only an opt-in timeout may fail it
        Context.create(Feature.TAG).close(); // registers ucp's variables
        final ConfigVar<?> timeout = ConfigRegistry.all().stream()
            .filter(v -> v.name().equals("KEEPALIVE_TIMEOUT")).findFirst().orElseThrow();
        assertEquals(Long.MAX_VALUE, timeout.defaultValue(), "WEFT_KEEPALIVE_TIMEOUT is off by default");
        final Config cfg = Config.global().with("KEEPALIVE_INTERVAL", "50ms");
        try (Two t = new Two("shm,self", cfg)) {
            final Endpoint[] e = t.connectByAddress();
            final AtomicReference<Status> err = new AtomicReference<>();
            e[0].onError((ep, st) -> err.set(st));
            t.progressUntil(() -> e[0].status() == Status.OK && e[1].status() == Status.OK, 5, "both up");
            // b "computes": a progresses through many keepalive rounds without hearing from b (20 rounds of
            // 50 ms; the bound only stops a stuck loop: a crowded machine may take far longer than 1 s)
            final long rounds = t.a.keepaliveRounds();
            final long deadline = System.nanoTime() + Waits.bound(60_000) * 1_000_000L;
            while (t.a.keepaliveRounds() < rounds + 20 && System.nanoTime() < deadline) {
                t.a.progress();
            }
            assertTrue(t.a.keepaliveRounds() >= rounds + 20, "keepalive rounds ran");
            assertEquals(null, err.get());
            assertEquals(Status.OK, e[0].status());
        }
    }

    @Test
    void aPeerThatStopsProgressingTimesOutWhileOthersAreServed() {
        final Config cfg = Config.global().with("KEEPALIVE_INTERVAL", "100ms").with("KEEPALIVE_TIMEOUT", "600ms");
        try (Two t = new Two("shm,self", cfg); Arena arena = Arena.ofConfined()) {
            final Endpoint[] e = t.connectByAddress();
            final AtomicReference<Status> err = new AtomicReference<>();
            e[0].onError((ep, st) -> err.set(st));
            // both progressing for longer than the timeout: keepalives flow, nothing fails
            final long until = System.nanoTime() + 1_000_000_000L;
            t.progressUntil(() -> System.nanoTime() > until, 5, "a quiet second");
            assertEquals(Status.OK, e[0].status());
            assertEquals(Status.OK, e[1].status());
            // b hangs (alive, but never progresses again): a's endpoint times out
            final long t0 = System.nanoTime();
            final long boundMs = Waits.bound(600 + 100); // KEEPALIVE_TIMEOUT + KEEPALIVE_INTERVAL
            final long deadline = t0 + boundMs * 1_000_000L;
            while (err.get() == null && System.nanoTime() < deadline) {
                t.a.progress();
            }
            final long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Status.ENDPOINT_TIMEOUT, err.get(), "after " + ms + " ms");
            assertTrue(ms >= 400 && ms < boundMs, "timed out after " + ms + " ms");
            // b was away: when it progresses again it does not time a out at once (its clock restarts)
            final long until2 = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < until2) {
                t.b.progress();
            }
            assertTrue(e[1].status() == Status.OK || e[1].status() == Status.CONNECTION_RESET,
                "b learns the close or nothing yet: " + e[1].status());
        }
    }
}
