package weft.uct.tcp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AllocationMeter;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

import java.io.File;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * One socket per peer pair: both sides connect before either progresses (the usual case), the
 * side with the larger interface address moves its endpoint onto the peer's socket, and from
 * then on one socket carries requests and replies of both directions.
 */
@Timeout(60)
class TcpSharedSocketTest {
    private UctWorker w1;
    private UctWorker w2;
    private TcpInterface a;
    private TcpInterface b;
    private final Arena arena = Arena.ofShared();
    private final List<Status> errorsA = Collections.synchronizedList(new ArrayList<>());
    private final List<Status> errorsB = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> atA = new ArrayList<>();
    private final List<Long> atB = new ArrayList<>();
    private final List<Runnable> toClose = new ArrayList<>();
    private final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();

    @BeforeEach
    void setUp() {
        w1 = new UctWorker();
        w2 = new UctWorker();
        a = (TcpInterface) TcpTestSupport.open(w1, Config.global(), (ep, st) -> errorsA.add(st));
        b = (TcpInterface) TcpTestSupport.open(w2, Config.global(), (ep, st) -> errorsB.add(st));
        a.setAmHandler(5, (d, o, l, f) -> {
            atA.add(d.get(TcpFrame.I64, o));
            return Status.OK;
        });
        b.setAmHandler(5, (d, o, l, f) -> {
            atB.add(d.get(TcpFrame.I64, o));
            return Status.OK;
        });
    }

    @AfterEach
    void tearDown() {
        w1.close();
        w2.close();
        for (final Runnable r : toClose) {
            r.run();
        }
        arena.close();
    }

    private static long key(final Interface i) {
        final TcpAddress.Iface x = TcpAddress.parseIface(i.interfaceAddress());
        return (x.ip() & 0xFFFFFFFFL) << 16 | x.port();
    }

    /** Socket descriptors of this process (listening and connected). */
    static int socketFds() {
        final File[] fds = new File("/proc/self/fd").listFiles();
        int n = 0;
        if (fds != null) {
            for (final File f : fds) {
                try {
                    if (Files.readSymbolicLink(f.toPath()).toString().startsWith("socket:")) {
                        n++;
                    }
                } catch (final IOException e) {
                    // closed while listing (the JDK's own descriptor for the listing)
                }
            }
        }
        return n;
    }

    private static void send(final Endpoint ep, final long seq, final Interface... progress) {
        Status st;
        final long dl = System.nanoTime() + 10_000_000_000L;
        while ((st = ep.amShort(5, seq, MemorySegment.NULL, 0, 0)) == Status.NO_RESOURCE) {
            assertTrue(System.nanoTime() < dl, "NO_RESOURCE for 10 s");
            for (final Interface i : progress) {
                i.progress();
            }
        }
        assertEquals(Status.OK, st);
    }

    /** Both connect before any progress; returns {ab, ba} once exactly one socket is left. */
    private Endpoint[] connectBoth(final boolean aFirst) {
        final Endpoint ab;
        final Endpoint ba;
        if (aFirst) {
            ab = a.connect(b.deviceAddress(), b.interfaceAddress());
            ba = b.connect(a.deviceAddress(), a.interfaceAddress());
        } else {
            ba = b.connect(a.deviceAddress(), a.interfaceAddress());
            ab = a.connect(b.deviceAddress(), b.interfaceAddress());
        }
        return new Endpoint[] {ab, ba};
    }

    private void awaitOneSocket() {
        // one socket left, authenticated both ways, each side serving the other on it
        progressUntil(() -> a.connections() == 1 && b.connections() == 1 && a.serverConnections() == 1
            && b.serverConnections() == 1, 10_000, "one socket per pair", a, b);
    }

    @Test
    void shouldShareOneSocketWhenAConnectsFirst() {
        simultaneous(true);
    }

    @Test
    void shouldShareOneSocketWhenBConnectsFirst() {
        simultaneous(false);
    }

