package weft.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The accepting worker's WIREUP request can reach the client before the client's handshake thread has read
 * the listener's last reply (the server accepts as soon as it has the request; the client's thread may not
 * run for a while on a busy machine). That request must still bind the connecting endpoint, once the
 * handshake ends, rather than make a second endpoint the server's is paired with: the connecting endpoint
 * would then never learn the server's id, and what waits in it would never leave.
 */
@Timeout(90)
class SockaddrEarlyWireupTest {
    private static final Config SECRET = Config.global().with("JOB_SECRET", "s3cret-for-tests");

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void anAcceptanceThatOvertakesTheHandshakeBindsTheConnectingEndpoint(final String tls) throws Exception {
        try (Context ctx = Context.builder().transports(tls.split(",")).config(SECRET).build();
             Worker client = ctx.newWorker(); Worker server = ctx.newWorker(); Arena arena = Arena.ofConfined();
             ServerSocket fake = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            final byte[] key = SockaddrHandshake.key(ctx.config());
            final CompletableFuture<byte[]> request = new CompletableFuture<>();
            final CountDownLatch replyNow = new CountDownLatch(1);
            final AtomicReference<Throwable> listenerError = new AtomicReference<>();
            final Thread listener = Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = fake.accept()) {
                    s.setSoTimeout(30_000);
                    final ByteArrayOutputStream seen = new ByteArrayOutputStream();
                    final SockaddrHandshake.Incoming in = SockaddrHandshake.serve(
                        new Tee(s.getInputStream(), seen), new HoldSecondWrite(s.getOutputStream(), seen, request,
                            replyNow), s.getRemoteSocketAddress(), key, server.address(), new byte[SockaddrHandshake.NONCE]);
                    assertTrue(in != null, "the client passed the handshake");
                    SockaddrHandshake.sendDecision(s, SockaddrHandshake.DECISION_ACCEPT, key, in, server.address());
                } catch (final Throwable t) {
                    listenerError.set(t);
                    request.completeExceptionally(t);
                }
            });
            final Endpoint ep = client.connect((InetSocketAddress) fake.getLocalSocketAddress());
            final MemorySegment src = arena.allocate(8);
            src.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9abcL);
            final Request queued = ep.sendTag(5, src, 0, 8);
            final MemorySegment dst = arena.allocate(8);
            final Request recv = server.recvTag(dst, 0, 8, 5, -1L);

            // the listener has the request and holds its reply back: the server accepts now, and its WIREUP
            // request reaches the client while the client's handshake thread still waits for that reply
            final byte[] req = request.get(30, TimeUnit.SECONDS);
            final ByteBuffer fixed = ByteBuffer.wrap(req).order(ByteOrder.LITTLE_ENDIAN);
            final long sn = fixed.getLong(16);
            final WorkerAddress clientAddress = WorkerAddress.unpack(
                Arrays.copyOfRange(req, SockaddrHandshake.REQUEST_FIXED, req.length));
            final Endpoint accepted;
            server.guard.enter();
            try {
                accepted = server.epTable.accepted(clientAddress, sn);
            } finally {
                server.guard.exit();
            }
            final String tl = tls.substring(0, tls.indexOf(','));
            final long rx0 = rx(client, tl);
            progressUntil(client, server, () -> rx(client, tl) > rx0, "the WIREUP request at the client");
            assertTrue(ep.isConnecting(), "the handshake has not ended: " + ep);
            assertEquals(List.of(ep), client.endpoints(), "no second endpoint made for the server's request");

            replyNow.countDown();
            progressUntil(client, server, () -> queued.isCompleted() && recv.isCompleted(), "the queued send");
            assertEquals(Status.OK, queued.status());
            assertEquals(Status.OK, recv.status());
            assertEquals(0x1234_5678_9abcL, dst.get(ValueLayout.JAVA_LONG, 0));
            assertFalse(ep.isConnecting());
            assertEquals(List.of(ep), client.endpoints());

            // and the server's endpoint is paired with it: its sends reach the client
            final Request back = client.recvTag(dst, 0, 8, 6, -1L);
            final Request sent = accepted.sendTag(6, src, 0, 8);
            progressUntil(client, server, () -> back.isCompleted() && sent.isCompleted(), "the server's send");
            assertEquals(Status.OK, back.status());
            assertEquals(Status.OK, sent.status());
            listener.join(TimeUnit.SECONDS.toMillis(30));
            assertNull(listenerError.get());
            for (final Request r : List.of(queued, recv, back, sent, ep.connectRequest())) {
                r.release();
            }
        }
    }

    private static long rx(final Worker w, final String tl) {
        long n = 0;
        for (final Map.Entry<String, Counters> e : w.interfaceCounters().entrySet()) {
            if (e.getKey().startsWith(tl + "/")) {
                n += e.getValue().get(Counter.RX_MESSAGES);
            }
        }
        return n;
    }

    private static void progressUntil(final Worker a, final Worker b, final BooleanSupplier done, final String what) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            a.progress();
            b.progress();
        }
    }

    /** Copies what the listener reads (the client's request) aside. */
    private static final class Tee extends FilterInputStream {
        private final ByteArrayOutputStream copy;

        Tee(final InputStream in, final ByteArrayOutputStream copy) {
            super(in);
            this.copy = copy;
        }

        @Override
        public int read() throws IOException {
            final int b = super.read();
            if (b >= 0) {
                copy.write(b);
            }
            return b;
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException {
            final int n = super.read(b, off, len);
            if (n > 0) {
                copy.write(b, off, n);
            }
            return n;
        }
    }

    /** Passes the hello; before the reply (the second write) hands the request over and waits for the go. */
    private static final class HoldSecondWrite extends FilterOutputStream {
        private final ByteArrayOutputStream seen;
        private final CompletableFuture<byte[]> request;
        private final CountDownLatch go;
        private int writes;

        HoldSecondWrite(final OutputStream out, final ByteArrayOutputStream seen, final CompletableFuture<byte[]> request,
                        final CountDownLatch go) {
            super(out);
            this.seen = seen;
            this.request = request;
            this.go = go;
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException {
            if (++writes == 2) {
                request.complete(seen.toByteArray());
                try {
                    if (!go.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("the test never let the reply go");
                    }
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            out.write(b, off, len);
        }
    }
}
