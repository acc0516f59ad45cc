package weft.uct.tcp;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import weft.ucs.Status;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.MemoryHandle;
import weft.uct.RkeyCodec;
import weft.uct.UctWorker;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * Coverage-guided fuzzing of the tcp transport's acceptor: the handshake and every request frame (AM,
 * PUT_REQ with payloads in the rx buffer or streamed, GET_REQ, ATOMIC_REQ, KEEPALIVE, DETACH, and frames of
 * the wrong role or of no type) as {@link TcpConnection} and {@link TcpServerConnection} parse them.
 *
 * <p>Each input is one raw loopback connection to a real {@link TcpInterface}: the correct handshake with
 * the interface's secret (or, one time in eight, handshake bytes of the fuzzer's own), then frames the fuzzer
 * builds (type, op, flags, length, payload; optionally the address, region id and incarnation of a live 4 KiB
 * region of this process, so that puts, gets and atomics pass the region check), then end of stream. The
 * interface must answer or close that connection, never throw from {@code progress()}, never touch memory
 * outside the region, and close it within 5 s of the end of stream (no hang); every 16 inputs a second,
 * well-behaved interface's active message must still arrive.
 *
 * <p>{@code client} fuzzes the connecting side ({@link TcpEndpoint}'s parsing of what the acceptor sends): a
 * real endpoint connects to a fake acceptor on loopback (an interface address with a token this test knows),
 * starts a get, a put, a fetching atomic and a flush, and the fake answers its handshake with the right
 * ACCEPT (or bytes of the fuzzer's) and reply frames the fuzzer builds (PUT_ACK, GET_REP, ATOMIC_REP,
 * KEEPALIVE_ACK, ACCEPT, DETACH or any type; request ids near the real ones), then closes. Every operation
 * must complete (with any status) within 5 s, and nothing may escape from {@code progress()}.
 */
class TcpFrameFuzzTest {
    private static UctWorker worker;
    private static Interface server;
    private static Interface client;
    private static Endpoint clientEp;
    private static MemoryHandle region;
    private static long regionStamp;
    private static long regionId;
    private static long regionBase;
    private static byte[] hello;
    private static int port;
    private static long delivered;
    private static long inputs;
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[8]);

    private static synchronized void setUp() {
        if (worker != null) {
            return;
        }
        weft.testkit.FuzzBytes.quietWhileFuzzing();
        worker = new UctWorker();
        server = TcpTestSupport.open(worker);
        client = TcpTestSupport.open(worker);
        for (int id = 0; id < Interface.AM_ID_COUNT; id++) {
            server.setAmHandler(id, (d, o, l, f) -> {
                delivered++;
                return Status.OK;
            });
        }
        clientEp = client.connect(server.deviceAddress(), server.interfaceAddress());
        region = TcpMemoryDomain.INSTANCE.allocate(4096);
        final ByteBuffer k = RkeyCodec.open("tcp", TcpMemoryDomain.INSTANCE.packRkey(region));
        regionStamp = k.getLong();
        regionId = k.getLong();
        regionBase = k.getLong();
        final TcpAddress.Iface a = TcpAddress.parseIface(server.interfaceAddress());
        port = a.port();
        hello = ByteBuffer.allocate(TcpFrame.HANDSHAKE_FIXED).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(TcpFrame.MAGIC).putShort((short) TcpFrame.VERSION).putShort((short) 0).putInt(0)
            .put(TcpHandshake.digest(a.token())).array();
    }

    @AfterAll
    static synchronized void tearDown() {
        if (worker != null) {
            clientEp.close();
            client.close();
            if (requester != null) {
                requester.close();
                requester = null;
                try {
                    fake.close();
                } catch (final IOException e) {
                    // closing
                }
            }
            server.close();
            TcpMemoryDomain.INSTANCE.deregister(region);
            worker.close();
            worker = null;
        }
    }

    private static Interface requester;
    private static java.nio.channels.ServerSocketChannel fake;
    private static final byte[] FAKE_TOKEN = new byte[TcpAddress.TOKEN_LEN];
    private static final java.lang.foreign.Arena ARENA = java.lang.foreign.Arena.ofShared();
    private static final MemorySegment BUF = ARENA.allocate(4096, 8);

    @FuzzTest(maxDuration = "2m")
    void client(final FuzzedDataProvider data) throws IOException {
        setUp();
        synchronized (TcpFrameFuzzTest.class) {
            if (requester == null) {
                // fail at the first fault (a fake acceptor that closes never answers a resume)
                requester = TcpTestSupport.open(worker, weft.ucs.config.Config.global().with("FAULT_TIMEOUT", "0"), null);
                fake = java.nio.channels.ServerSocketChannel.open();
                fake.bind(new InetSocketAddress("127.0.0.1", 0));
                FAKE_TOKEN[0] = 42;
            }
        }
        final int fakePort = ((InetSocketAddress) fake.getLocalAddress()).getPort();
        final weft.uct.RemoteKey key = TcpMemoryDomain.INSTANCE.unpackRkey(TcpMemoryDomain.INSTANCE.packRkey(region));
        final Endpoint ep = requester.connect(server.deviceAddress(), TcpAddress.iface(0x7F000001, fakePort, FAKE_TOKEN));
        final weft.uct.Completion get = new weft.uct.Completion().reset(1);
        final weft.uct.Completion amo = new weft.uct.Completion().reset(1);
        final weft.uct.Completion flush = new weft.uct.Completion().reset(1);
        final java.util.List<weft.uct.Completion> waiting = new java.util.ArrayList<>();
        if (ep.getZcopy(weft.uct.IoVector.of(BUF, 0, 64), regionBase, key, get) == Status.IN_PROGRESS) {
            waiting.add(get);
        }
        ep.putShort(BUF, 64, 8, regionBase + 8, key);
        if (ep.atomic64Fetch(weft.uct.AtomicOp.ADD, 1, BUF, 128, regionBase + 16, key, amo) == Status.IN_PROGRESS) {
            waiting.add(amo);
        }
        if (ep.flush(Interface.FLUSH_REMOTE, flush) == Status.IN_PROGRESS) {
            waiting.add(flush);
        }
        final ByteBuffer out = ByteBuffer.allocate(1 << 17).order(ByteOrder.LITTLE_ENDIAN);
        if (data.consumeInt(0, 7) == 0) {
            out.put(data.consumeBytes(data.consumeInt(0, 64)));
        } else {
            out.putLong(TcpFrame.ACCEPT | (long) TcpFrame.ACCEPT_LEN << 32)
                .put(TcpHandshake.digest(TcpFrame.ACCEPT_CONTEXT, FAKE_TOKEN)).putLong(0);
        }
        final int frames = data.consumeInt(0, 8);
        final int[] types = {TcpFrame.PUT_ACK, TcpFrame.GET_REP, TcpFrame.ATOMIC_REP, TcpFrame.KEEPALIVE_ACK,
            TcpFrame.ACCEPT, TcpFrame.DETACH};
        for (int i = 0; i < frames && out.remaining() > 70_000; i++) {
            final int type = data.consumeBoolean() ? types[data.consumeInt(0, types.length - 1)] : data.consumeInt(0, 255);
            final int op = data.consumeBoolean() ? 0 : data.consumeInt(0, 255);
            final int flags = data.consumeBoolean() ? 0 : data.consumeInt(0, 0xFFFF);
            final byte[] body = data.consumeBytes(data.consumeInt(0, 66_000));
            if (body.length >= 8 && data.consumeBoolean()) { // a request id or sequence near the real ones
                ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).putInt(0, data.consumeInt(-1, 4))
                    .putInt(4, data.consumeBoolean() ? 0 : data.consumeInt());
            }
            final long length = data.consumeBoolean() ? body.length : data.consumeLong() & 0xFFFFFFFFL;
            out.putLong((type & 0xFFL) | (op & 0xFFL) << 8 | (flags & 0xFFFFL) << 16 | length << 32);
            out.put(body);
        }
        out.flip();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        try (SilentCloseable allowed = com.code_intelligence.jazzer.api.BugDetectors.allowNetworkConnections(
            (host, p) -> p == fakePort)) {
            SocketChannel s = null;
            while (s == null) {
                requester.progress();
                s = fake.accept(); // blocking: the endpoint's connect is under way already
            }
            try (SocketChannel c = s) {
                c.configureBlocking(false);
                final ByteBuffer in = ByteBuffer.allocate(1 << 16);
                boolean shut = false;
                while (true) {
                    requester.progress();
                    if (out.hasRemaining()) {
                        try {
                            c.write(out);
                        } catch (final IOException e) {
                            break;
                        }
                    } else if (!shut) {
                        c.shutdownOutput();
                        shut = true;
                    }
                    in.clear();
                    int n;
                    try {
                        n = c.read(in);
                    } catch (final IOException e) {
                        n = -1;
                    }
                    if (n < 0 && !out.hasRemaining()) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        break; // the completions below say whether that is a hang
                    }
                }
            }
            while (!waiting.stream().allMatch(weft.uct.Completion::isDone)) {
                requester.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("operations still outstanding 5 s after the acceptor closed");
                }
            }
        } finally {
            ep.close();
            key.close();
            requester.progress();
        }
    }

    @FuzzTest(maxDuration = "2m")
    void server(final FuzzedDataProvider data) throws IOException {
        setUp();
        final ByteBuffer out = ByteBuffer.allocate(1 << 18).order(ByteOrder.LITTLE_ENDIAN);
        if (data.consumeInt(0, 7) == 0) {
            out.put(data.consumeBytes(data.consumeInt(0, 128)));
        } else {
            out.put(hello);
        }
        final int frames = data.consumeInt(0, 8);
        for (int i = 0; i < frames && out.remaining() > 70_000; i++) {
            final int type = data.consumeInt(0, 12);
            final int op = data.consumeBoolean() ? 0 : data.consumeInt(0, 255);
            final int flags = data.consumeBoolean() ? 0 : data.consumeInt(0, 0xFFFF);
            final byte[] body = data.consumeBytes(data.consumeInt(0, 66_000));
            if (body.length >= 32 && data.consumeBoolean()) { // a live region: pass the access check
                final ByteBuffer b = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
                b.putLong(8, regionBase + data.consumeInt(-16, 4100)).putLong(16, regionId).putLong(24, regionStamp);
            }
            final long length = data.consumeBoolean() ? body.length : data.consumeLong() & 0xFFFFFFFFL;
            out.putLong((type & 0xFFL) | (op & 0xFFL) << 8 | (flags & 0xFFFFL) << 16 | length << 32);
            out.put(body);
        }
        out.flip();
        final int before = server.counters().hashCode(); // (keeps nothing: only exercises the call)
        try (SocketChannel s = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            s.configureBlocking(false);
            final ByteBuffer in = ByteBuffer.allocate(1 << 16);
            final long deadline = System.nanoTime() + 5_000_000_000L;
            boolean shut = false;
            while (true) {
                server.progress();
                if (out.hasRemaining()) {
                    try {
                        s.write(out);
                    } catch (final IOException e) {
                        break; // the interface closed (reset) the connection
                    }
                } else if (!shut) {
                    s.shutdownOutput();
                    shut = true;
                }
                in.clear();
                final int n;
                try {
                    n = s.read(in);
                } catch (final IOException e) {
                    break; // reset: closed
                }
                if (n < 0) {
                    break; // closed
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the interface neither closed nor finished the connection in 5 s ("
                        + (out.hasRemaining() ? out.remaining() + " bytes not taken" : "all bytes sent") + ")");
                }
            }
        }
        server.progress();
        if (++inputs % 16 == 0 || before == 0) {
            final long seen = delivered;
            Status st;
            final long t = System.nanoTime() + 5_000_000_000L;
            while ((st = clientEp.amShort(3, 1, EMPTY, 0, 0)) == Status.NO_RESOURCE && System.nanoTime() < t) {
                client.progress();
                server.progress();
            }
            assertEquals(Status.OK, st, "a well-behaved endpoint can still send");
            progressUntil(() -> delivered > seen, 5000, "a well-behaved active message", client, server);
        }
    }
}