    private void simultaneous(final boolean aFirst) {
        final int before = socketFds();
        final Endpoint[] eps = connectBoth(aFirst);
        assertEquals(before + 2, socketFds(), "each side opened its own socket");
        // traffic before any progress: it goes on the sockets each side opened
        send(eps[0], 0);
        send(eps[1], 0);
        progressUntil(() -> atA.size() == 1 && atB.size() == 1, 5000, "first messages", a, b);
        awaitOneSocket();
        // the larger address moved onto the smaller one's socket, the other side stayed
        final boolean aLarger = key(a) > key(b);
        assertEquals(aLarger ? 1 : 0, a.sharedSwitches());
        assertEquals(aLarger ? 0 : 1, b.sharedSwitches());
        assertEquals(before + 2, socketFds(), "one socket: its two ends in this process");
        assertEquals(1, a.serverConnections());
        assertEquals(1, b.serverConnections());
        for (long i = 1; i < 100; i++) {
            send(eps[0], i, a, b);
            send(eps[1], i, a, b);
        }
        progressUntil(() -> atA.size() == 100 && atB.size() == 100, 5000, "messages on the shared socket", a, b);
        for (int i = 0; i < 100; i++) {
            assertEquals(i, atA.get(i));
            assertEquals(i, atB.get(i));
        }
        assertEquals(1, a.connections());
        eps[0].close();
        eps[1].close();
        progressUntil(() -> a.connections() == 0 && b.connections() == 0, 5000, "socket closed", a, b);
        assertEquals(before, socketFds(), "every socket closed");
        assertTrue(errorsA.isEmpty() && errorsB.isEmpty(), "no errors: " + errorsA + " " + errorsB);
    }

    /**
     * A peer that closes with bytes of ours unread resets the socket; what it sent before is still
     * readable, and must be delivered although our own unsent bytes can no longer be written.
     */
    @Test
    void shouldDeliverWhatThePeerSentBeforeItsCloseResetTheSocket() {
        final Endpoint[] eps = connectBoth(true);
        send(eps[0], 0);
        send(eps[1], 0);
        progressUntil(() -> atA.size() == 1 && atB.size() == 1, 5000, "first messages", a, b);
        awaitOneSocket();
        // fill the socket towards b (b does not progress) until a holds bytes the kernel did not take
        final int max = a.attributes().amMaxShort();
        final MemorySegment payload = arena.allocate(max);
        long queued = 0;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (eps[0].amShort(5, 1, payload, 0, max) != Status.NO_RESOURCE) {
            assertTrue(System.nanoTime() < deadline, "a's socket never filled");
            queued++;
            a.progress();
        }
        assertTrue(queued > 0);
        send(eps[1], 4242); // b's last message, then b goes away with a's bytes unread: a reset
        w2.close();
        progressUntil(() -> !errorsA.isEmpty(), 5000, "a sees the reset", a);
        assertEquals(List.of(Status.CONNECTION_RESET), errorsA);
        assertEquals(List.of(0L, 4242L), atA, "b's last message was delivered before the reset");
    }

    @Test
    void shouldKeepOneSocketPerDirectionWithAPeerThatDoesNotShare() {
        final UctWorker w3 = new UctWorker();
        try {
            final TcpInterface c = (TcpInterface) TcpTestSupport.open(w3,
                Config.global().with("TCP_SHARED_SOCKET", "n"), (ep, st) -> errorsB.add(st));
            final List<Long> atC = new ArrayList<>();
            c.setAmHandler(5, (d, o, l, f) -> {
                atC.add(d.get(TcpFrame.I64, o));
                return Status.OK;
            });
            final Endpoint ac = a.connect(c.deviceAddress(), c.interfaceAddress());
            final Endpoint ca = c.connect(a.deviceAddress(), a.interfaceAddress());
            for (long i = 0; i < 50; i++) {
                send(ac, i, a, c);
                send(ca, i, a, c);
            }
            progressUntil(() -> atA.size() == 50 && atC.size() == 50 && a.serverConnections() == 1
                && c.serverConnections() == 1, 5000, "traffic both ways", a, c);
            for (int i = 0; i < 50; i++) {
                assertEquals(i, atA.get(i));
                assertEquals(i, atC.get(i));
            }
            assertEquals(2, a.connections(), "no sharing with a peer that does not share");
            assertEquals(2, c.connections());
            assertEquals(0, a.sharedSwitches() + c.sharedSwitches());
            ac.close();
            ca.close();
            progressUntil(() -> a.connections() == 0 && c.connections() == 0, 5000, "closed", a, c);
            assertTrue(errorsA.isEmpty() && errorsB.isEmpty(), "no errors: " + errorsA + " " + errorsB);
        } finally {
            w3.close();
        }
    }

