package weft.uct.tcp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.IoVector;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/** A tcp peer in a child JVM ({@link TcpPeerMain}): echo, remote memory, and a peer killed with SIGKILL. */
@Timeout(90)
class TcpProcessTest {
    private Process child;
    private UctWorker worker;
    private Interface iface;
    private final Arena arena = Arena.ofShared();
    private final List<Status> errors = new ArrayList<>();
    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(16);
    private byte[] peerDevice;
    private byte[] peerIface;
    private RemoteKey rkey;
    private long peerBase;

    @BeforeEach
    void setUp() throws Exception {
        child = spawnPeer();
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream()))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.offer(l);
                }
            } catch (final java.io.IOException e) {
                // child gone
            }
        });
        reader.setDaemon(true);
        reader.start();
        final String addr = lines.poll(30, TimeUnit.SECONDS);
        assertNotNull(addr, "peer did not start");
        final String[] p = addr.split(" ");
        assertEquals("ADDR", p[0]);
        final HexFormat hex = HexFormat.of();
        peerDevice = hex.parseHex(p[1]);
        peerIface = hex.parseHex(p[2]);
        rkey = TcpTestSupport.TRANSPORT.memoryDomain().unpackRkey(hex.parseHex(p[3]));
        peerBase = Long.parseLong(p[4]);
        worker = new UctWorker();
        iface = TcpTestSupport.TRANSPORT.openInterface(worker, TcpTestSupport.LO,
            InterfaceParams.defaults().withErrorHandler((ep, st) -> errors.add(st)));
    }

    static Process spawnPeer() throws java.io.IOException {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        return new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
            System.getProperty("java.class.path"), TcpPeerMain.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (worker != null) {
            worker.close();
        }
        if (child != null) {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
        arena.close();
    }

    private void connectBack() throws Exception {
        final HexFormat hex = HexFormat.of();
        final PrintStream out = new PrintStream(child.getOutputStream(), true);
        out.println("CONNECT " + hex.formatHex(iface.deviceAddress()) + " " + hex.formatHex(iface.interfaceAddress()));
        final long deadline = System.nanoTime() + 20_000_000_000L;
        String l = null;
        while (l == null && System.nanoTime() < deadline) {
            iface.progress();
            l = lines.poll();
        }
        assertEquals("CONNECTED", l);
    }

    private Status await(final Completion c, final Status st) {
        return TcpTestSupport.await(c, st, iface);
    }

    @Test
    void shouldEchoMessagesInOrderThroughAnotherProcess() throws Exception {
        connectBack();
        final List<Long> echoed = new ArrayList<>();
        final List<Integer> sizes = new ArrayList<>();
        iface.setAmHandler(2, (d, o, l, f) -> {
            echoed.add(d.get(TcpFrame.I64, o));
            sizes.add((int) l - 8);
            return Status.OK;
        });
        final Endpoint ep = iface.connect(peerDevice, peerIface);
        final MemorySegment payload = arena.allocate(256);
        final int n = 2000;
        for (int i = 0; i < n; i++) {
            final int len = i % 257;
            Status st;
            final long dl = System.nanoTime() + 10_000_000_000L;
            while ((st = ep.amShort(1, i, payload, 0, len)) == Status.NO_RESOURCE) {
                assertTrue(System.nanoTime() < dl);
                iface.progress();
            }
            assertEquals(Status.OK, st);
        }
        progressUntil(() -> echoed.size() == n, 20000, "echoes", iface);
        for (int i = 0; i < n; i++) {
            assertEquals(i, echoed.get(i));
            assertEquals(i % 257, sizes.get(i));
        }
        // both directions (our requests, the peer's echoes) on one socket
        progressUntil(() -> ((TcpInterface) iface).connections() == 1, 5000, "one socket per pair", iface);
        assertEquals(1, ((TcpInterface) iface).serverConnections());
    }

    @Test
    void shouldFailBothRolesOfTheSharedSocketWhenThePeerIsKilled() throws Exception {
        connectBack();
        final List<Long> echoed = new ArrayList<>();
        iface.setAmHandler(2, (d, o, l, f) -> {
            echoed.add(d.get(TcpFrame.I64, o));
            return Status.OK;
        });
        final Endpoint ep = iface.connect(peerDevice, peerIface);
        final TcpInterface ti = (TcpInterface) iface;
        assertEquals(Status.OK, ep.amShort(1, 7, arena.allocate(8), 0, 0));
        progressUntil(() -> echoed.size() == 1 && ti.connections() == 1 && ti.serverConnections() == 1, 10_000,
            "echo over one shared socket", iface);
        child.destroyForcibly();
        progressUntil(() -> !errors.isEmpty(), 10_000, "peer failure", iface);
        assertEquals(Status.CONNECTION_RESET, errors.get(0));
        assertEquals(Status.CONNECTION_RESET, ep.amShort(1, 8, arena.allocate(8), 0, 0), "requester role failed");
        assertEquals(0, ti.serverConnections(), "server role gone with the socket");
        assertEquals(0, ti.connections());
    }

    @Test
    void shouldPutGetAndAtomicallyUpdateTheMemoryOfAnotherProcess() {
        final Endpoint ep = iface.connect(peerDevice, peerIface);
        final MemorySegment dst = arena.allocate(1 << 20);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, await(c, ep.getZcopy(IoVector.of(dst, 0, 1 << 20), peerBase, rkey, c)));
        for (int i = 0; i < (1 << 20); i += 4099) {
            assertEquals((byte) (i * 7), dst.get(ValueLayout.JAVA_BYTE, i), "initial byte " + i);
        }
        final MemorySegment src = arena.allocate(300_000);
        for (int i = 0; i < 300_000; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i ^ 0x5A));
        }
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(src, 0, 300_000), peerBase + 1000, rkey, c)));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.getZcopy(IoVector.of(dst, 0, 300_000), peerBase + 1000, rkey, c)));
        assertEquals(-1, src.asSlice(0, 300_000).mismatch(dst.asSlice(0, 300_000)));
        final MemorySegment res = arena.allocate(8, 8);
        dst.set(ValueLayout.JAVA_LONG, 0, 40);
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(dst, 0, 8), peerBase + 8, rkey, c)));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic64Fetch(AtomicOp.ADD, 2, res, 0, peerBase + 8, rkey, c)));
        assertEquals(40, res.get(ValueLayout.JAVA_LONG, 0));
        c.reset(1);
        assertEquals(Status.OK, await(c, ep.atomic64Cswap(42, 7, res, 0, peerBase + 8, rkey, c)));
        assertEquals(42, res.get(ValueLayout.JAVA_LONG, 0));
        c.reset(1);
        assertEquals(Status.OUT_OF_RANGE, ep.getZcopy(IoVector.of(dst, 0, 16), peerBase + (1 << 20) - 8, rkey, c));
    }

    @Test
    void shouldReportAPeerKilledWithSigkillWithinSeconds() {
        final Endpoint ep = iface.connect(peerDevice, peerIface);
        final MemorySegment res = arena.allocate(8, 8);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.OK, await(c, ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, peerBase, rkey, c)));
        child.destroyForcibly();
        final long killedAt = System.nanoTime();
        // keep issuing work, as an application would
        final Completion last = new Completion().reset(1);
        Status st = ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, peerBase, rkey, last);
        if (st != Status.IN_PROGRESS) {
            last.complete(st);
        }
        progressUntil(() -> !errors.isEmpty() && last.isDone(), 10000, "peer failure", iface);
        final long ms = (System.nanoTime() - killedAt) / 1_000_000;
        assertTrue(ms < 5000, "detected after " + ms + " ms");
        assertEquals(Status.CONNECTION_RESET, errors.get(0));
        assertEquals(Status.CONNECTION_RESET, last.status());
        assertEquals(Status.CONNECTION_RESET, ep.check());
    }
}
