package weft.runtime;

import weft.uct.conformance.Resources;
import weft.uct.conformance.Waits;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher's key-value service and its PE client: exchange, authentication and failures. */
@Timeout(60)
class KvServerTest {
    private static final String SECRET = "0123456789abcdef";
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(20);

    private final List<String> log = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<Process> children = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void cleanUp() throws Exception {
        for (final Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    private KvServer server(final int size, final long fenceTimeoutNs) {
        final KvServer s = KvServer.start(size, SECRET, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            fenceTimeoutNs, log::add);
        toClose.add(s);
        return s;
    }

    private TcpBootstrap client(final KvServer s, final int rank, final int size, final String secret) {
        final TcpBootstrap b = TcpBootstrap.connect("127.0.0.1:" + s.port(), secret,
            new JobLayout(rank, size, rank, size, 0, "job"), TIMEOUT, false);
        toClose.add(() -> {
            try {
                b.close();
            } catch (final WeftException ignored) {
                // the test broke the job on purpose: finalize may fail
            }
        });
        return b;
    }

    @Test
    void shouldExchangeValuesBetweenRanks() throws Exception {
        final int size = 3;
        final KvServer s = server(size, TIMEOUT);
        final List<Future<byte[][]>> results = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            final TcpBootstrap b = client(s, r, size, SECRET);
            results.add(pool.submit(() -> {
                final Runtime rt = Runtime.of(b);
                rt.put("addr", ("worker-" + rt.rank()).getBytes(StandardCharsets.UTF_8));
                rt.commit();
                rt.fence();
                final byte[][] got = new byte[size][];
                for (int p = 0; p < size; p++) {
                    got[p] = rt.get(p, "addr");
                }
                final byte[][] gathered = rt.allgather(new byte[] {(byte) (10 + rt.rank())});
                for (int p = 0; p < size; p++) {
                    assertArrayEquals(new byte[] {(byte) (10 + p)}, gathered[p]);
                }
                rt.barrier();
                assertEquals(Status.NO_ELEMENT, assertThrows(WeftException.class, () -> rt.get(0, "nope")).status());
                return got;
            }));
        }
        for (final Future<byte[][]> f : results) {
            final byte[][] got = f.get(30, TimeUnit.SECONDS);
            for (int p = 0; p < size; p++) {
                assertEquals("worker-" + p, new String(got[p], StandardCharsets.UTF_8));
            }
        }
        assertTrue(log.isEmpty(), log.toString());
    }

    /**
     * A global exit: the caller's call returns only after every other PE was told and answered (EXITING),
     * each of them then reports the status, and the service holds it for the launcher.
     */
    @Test
    void aGlobalExitReachesEveryPeBeforeItsCallerGoes() throws Exception {
        final int size = 3;
        final KvServer s = server(size, TIMEOUT);
        final TcpBootstrap[] b = new TcpBootstrap[size];
        for (int r = 0; r < size; r++) {
            b[r] = client(s, r, size, SECRET);
        }
        assertNull(s.globalExitStatus());
        pool.submit(() -> b[1].globalExit(5, "test")).get(30, TimeUnit.SECONDS);
        assertEquals(5, s.globalExitStatus());
        assertEquals(5, b[0].globalExitStatus(), "told before the caller was let go");
        assertEquals(5, b[2].globalExitStatus());
        final WeftException e = assertThrows(WeftException.class, () -> b[0].put("k", new byte[1]));
        assertTrue(e.getMessage().contains("global exit, status 5"), e.getMessage());
        pool.submit(() -> b[2].globalExit(9, "second")).get(30, TimeUnit.SECONDS); // told already: nothing
        assertEquals(5, s.globalExitStatus(), "the first global exit decides");
    }

    @Test
    void shouldNotGrowTheStoreWithRepeatedAllgathers() throws Exception {
        final int size = 2;
        final int rounds = 50;
        final KvServer s = server(size, TIMEOUT);
        final List<Future<Integer>> results = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            final TcpBootstrap b = client(s, r, size, SECRET);
            results.add(pool.submit(() -> {
                final Runtime rt = Runtime.of(b);
                int checked = 0;
                for (int i = 0; i < rounds; i++) {
                    final byte[][] all = rt.allgather(new byte[] {(byte) rt.rank(), (byte) i});
                    for (int p = 0; p < size; p++) {
                        assertArrayEquals(new byte[] {(byte) p, (byte) i}, all[p], "round " + i + " slot " + p);
                        checked++;
                    }
                }
                return checked;
            }));
        }
        for (final Future<Integer> f : results) {
            assertEquals(size * rounds, f.get(60, TimeUnit.SECONDS));
        }
        // Two keys per rank in turn, not one per call.
        assertTrue(s.keyCount() <= 2 * size, "keys in the store after " + rounds + " allgathers: " + s.keyCount());
    }