    @Test
    void shouldUseTheAcceptedSocketWhenConnectingAfterThePeer() {
        final Endpoint ab = a.connect(b.deviceAddress(), b.interfaceAddress());
        send(ab, 0);
        progressUntil(() -> atB.size() == 1 && b.connections() == 1 && b.serverConnections() == 1, 5000,
            "accepted", a, b);
        final Endpoint ba = b.connect(a.deviceAddress(), a.interfaceAddress());
        assertEquals(1, b.connections(), "no new socket");
        send(ba, 0);
        progressUntil(() -> atA.size() == 1, 5000, "reply direction", a, b);
        assertEquals(1, a.connections());
        assertEquals(0, a.sharedSwitches() + b.sharedSwitches());
    }

    @Test
    void shouldKeepAmOrderAcrossTheSwitchUnderLoad() {
        final Endpoint[] eps = connectBoth(key(a) > key(b));
        final TcpEndpoint larger = (TcpEndpoint) (key(a) > key(b) ? eps[0] : eps[1]);
        final TcpInterface largerIface = key(a) > key(b) ? a : b;
        final int n = 20_000;
        final MemorySegment payload = arena.allocate(1024);
        long sentBeforeSwitch = -1;
        for (int i = 0; i < n; i++) {
            for (final Endpoint ep : eps) {
                final long seq = i;
                long r;
                final long dl = System.nanoTime() + 10_000_000_000L;
                // 1 KiB bcopy messages: a backlog on the old socket when the switch starts
                while ((r = ep.amBcopy(5, (dest, off, cap) -> {
                    dest.set(TcpFrame.I64, off, seq);
                    MemorySegment.copy(payload, 8, dest, off + 8, 1016);
                    return 1024;
                })) == Status.NO_RESOURCE.code()) {
                    assertTrue(System.nanoTime() < dl, "NO_RESOURCE for 10 s");
                    a.progress();
                    b.progress();
                }
                assertEquals(1024, r);
            }
            if (sentBeforeSwitch < 0 && largerIface.sharedSwitches() == 1) {
                sentBeforeSwitch = i;
            }
            if ((i & 7) == 0) {
                a.progress();
                b.progress();
            }
        }
        progressUntil(() -> atA.size() == n && atB.size() == n, 20_000, "all messages", a, b);
        for (int i = 0; i < n; i++) {
            assertEquals(i, atA.get(i), "order at a");
            assertEquals(i, atB.get(i), "order at b");
        }
        assertTrue(sentBeforeSwitch > 0 && sentBeforeSwitch < n,
            "messages went on both sockets (switched after " + sentBeforeSwitch + ")");
        assertEquals(larger.conn.ch, larger.ch);
        assertTrue(!larger.conn.connector, "the larger side uses the socket the smaller one opened");
        awaitOneSocket();
    }

    private MemoryHandle mem(final int size) {
        final MemoryHandle mh = md.allocate(size);
        toClose.add(() -> md.deregister(mh));
        return mh;
    }

    private static Status await(final Completion c, final Status st, final Interface... ifs) {
        if (st != Status.IN_PROGRESS) {
            return st;
        }
        progressUntil(c::isDone, 10_000, "completion", ifs);
        return c.status();
    }

