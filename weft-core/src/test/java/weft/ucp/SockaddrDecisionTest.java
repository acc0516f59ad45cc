package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decision names the worker the client's endpoint binds to, so it must be signed: a listener that
 * passed the handshake but sends an acceptance signed with another key (a forged redirect) fails the
 * connect instead of binding the endpoint to the named worker.
 */
@Timeout(60)
class SockaddrDecisionTest {
    @Test
    void anAcceptanceNotSignedWithTheJobSecretFailsTheConnect() throws Exception {
        final Config cfg = Config.global().with("JOB_SECRET", "s3cret-for-tests");
        try (Context ctx = Context.builder().transports("shm", "self").config(cfg).build();
             Worker w = ctx.newWorker(); Worker named = ctx.newWorker(); Arena arena = Arena.ofConfined();
             ServerSocket fake = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            final byte[] key = SockaddrHandshake.key(ctx.config());
            final byte[] forged = SockaddrHandshake.key(cfg.with("JOB_SECRET", "forged"));
            final Thread server = Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = fake.accept()) {
                    s.setSoTimeout(10_000);
                    final SockaddrHandshake.Incoming in = SockaddrHandshake.serve(s, key, named.address());
                    assertTrue(in != null, "the client passed the handshake");
                    SockaddrHandshake.sendDecision(s, SockaddrHandshake.DECISION_ACCEPT, forged, in, named.address());
                } catch (final IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            final Endpoint ep = w.connect((InetSocketAddress) fake.getLocalSocketAddress());
            final AtomicReference<Status> err = new AtomicReference<>();
            ep.onError((e, st) -> err.set(st));
            final Request queued = ep.sendTag(1, arena.allocate(8), 0, 8);
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (!queued.isCompleted()) {
                assertTrue(System.nanoTime() < deadline, "hang guard");
                w.progress();
            }
            assertEquals(Status.CONNECTION_RESET, queued.status(), "a forged acceptance is no acceptance");
            assertEquals(Status.CONNECTION_RESET, err.get());
            assertFalse(ep.isBound(), "never bound to the worker the forged decision named");
            assertTrue(named.endpoints().isEmpty());
            queued.release();
            ep.close();
            server.join(10_000);
        }
    }
}