    @Test
    void shouldRefuseAWrongSecret() {
        final KvServer s = server(2, TIMEOUT);
        final WeftException e = assertThrows(WeftException.class, () -> client(s, 0, 2, "not-the-secret"));
        assertEquals(Status.REJECTED, e.status());
        assertTrue(e.getMessage().contains("wrong job secret"), e.getMessage());
        assertTrue(log.stream().anyMatch(l -> l.contains("refused a connection") && l.contains("wrong job secret")),
            log.toString());
        assertFalse(s.hasConnected(0));
        // The rank is still free for the real PE.
        client(s, 0, 2, SECRET);
        assertTrue(s.hasConnected(0));
    }

    @Test
    void shouldRefuseADuplicateRank() {
        final KvServer s = server(2, TIMEOUT);
        client(s, 1, 2, SECRET);
        final WeftException e = assertThrows(WeftException.class, () -> client(s, 1, 2, SECRET));
        assertTrue(e.getMessage().contains("rank 1 is already connected"), e.getMessage());
    }

    @Test
    void shouldNameTheRanksThatNeverReported() {
        final KvServer s = server(3, TimeUnit.MILLISECONDS.toNanos(500));
        final TcpBootstrap b = client(s, 0, 3, SECRET);
        final long t0 = System.nanoTime();
        final WeftException e = assertThrows(WeftException.class, b::fence);
        assertTrue(e.getMessage().contains("rank(s) [1, 2] never connected"), e.getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(Waits.bound(500)));
        // The failure is sticky: a later fence fails at once with the same reason.
        assertTrue(assertThrows(WeftException.class, b::fence).getMessage().contains("never connected"));
    }

    @Test
    void shouldFailTheFenceWhenAPeerProcessDies() throws Exception {
        final KvServer s = server(2, TIMEOUT);
        final TcpBootstrap b = client(s, 0, 2, SECRET);
        final Process p = startPe(s, 1, 2, "die");
        assertEquals(3, waitFor(p));
        final long t0 = System.nanoTime();
        final WeftException e = assertThrows(WeftException.class, b::fence);
        assertTrue(e.getMessage().contains("rank 1 disconnected from the bootstrap service without finalizing"),
            e.getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(Waits.bound(0)), "the dead peer was noticed at once");
    }