    @Test
    void shouldPutGetAndAtomicBothWaysOnOneSocket() {
        final Endpoint[] eps = connectBoth(true);
        awaitOneSocket();
        final MemoryHandle ma = mem(1 << 20);
        final MemoryHandle mb = mem(1 << 20);
        final RemoteKey ka = md.unpackRkey(md.packRkey(ma));
        final RemoteKey kb = md.unpackRkey(md.packRkey(mb));
        final MemorySegment src = arena.allocate(1 << 20);
        final MemorySegment dst = arena.allocate(1 << 20);
        final MemorySegment res = arena.allocate(8, 8);
        final Completion c = new Completion();
        for (int dir = 0; dir < 2; dir++) {
            final Endpoint ep = eps[dir];
            final MemoryHandle target = dir == 0 ? mb : ma;
            final RemoteKey k = dir == 0 ? kb : ka;
            for (int i = 0; i < (1 << 20); i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + dir));
            }
            assertEquals(Status.OK, ep.putShort(src, 0, 8, k.base(), k));
            c.reset(1);
            // large put and get (both beyond the rx buffer: streamed) and a small get
            assertEquals(Status.OK, await(c, ep.putZcopy(IoVector.of(src, 0, 1 << 20), k.base(), k, c), a, b));
            assertEquals(-1, src.mismatch(target.segment()));
            c.reset(1);
            assertEquals(Status.OK, await(c, ep.getZcopy(IoVector.of(dst, 0, 1 << 20), k.base(), k, c), a, b));
            assertEquals(-1, src.mismatch(dst));
            c.reset(1);
            assertEquals(Status.OK, await(c, ep.getZcopy(IoVector.of(dst, 0, 100), k.base() + 5, k, c), a, b));
            assertEquals(-1, src.asSlice(5, 100).mismatch(dst.asSlice(0, 100)));
            target.segment().set(ValueLayout.JAVA_LONG, 64, 40);
            c.reset(1);
            assertEquals(Status.OK, await(c, ep.atomic64Fetch(AtomicOp.ADD, 2, res, 0, k.base() + 64, k, c), a, b));
            assertEquals(40, res.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(Status.OK, ep.atomic64Post(AtomicOp.ADD, 1, k.base() + 64, k));
            c.reset(1);
            assertEquals(Status.OK, await(c, ep.atomic64Cswap(43, 7, res, 0, k.base() + 64, k, c), a, b));
            assertEquals(43, res.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(7, target.segment().get(ValueLayout.JAVA_LONG, 64));
            c.reset(1);
            assertEquals(Status.OK, await(c, ep.flush(Interface.FLUSH_REMOTE, c), a, b));
            assertEquals(Status.OUT_OF_RANGE, ep.getZcopy(IoVector.of(dst, 0, 16), k.base() + (1 << 20) - 8, k, c));
        }
        assertEquals(1, a.connections());
        assertEquals(1, b.connections());
    }

