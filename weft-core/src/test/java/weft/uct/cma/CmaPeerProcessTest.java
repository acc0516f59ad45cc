package weft.uct.cma;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.IoVector;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static weft.uct.cma.CmaTestSupport.await;
import static weft.uct.cma.CmaTestSupport.finish;

/** The cma transport against a real peer process (a child JVM running {@link CmaPeerMain}). */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CmaPeerProcessTest {
    private static final long REGION = 9L << 20;

    private Process peer;
    private BufferedReader peerOut;
    private PrintWriter peerIn;
    private int peerPid;
    private byte[] peerDevice;
    private byte[] peerIface;
    private byte[] peerRkey;
    private long peerBase;

    private CmaTransport transport;
    private UctWorker worker;
    private Interface iface;
    private Arena arena;

    @BeforeEach
    void start() throws IOException {
        final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"), CmaPeerMain.class.getName(), Long.toString(REGION)));
        peer = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        peerOut = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
        peerIn = new PrintWriter(peer.getOutputStream(), true, StandardCharsets.US_ASCII);
        final String ready = peerOut.readLine();
        if (ready == null || !ready.startsWith("READY ")) {
            fail("peer did not start: " + ready);
        }
        final String[] w = ready.split(" ");
        final HexFormat hex = HexFormat.of();
        peerPid = Integer.parseInt(w[1]);
        peerDevice = hex.parseHex(w[2]);
        peerIface = hex.parseHex(w[3]);
        peerRkey = hex.parseHex(w[4]);
        peerBase = Long.parseLong(w[5]);
        transport = new CmaTransport(Config.global());
        worker = new UctWorker();
        arena = Arena.ofShared();
    }

    @AfterEach
    void stop() throws InterruptedException {
        worker.close();
        arena.close();
        peerIn.close(); // the peer exits when its stdin closes
        if (!peer.waitFor(10, TimeUnit.SECONDS)) {
            peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail("peer did not exit when its stdin closed");
        }
    }

    private String ask(final String command) throws IOException {
        peerIn.println(command);
        final String answer = peerOut.readLine();
        if (answer == null) {
            fail("peer closed its output after '" + command + "'");
        }
        return answer;
    }

    private long peerCrc(final long offset, final long length) throws IOException {
        final String a = ask("crc " + offset + " " + length);
        assertTrue(a.startsWith("CRC "), a);
        return Long.parseLong(a.substring(4));
    }

    private Interface open(final InterfaceParams params) {
        return transport.openInterface(worker, transport.devices().get(0), params);
    }

    @Test
    void shouldPutAndGetWithAnotherProcess() throws IOException {
        iface = open(InterfaceParams.defaults());
        assertTrue(iface.isReachable(peerDevice, peerIface));
        final Endpoint ep = iface.connect(peerDevice, peerIface);
        final RemoteKey rkey = transport.memoryDomain().unpackRkey(peerRkey);
        assertEquals(peerBase, rkey.base());
        assertEquals(REGION, rkey.length());
        final MemorySegment local = arena.allocate(REGION, 64);
        final Completion c = new Completion();
        final long[] sizes = {0, 1, 8, 4095, 65_536 + 3, 512 * 1024, 512 * 1024 + 1, 3 * 1024 * 1024 + 7, 8L << 20};
        long seed = 10;
        for (final long size : sizes) {
            final long off = size % 2 == 0 ? 4096 : 11;
            // put: our bytes must arrive, as the peer computes its own checksum over them
            final MemorySegment src = local.asSlice(0, size);
            CmaPeerMain.fill(src, seed++);
            c.reset(1);
            assertEquals(Status.OK, finish(iface, ep.putZcopy(IoVector.of(local, 0, size), peerBase + off, rkey, c), c),
                "put of " + size);
            assertEquals(CmaPeerMain.crc(local, 0, size), peerCrc(off, size), "put of " + size + " bytes");
            // get: the peer refills its region, we fetch and compare with its checksum
            assertEquals("OK", ask("fill " + seed++));
            src.fill((byte) 0);
            c.reset(1);
            assertEquals(Status.OK, finish(iface, ep.getZcopy(IoVector.of(local, 0, size), peerBase + off, rkey, c), c),
                "get of " + size);
            assertEquals(peerCrc(off, size), CmaPeerMain.crc(local, 0, size), "get of " + size + " bytes");
        }
        // scatter/gather across the process boundary
        final IoVector iov = new IoVector(3).add(local, 5, 1000).add(local, 100_000, 70_000).add(local, 9000, 1);
        CmaPeerMain.fill(local.asSlice(0, 200_000), 3);
        assertEquals(Status.OK, ep.putZcopy(iov, peerBase + 1, rkey, null));
        final MemorySegment gathered = arena.allocate(71_001);
        iov.gather(gathered, 0);
        assertEquals(CmaPeerMain.crc(gathered, 0, 71_001), peerCrc(1, 71_001));
        // out of range on a real peer: nothing moves
        final long before = peerCrc(REGION - 8, 8);
        assertEquals(Status.OUT_OF_RANGE, ep.putZcopy(IoVector.of(local, 0, 16), peerBase + REGION - 8, rkey, null));
        assertEquals(before, peerCrc(REGION - 8, 8));
        // our own keys do not work on the endpoint to the peer
        final MemoryHandle mine = transport.memoryDomain().allocate(64);
        final RemoteKey myKey = transport.memoryDomain().unpackRkey(transport.memoryDomain().packRkey(mine));
        assertEquals(Status.INVALID_RKEY, ep.getZcopy(IoVector.of(local, 0, 8), mine.address(), myKey, null));
        transport.memoryDomain().deregister(mine);
        assertEquals(Status.OK, ep.check());
        final Completion f = new Completion();
        f.reset(1);
        assertEquals(Status.OK, finish(iface, iface.flush(Interface.FLUSH_LOCAL, f), f));
    }

    @Test
    void shouldFailTheEndpointWhenThePeerIsKilled() throws Exception {
        final List<Endpoint> failedEps = new ArrayList<>();
        final List<Status> failures = new ArrayList<>();
        iface = open(InterfaceParams.defaults().withErrorHandler((e, st) -> {
            failedEps.add(e);
            failures.add(st);
        }));
        final Endpoint ep = iface.connect(peerDevice, peerIface);
        final Endpoint idle = iface.connect(peerDevice, peerIface);
        final RemoteKey rkey = transport.memoryDomain().unpackRkey(peerRkey);
        final MemorySegment local = arena.allocate(8L << 20, 64);
        // a queued transfer in flight, then the peer dies
        final Completion big = new Completion();
        big.reset(1);
        assertEquals(Status.IN_PROGRESS, ep.getZcopy(IoVector.of(local, 0, 8L << 20), peerBase, rkey, big));
        final Completion flushed = new Completion();
        flushed.reset(1);
        assertEquals(Status.IN_PROGRESS, ep.flush(Interface.FLUSH_LOCAL, flushed));
        assertEquals(Status.OK, ep.check());
        peer.destroyForcibly(); // SIGKILL
        assertTrue(peer.waitFor(20, TimeUnit.SECONDS));
        assertEquals(Status.CONNECTION_RESET, await(iface, big), "queued transfer fails, does not hang");
        assertNotEquals(Status.OK, await(iface, flushed));
        assertEquals(Status.CONNECTION_RESET,
            ep.putZcopy(IoVector.of(local, 0, 8), peerBase, rkey, null), "later ops fail at once");
        assertEquals(Status.CONNECTION_RESET, idle.check(), "check() sees the peer is gone");
        iface.progress();
        assertEquals(List.of(Status.CONNECTION_RESET, Status.CONNECTION_RESET), failures);
        assertTrue(failedEps.contains(ep) && failedEps.contains(idle));
        // the interface goes on serving other endpoints: here, one to ourselves
        final Interface self = open(InterfaceParams.defaults());
        final Endpoint toSelf = iface.connect(self.deviceAddress(), self.interfaceAddress());
        final MemoryHandle h = transport.memoryDomain().allocate(64);
        h.segment().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
        final RemoteKey k = transport.memoryDomain().unpackRkey(transport.memoryDomain().packRkey(h));
        assertEquals(Status.OK, toSelf.getZcopy(IoVector.of(local, 0, 8), h.address(), k, null));
        assertEquals(0x1122334455667788L, local.get(ValueLayout.JAVA_LONG, 0));
        transport.memoryDomain().deregister(h);
    }

    @Test
    void shouldFailAnInlineOperationOnAKilledPeer() throws Exception {
        iface = open(InterfaceParams.defaults());
        final Endpoint ep = iface.connect(peerDevice, peerIface);
        final RemoteKey rkey = transport.memoryDomain().unpackRkey(peerRkey);
        final MemorySegment local = arena.allocate(64);
        assertEquals(Status.OK, ep.getZcopy(IoVector.of(local, 0, 64), peerBase, rkey, null));
        peer.destroyForcibly();
        assertTrue(peer.waitFor(20, TimeUnit.SECONDS));
        assertEquals(Status.CONNECTION_RESET, ep.getZcopy(IoVector.of(local, 0, 64), peerBase, rkey, null));
        assertEquals(Status.CONNECTION_RESET, ep.check());
        assertEquals(Status.CONNECTION_RESET, ep.flush(Interface.FLUSH_LOCAL, null));
    }
}