    @Test
    void shouldExchangeAcrossTwoPeProcesses() throws Exception {
        final KvServer s = server(2, TIMEOUT);
        final Process p0 = startPe(s, 0, 2, "exchange");
        final Process p1 = startPe(s, 1, 2, "exchange");
        assertEquals(0, waitFor(p0));
        assertEquals(0, waitFor(p1));
        final String out0 = new String(p0.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(out0.contains("OK rank 0/2 via launcher"), out0);
        assertTrue(s.hasFinalized(0) && s.hasFinalized(1));
        assertEquals(null, s.failure());
    }

    @Test
    void shouldTellConnectedPesThatTheJobWasAborted() {
        final KvServer s = server(2, TIMEOUT);
        final TcpBootstrap b = client(s, 0, 2, SECRET);
        s.abort(7, "rank 1 exited with code 7");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        WeftException e = null;
        while (e == null && System.nanoTime() < deadline) {
            try {
                b.put("k", new byte[1]); // fails once the ABORT frame has arrived
                Thread.onSpinWait();
            } catch (final WeftException x) {
                e = x;
            }
        }
        assertTrue(e != null && e.getMessage().contains("job aborted by the launcher: rank 1 exited with code 7"),
            String.valueOf(e));
        // the failure a caller meets is the abort: its uncaught-exception exit must use the job's status, not 1
        assertEquals(7, b.globalExitStatus());
    }

    @Test
    void shouldReleaseSocketsAndThreadsOnClose() throws Exception {
        final Resources.Snapshot before = Resources.take();
        final KvServer s = KvServer.start(2, SECRET, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            TIMEOUT, log::add);
        final TcpBootstrap b0 = TcpBootstrap.connect("127.0.0.1:" + s.port(), SECRET,
            new JobLayout(0, 2, 0, 2, 0, "job"), TIMEOUT, false);
        final TcpBootstrap b1 = TcpBootstrap.connect("127.0.0.1:" + s.port(), SECRET,
            new JobLayout(1, 2, 1, 2, 0, "job"), TIMEOUT, false);
        assertTrue(threads("weft-kv") >= 3 && threads("weft-bootstrap-reader") == 2);
        b0.close();
        s.close(); // rank 1 is still connected: closing the service drops it
        b1.close(); // FINALIZE fails or not; either way the client's socket and reader go
        // no descriptor or thread that was not there before (one closed meanwhile elsewhere is no leak)
        Resources.assertBackTo(before, "closing the KV service and both clients", 10_000);
        assertEquals(0, threads("weft-kv"), "service threads left");
        assertEquals(0, threads("weft-bootstrap-reader"), "client reader threads left");
    }

    private static long threads(final String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void shouldDropAPeerThatIsNotAPeAndServeTheRealOnes() throws Exception {
        final KvServer s = server(1, TIMEOUT);
        try (java.net.Socket raw = new java.net.Socket(InetAddress.getLoopbackAddress(), s.port())) {
            raw.getOutputStream().write(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 2, 3});
            raw.getOutputStream().flush();
            raw.setSoTimeout(10_000);
            final java.io.InputStream in = raw.getInputStream();
            while (in.read() >= 0) {
                Thread.onSpinWait(); // the greeting, then the server closes the connection
            }
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (log.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(log.stream().anyMatch(l -> l.contains("failed during authentication")
            && l.contains("malformed key-value frame")), log.toString());
        final Runtime rt = Runtime.of(client(s, 0, 1, SECRET));
        assertArrayEquals(new byte[] {7}, rt.allgather(new byte[] {7})[0]);
    }

    @Test
    void shouldRefuseAMalformedRequestFromAPe() throws Exception {
        final KvServer s = server(1, TIMEOUT);
        try (java.net.Socket raw = new java.net.Socket(InetAddress.getLoopbackAddress(), s.port())) {
            raw.setSoTimeout(10_000);
            final java.io.DataInputStream in = new java.io.DataInputStream(raw.getInputStream());
            final java.io.DataOutputStream out = new java.io.DataOutputStream(raw.getOutputStream());
            final java.nio.ByteBuffer hello = KvProtocol.read(in).buffer();
            hello.getLong();
            final byte[] serverNonce = new byte[KvProtocol.NONCE_BYTES];
            hello.get(serverNonce);
            final byte[] clientNonce = KvProtocol.nonce();
            KvProtocol.write(out, KvProtocol.AUTH, java.nio.ByteBuffer.allocate(68).putInt(0).put(clientNonce)
                .put(KvProtocol.mac(SECRET, "pe", serverNonce, clientNonce, 0)).array());
            assertEquals(KvProtocol.WELCOME, KvProtocol.read(in).type());
            // COMMIT of one pair whose key claims 60000 bytes in a 10-byte frame.
            KvProtocol.write(out, KvProtocol.COMMIT, java.nio.ByteBuffer.allocate(10).putInt(1)
                .putShort((short) 60000).array());
            final KvProtocol.Frame answer = KvProtocol.read(in);
            assertEquals(KvProtocol.ERROR, answer.type());
            assertTrue(answer.text().contains("malformed request from rank 0"), answer.text());
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (s.failure() == null && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(String.valueOf(s.failure()).contains("rank 0 disconnected"), String.valueOf(s.failure()));
    }

    @Test
    void shouldReportAPortInUse() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final WeftException e = assertThrows(WeftException.class, () -> KvServer.start(2, SECRET,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), taken.getLocalPort()), TIMEOUT, log::add));
            assertTrue(e.getMessage().contains("cannot listen on 127.0.0.1:" + taken.getLocalPort()), e.getMessage());
            assertTrue(e.getMessage().contains("is the port in use?"), e.getMessage());
        }
    }

    @Test
    void shouldReportAnUnknownServiceHost() {
        final WeftException e = assertThrows(WeftException.class, () -> TcpBootstrap.connect(
            "no-such-host.invalid:4000", SECRET, new JobLayout(0, 1, 0, 1, 0, "job"), TIMEOUT, false));
        assertTrue(e.getMessage().contains("unknown host 'no-such-host.invalid'"), e.getMessage());
    }

    @Test
    void shouldGiveUpOnAServiceThatIsGone() throws IOException {
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        final WeftException e = assertThrows(WeftException.class, () -> TcpBootstrap.connect("127.0.0.1:" + port,
            SECRET, new JobLayout(0, 1, 0, 1, 0, "job"), TimeUnit.MILLISECONDS.toNanos(500), false));
        assertTrue(e.getMessage().contains("cannot reach the launcher's key-value service"), e.getMessage());
    }

    private Process startPe(final KvServer s, final int rank, final int size, final String mode) throws IOException {
        final ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", System.getProperty("java.class.path"), RuntimeTestPe.class.getName(), mode);
        final Map<String, String> env = pb.environment();
        env.put(LaunchEnv.RANK, Integer.toString(rank));
        env.put(LaunchEnv.SIZE, Integer.toString(size));
        env.put(LaunchEnv.LOCAL_RANK, Integer.toString(rank));
        env.put(LaunchEnv.LOCAL_SIZE, Integer.toString(size));
        env.put(LaunchEnv.NODE_ID, "0");
        env.put(LaunchEnv.JOB_ID, "kvtest");
        env.put(LaunchEnv.KV_ADDRESS, "127.0.0.1:" + s.port());
        env.put(LaunchEnv.JOB_SECRET, SECRET);
        env.put("WEFT_BOOTSTRAP_TIMEOUT", "20s");
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        final Process p = pb.start();
        children.add(p);
        return p;
    }

    private static int waitFor(final Process p) throws InterruptedException {
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "PE did not exit");
        return p.exitValue();
    }
}