    @Test
    void shouldCompleteRmaIssuedAcrossTheSwitch() {
        final boolean aLarger = key(a) > key(b);
        final Endpoint[] eps = connectBoth(!aLarger);
        final Endpoint mover = aLarger ? eps[0] : eps[1];
        final TcpInterface moverIface = aLarger ? a : b;
        final MemoryHandle target = mem(4096);
        final RemoteKey k = md.unpackRkey(md.packRkey(target));
        final MemorySegment src = arena.allocate(8, 8);
        final MemorySegment res = arena.allocate(8 * 4000L, 8);
        final MemorySegment got = arena.allocate(8 * 4000L, 8);
        final Completion c = new Completion();
        int switchedAt = -1;
        for (int i = 0; i < 4000; i++) {
            src.set(ValueLayout.JAVA_LONG, 0, i);
            final int slot = i % 64;
            final long off = 8L * slot;
            Status st;
            final long dl = System.nanoTime() + 10_000_000_000L;
            while ((st = mover.putShort(src, 0, 8, k.base() + off, k)) == Status.NO_RESOURCE) {
                assertTrue(System.nanoTime() < dl);
                a.progress();
                b.progress();
            }
            assertEquals(Status.OK, st);
            // a get right behind the put must see it (order), whichever socket each one took
            c.expect(1);
            while ((st = mover.getZcopy(IoVector.of(got, 8L * i, 8), k.base() + off, k, c)) == Status.NO_RESOURCE) {
                assertTrue(System.nanoTime() < dl);
                a.progress();
                b.progress();
            }
            assertEquals(Status.IN_PROGRESS, st);
            c.expect(1);
            while ((st = mover.atomic64Fetch(AtomicOp.ADD, 1, res, 8L * i, k.base() + 4000, k, c))
                == Status.NO_RESOURCE) {
                assertTrue(System.nanoTime() < dl);
                a.progress();
                b.progress();
            }
            assertEquals(Status.IN_PROGRESS, st);
            if (switchedAt < 0 && moverIface.sharedSwitches() == 1) {
                switchedAt = i;
            }
            if ((i & 3) == 0) {
                a.progress();
                b.progress();
            }
        }
        final Completion f = new Completion().reset(1);
        assertEquals(Status.OK, await(f, mover.flush(Interface.FLUSH_REMOTE, f), a, b));
        progressUntil(() -> c.count() == 0, 10_000, "gets and atomics", a, b);
        assertEquals(Status.OK, c.status());
        for (int i = 0; i < 4000; i++) {
            assertEquals(i, got.get(ValueLayout.JAVA_LONG, 8L * i), "get " + i + " saw the put before it");
            assertEquals(i, res.get(ValueLayout.JAVA_LONG, 8L * i), "fetch-add " + i + " in order");
        }
        assertTrue(switchedAt > 0, "the switch happened during the run (at " + switchedAt + ")");
        awaitOneSocket();
    }

    /**
     * The mover's server serves a large get on the socket it is moving to while that socket holds
     * its transmission, and a request right behind the get (sent before the peer knew the socket
     * was shared) must wait until the reply left: reading pauses. The hold's release then drains
     * the reply from an endpoint call, not from a writability event; reading must resume anyway
     * (it once stayed paused for good: the get never completed).
     */
    @Test
    void shouldResumeServingWhenTheSwitchReleasesAHeldLargeGetReply() {
        for (int round = 0; round < 3; round++) {
            final boolean aLarger = key(a) > key(b);
            final Endpoint[] eps = connectBoth(!aLarger);
            final Endpoint mover = aLarger ? eps[0] : eps[1];
            final Endpoint stayer = aLarger ? eps[1] : eps[0];
            final List<Long> atMover = aLarger ? atA : atB;
            final List<Long> atStayer = aLarger ? atB : atA;
            final MemoryHandle target = mem(64 * 1024);
            final RemoteKey k = md.unpackRkey(md.packRkey(target));
            for (int i = 0; i < 64 * 1024; i++) {
                target.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + round));
            }
            final MemorySegment dst = arena.allocate(64 * 1024);
            // the mover sent on its own socket: its switch goes through the held phase
            send(mover, 0);
            final Completion c = new Completion().reset(1);
            // a large get and a request behind it, before either side progressed
            assertEquals(Status.IN_PROGRESS, stayer.getZcopy(IoVector.of(dst, 0, 16 * 1024), k.base(), k, c));
            send(stayer, 1);
            progressUntil(() -> c.isDone() && atMover.size() == 1 && atStayer.size() == 1, 10_000,
                "the get and the request behind it", a, b);
            assertEquals(Status.OK, c.status());
            assertEquals(-1, target.segment().asSlice(0, 16 * 1024).mismatch(dst.asSlice(0, 16 * 1024)));
            assertEquals(List.of(1L), atMover, "the request behind the get was served");
            assertEquals(List.of(0L), atStayer);
            awaitOneSocket();
            eps[0].close();
            eps[1].close();
            progressUntil(() -> a.connections() == 0 && b.connections() == 0, 5000, "sockets closed", a, b);
            atA.clear();
            atB.clear();
        }
        assertTrue(errorsA.isEmpty() && errorsB.isEmpty(), "no errors: " + errorsA + " " + errorsB);
    }

    @Test
    void shouldKeepServingThePeerAfterTheLocalEndpointCloses() {
        final Endpoint[] eps = connectBoth(true);
        awaitOneSocket();
        final MemoryHandle mb = mem(4096);
        final RemoteKey kb = md.unpackRkey(md.packRkey(mb));
        // an outstanding get and fetch when the endpoint closes: canceled, their replies dropped
        final MemorySegment dst = arena.allocate(4096);
        final MemorySegment res = arena.allocate(8, 8);
        final Completion c = new Completion().reset(2);
        assertEquals(Status.IN_PROGRESS, eps[0].getZcopy(IoVector.of(dst, 0, 4096), kb.base(), kb, c));
        assertEquals(Status.IN_PROGRESS, eps[0].atomic64Fetch(AtomicOp.ADD, 1, res, 0, kb.base(), kb, c));
        eps[0].close();
        assertTrue(c.isDone());
        assertEquals(Status.CANCELED, c.status());
        for (long i = 0; i < 5000; i++) {
            send(eps[1], i, a, b); // the peer keeps sending on the shared socket
            if ((i & 15) == 0) {
                a.progress();
                b.progress();
            }
        }
        progressUntil(() -> atA.size() == 5000, 10_000, "peer messages after the local close", a, b);
        for (int i = 0; i < 5000; i++) {
            assertEquals(i, atA.get(i));
        }
        assertEquals(1, a.connections(), "the socket stays while the peer uses it");
        assertEquals(1, b.connections());
        assertEquals(1, a.serverConnections());
        eps[1].close();
        progressUntil(() -> a.connections() == 0 && b.connections() == 0, 5000, "closed once both left", a, b);
        assertTrue(errorsA.isEmpty() && errorsB.isEmpty(), "no errors: " + errorsA + " " + errorsB);
        assertEquals(0, a.malformedConnections() + b.malformedConnections());
    }

    @Test
    void shouldFailBothRolesWhenTheSharedSocketBreaks() throws Exception {
        final Endpoint[] eps = connectBoth(true);
        awaitOneSocket();
        final MemoryHandle ma = mem(64);
        final RemoteKey ka = md.unpackRkey(md.packRkey(ma));
        final MemorySegment res = arena.allocate(8, 8);
        final Completion c = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, eps[1].atomic64Fetch(AtomicOp.ADD, 1, res, 0, ka.base(), ka, c));
        // b's interface goes away abruptly (its process dies: the kernel closes its sockets)
        final TcpEndpoint ab = (TcpEndpoint) eps[0];
        w2.close();
        progressUntil(() -> !errorsA.isEmpty(), 5000, "failure seen by a", a);
        assertEquals(Status.CONNECTION_RESET, errorsA.get(0));
        assertEquals(0, a.connections(), "the shared socket is gone: requester and server role");
        assertEquals(0, a.serverConnections());
        assertEquals(Status.CONNECTION_RESET, ab.amShort(5, 0, MemorySegment.NULL, 0, 0));
    }

    /**
     * Both sides flood each other with every kind of request while progressing only their own
     * interface, each in its own thread: if either side stopped reading because it could not
     * queue a reply, the other would stop too and neither would finish.
     */
    @Test
    @Timeout(90)
    void shouldNotDeadlockWhenBothSidesSaturate() throws Exception {
        final Endpoint[] eps = connectBoth(true);
        awaitOneSocket();
        final MemoryHandle ma = mem(1 << 20);
        final MemoryHandle mb = mem(1 << 20);
        final RemoteKey ka = md.unpackRkey(md.packRkey(ma));
        final RemoteKey kb = md.unpackRkey(md.packRkey(mb));
        final AtomicReference<Throwable> err = new AtomicReference<>();
        final long deadline = System.nanoTime() + 60_000_000_000L;
        final Thread ta = flood(a, eps[0], kb, deadline, err);
        final Thread tb = flood(b, eps[1], ka, deadline, err);
        ta.join(80_000);
        tb.join(80_000);
        assertTrue(!ta.isAlive() && !tb.isAlive(), "flood threads stuck");
        assertNull(err.get(), () -> "flood failed: " + err.get());
        assertEquals(1, a.connections());
        assertEquals(1, b.connections());
        assertTrue(errorsA.isEmpty() && errorsB.isEmpty());
    }

    private Thread flood(final Interface self, final Endpoint ep, final RemoteKey k, final long deadline,
                         final AtomicReference<Throwable> err) {
        final Thread t = new Thread(() -> {
            try (Arena ar = Arena.ofConfined()) {
                final MemorySegment big = ar.allocate(256 * 1024);
                final MemorySegment small = ar.allocate(8192);
                final MemorySegment res = ar.allocate(8, 8);
                final Completion c = new Completion();
                int issued = 0;
                for (int i = 0; i < 3000; i++) {
                    final int kind = i % 6;
                    Status st;
                    while (true) {
                        st = switch (kind) {
                            case 0 -> ep.putZcopy(IoVector.of(big, 0, 64 * 1024), k.base(), k, c);
                            case 1 -> ep.getZcopy(IoVector.of(small, 0, 4096), k.base() + 4096, k, c);
                            case 2 -> ep.getZcopy(IoVector.of(big, 0, 200 * 1024), k.base() + 8192, k, c);
                            case 3 -> ep.amZcopy(5, small, 0, 8, IoVector.of(big, 0, 32 * 1024), c);
                            case 4 -> ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, k.base(), k, c);
                            default -> ep.putShort(small, 0, 200, k.base() + 16, k);
                        };
                        if (st != Status.NO_RESOURCE) {
                            break;
                        }
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("NO_RESOURCE until the deadline at op " + i);
                        }
                        self.progress();
                    }
                    if (st == Status.IN_PROGRESS) {
                        c.expect(1);
                        issued++;
                    } else {
                        assertEquals(Status.OK, st, "op " + i);
                    }
                    if ((i & 3) == 0) {
                        self.progress(); // otherwise only when out of resources: maximal backlog
                    }
                }
                final Completion f = new Completion().reset(1);
                Status st;
                while ((st = ep.flush(Interface.FLUSH_REMOTE, f)) == Status.NO_RESOURCE) {
                    self.progress();
                }
                if (st != Status.IN_PROGRESS) {
                    f.complete(st);
                }
                while (!f.isDone() || c.count() > 0) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("completions stuck (" + c.count() + " of " + issued + " left)");
                    }
                    self.progress();
                }
                assertEquals(Status.OK, f.status());
                assertEquals(Status.OK, c.status());
                // keep serving the peer until it is done too
                final long until = System.nanoTime() + 500_000_000L;
                while (System.nanoTime() < until) {
                    self.progress();
                }
            } catch (final Throwable x) {
                err.compareAndSet(null, x);
            }
        });
        t.start();
        return t;
    }

    @Test
    @Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
    void shouldNotAllocateOnShortMessagesOverTheSharedSocket() {
        final Endpoint[] eps = connectBoth(true);
        awaitOneSocket();
        final MemorySegment src = arena.allocate(8, 8);
        final long[] got = {0, 0};
        a.setAmHandler(6, (d, o, l, f) -> {
            got[0]++;
            return Status.OK;
        });
        b.setAmHandler(6, (d, o, l, f) -> {
            got[1]++;
            return Status.OK;
        });
        final Runnable round = () -> {
            final long wantA = got[0] + 1;
            final long wantB = got[1] + 1;
            while (eps[0].amShort(6, 1, src, 0, 8) != Status.OK) {
                a.progress();
                b.progress();
            }
            while (eps[1].amShort(6, 2, src, 0, 8) != Status.OK) {
                a.progress();
                b.progress();
            }
            long spins = 0;
            while (got[0] < wantA || got[1] < wantB) {
                a.progress();
                b.progress();
                if (++spins > 50_000_000L) {
                    throw new AssertionError("round did not complete");
                }
            }
        };
        AllocationMeter.fewestBytes("10k rounds of an 8-byte am short each way", () -> {
            for (int i = 0; i < 10_000; i++) {
                round.run();
            }
        }, 512, 30_000);
        assertEquals(1, a.connections());
    }
}
