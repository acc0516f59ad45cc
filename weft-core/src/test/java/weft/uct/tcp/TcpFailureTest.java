package weft.uct.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.sys.LibC;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.PendingRequest;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/** Authentication, malformed input, peer failure, close, wakeup and descriptor hygiene. */
@Timeout(60)
class TcpFailureTest extends TcpInterfaceFixture {
    private int delivered;

    /** {@link TcpInterfaceFixture#open} with an AM handler on id 1 that counts deliveries. */
    @Override
    TcpInterface open(final Config c) {
        final TcpInterface i = super.open(c);
        i.setAmHandler(1, (d, o, l, f) -> {
            delivered++;
            return Status.OK;
        });
        return i;
    }

    private TcpInterface open() {
        return open(Config.global());
    }

    private static int port(final Interface i) {
        return TcpAddress.parseIface(i.interfaceAddress()).port();
    }

    /** A correct handshake for {@code target} (its token from its interface address). */
    private static byte[] handshake(final Interface target, final byte[] secretDigest) {
        final ByteBuffer b = ByteBuffer.allocate(TcpFrame.HANDSHAKE_FIXED).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(TcpFrame.MAGIC).putShort((short) TcpFrame.VERSION).putShort((short) 0).putInt(0);
        b.put(secretDigest);
        return b.array();
    }

    private static byte[] digestOf(final Interface target) {
        return TcpHandshake.digest(TcpAddress.parseIface(target.interfaceAddress()).token());
    }

    /** Progresses {@code iface} until the raw socket sees end of stream (the interface closed it). */
    private static void awaitClosedByPeer(final Socket s, final Interface iface) throws Exception {
        s.setSoTimeout(5);
        final InputStream in = s.getInputStream();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            iface.progress();
            try {
                final int r = in.read();
                if (r < 0) {
                    return;
                }
            } catch (final SocketTimeoutException e) {
                continue;
            } catch (final java.net.SocketException e) {
                return; // reset: closed as well
            }
        }
        throw new AssertionError("the interface did not close the connection");
    }

    /** Reads {@code n} bytes from a raw socket while {@code iface} progresses (it must send them). */
    private static byte[] readWhileProgressing(final Socket s, final int n, final Interface iface) throws Exception {
        s.setSoTimeout(5);
        final byte[] out = new byte[n];
        int got = 0;
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (got < n) {
            assertTrue(System.nanoTime() < deadline, "peer did not send " + n + " bytes");
            iface.progress();
            try {
                final int r = s.getInputStream().read(out, got, n - got);
                assertTrue(r >= 0, "unexpected end of stream");
                got += r;
            } catch (final SocketTimeoutException e) {
                // keep progressing
            }
        }
        return out;
    }

    private void assertStillServes(final Interface from, final Interface to) {
        final int before = delivered;
        final Endpoint ep = from.connect(to.deviceAddress(), to.interfaceAddress());
        assertEquals(Status.OK, ep.amShort(1, 7, MemorySegment.NULL, 0, 0));
        progressUntil(() -> delivered == before + 1, 5000, "legitimate message", from, to);
    }

    @Test
    void shouldBoundAFloodOfSilentConnections() throws Exception {
        final Interface a = open();
        final Interface b = open(Config.global().with("TCP_MAX_HANDSHAKES", "4"));
        final TcpInterface tb = (TcpInterface) b;
        final List<Socket> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                flood.add(new Socket("127.0.0.1", port(b)));
            }
            // the first 4 wait for their hello (60 s by default); the 6 others are refused at accept
            progressUntil(() -> tb.rejectedConnections() == 6, 5000, "6 refused connections", b);
            int closed = 0;
            for (final Socket s : flood) {
                s.setSoTimeout(20);
                try {
                    if (s.getInputStream().read() < 0) {
                        closed++;
                    }
                } catch (final java.net.SocketTimeoutException e) {
                    // still open: waiting for its hello
                } catch (final java.net.SocketException e) {
                    closed++; // reset
                }
            }
            assertEquals(6, closed, "sockets closed by the interface");
            assertEquals(4, tb.handshakingConnections());
        } finally {
            for (final Socket s : flood) {
                s.close();
            }
        }
        // once the silent ones are gone, a real peer gets in again
        progressUntil(() -> tb.handshakingConnections() == 0, 5000, "the silent connections closed", b);
        assertStillServes(a, b);
    }

    @Test
    void shouldDropJunkWrongSecretAndSilentConnections() throws Exception {
        final Interface a = open();
        final Interface b = open(Config.global().with("TCP_HANDSHAKE_TIMEOUT", "200ms"));
        final TcpInterface tb = (TcpInterface) b;
        try (Socket junk = new Socket("127.0.0.1", port(b))) {
            final OutputStream out = junk.getOutputStream();
            final byte[] garbage = new byte[200];
            new java.util.Random(1).nextBytes(garbage);
            out.write(garbage);
            out.flush();
            awaitClosedByPeer(junk, b);
        }
        try (Socket wrong = new Socket("127.0.0.1", port(b))) {
            final byte[] d = digestOf(b);
            d[5] ^= 1;
            wrong.getOutputStream().write(handshake(b, d));
            // and an AM right behind it, which must never reach the handler
            final ByteBuffer am = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            am.put((byte) TcpFrame.AM).put((byte) 1).putShort((short) 0).putInt(8).putLong(1);
            wrong.getOutputStream().write(am.array());
            awaitClosedByPeer(wrong, b);
        }
        try (Socket silent = new Socket("127.0.0.1", port(b))) {
            awaitClosedByPeer(silent, b); // handshake timeout
        }
        assertEquals(3, tb.rejectedConnections());
        assertEquals(0, delivered);
        assertEquals(0, tb.serverConnections());
        assertStillServes(a, b);
    }

    @Test
    void shouldCloseAConnectionThatSendsMalformedFramesAndKeepOthers() throws Exception {
        final Interface a = open();
        final Interface b = open();
        final TcpInterface tb = (TcpInterface) b;
        final Endpoint good = a.connect(b.deviceAddress(), b.interfaceAddress());
        assertEquals(Status.OK, good.amShort(1, 1, MemorySegment.NULL, 0, 0));
        progressUntil(() -> delivered == 1, 5000, "first message", a, b);
        final byte[][] bad = {
            {77, 0, 0, 0, 0, 0, 0, 0}, // unknown type
            {(byte) TcpFrame.AM, 1, 0, 0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F}, // AM far too long
            {(byte) TcpFrame.PUT_ACK, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, // a reply on the request side
            {(byte) TcpFrame.GET_REQ, 0, 0, 0, 5, 0, 0, 0, 1, 2, 3, 4, 5}, // wrong length for the type
            {(byte) TcpFrame.AM, 40, 0, 0, 0, 0, 0, 0}, // AM id out of range
        };
        for (final byte[] frame : bad) {
            try (Socket s = new Socket("127.0.0.1", port(b))) {
                s.getOutputStream().write(handshake(b, digestOf(b)));
                s.getOutputStream().write(frame);
                awaitClosedByPeer(s, b);
            }
        }
        assertEquals(bad.length, tb.malformedConnections());
        assertEquals(0, tb.rejectedConnections());
        assertEquals(Status.OK, good.amShort(1, 2, MemorySegment.NULL, 0, 0));
        progressUntil(() -> delivered == 2, 5000, "message after the malformed peers", a, b);
        assertTrue(errors.isEmpty());
    }

    @Test
    void shouldFailTheEndpointWhosePeerSendsAMalformedReply() throws Exception {
        final Interface a = open();
        final Interface b = open();
        final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
        final MemoryHandle mh = md.allocate(64);
        toClose.add(() -> md.deregister(mh));
        final RemoteKey key = md.unpackRkey(md.packRkey(mh));
        try (ServerSocket fake = new ServerSocket()) {
            fake.bind(new InetSocketAddress("127.0.0.1", 0));
            final byte[] token = new byte[16];
            final Endpoint ep = a.connect(TcpAddress.device(0x7F000001),
                TcpAddress.iface(0x7F000001, fake.getLocalPort(), token));
            final Endpoint other = a.connect(b.deviceAddress(), b.interfaceAddress());
            final MemorySegment dst = arena.allocate(8);
            final Completion c = new Completion().reset(1);
            assertEquals(Status.IN_PROGRESS, ep.getZcopy(IoVector.of(dst, 0, 8), key.base(), key, c));
            fake.setSoTimeout(5000);
            try (Socket s = fake.accept()) {
                final byte[] hs = readWhileProgressing(s, TcpFrame.HANDSHAKE_FIXED, a);
                assertEquals(TcpFrame.MAGIC, ByteBuffer.wrap(hs).order(ByteOrder.LITTLE_ENDIAN).getLong());
                s.getOutputStream().write(new byte[] {(byte) TcpFrame.GET_REP, 0, 0, 0, 3, 0, 0, 0, 9, 9, 9});
                progressUntil(c::isDone, 5000, "get failure", a);
            }
            assertEquals(Status.CONNECTION_RESET, c.status());
            assertEquals(List.of(Status.CONNECTION_RESET), errors);
            assertEquals(Status.CONNECTION_RESET, ep.amShort(1, 0, MemorySegment.NULL, 0, 0));
            assertEquals(1, ((TcpInterface) a).malformedConnections());
            assertEquals(Status.OK, other.amShort(1, 0, MemorySegment.NULL, 0, 0));
            progressUntil(() -> delivered == 1, 5000, "other endpoint", a, b);
        }
    }

    @Test
    void shouldRejectAPeerWithADifferentJobSecretAndAcceptTheSameOne() {
        final Interface a = open(Config.global().with("JOB_SECRET", "alpha"));
        final Interface b = open(Config.global().with("JOB_SECRET", "beta"));
        final Interface c = open(Config.global().with("JOB_SECRET", "alpha"));
        assertEquals(8, b.interfaceAddress().length, "no token in the address when a job secret is set");
        final Endpoint bad = a.connect(b.deviceAddress(), b.interfaceAddress());
        assertEquals(Status.OK, bad.amShort(1, 0, MemorySegment.NULL, 0, 0));
        progressUntil(() -> !errors.isEmpty(), 5000, "rejection", a, b);
        assertEquals(Status.CONNECTION_RESET, errors.get(0));
        assertEquals(0, delivered);
        assertEquals(1, ((TcpInterface) b).rejectedConnections());
        assertStillServes(a, c);
    }

    @Test
    void shouldCompleteEverythingOutstandingWhenThePeerCloses() {
        final Interface a = open();
        final UctWorker wb = new UctWorker();
        final Interface b = TcpTestSupport.open(wb);
        final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
        final MemoryHandle mh = md.allocate(4096);
        toClose.add(() -> md.deregister(mh));
        final RemoteKey key = md.unpackRkey(md.packRkey(mh));
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final MemorySegment buf = arena.allocate(4096);
        final Completion get = new Completion().reset(1);
        final Completion put = new Completion().reset(1);
        final Completion flush = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, ep.getZcopy(IoVector.of(buf, 0, 4096), key.base(), key, get));
        assertEquals(Status.IN_PROGRESS, ep.putZcopy(IoVector.of(buf, 0, 4096), key.base(), key, put));
        assertEquals(Status.IN_PROGRESS, ep.flush(Interface.FLUSH_REMOTE, flush));
        TcpTestSupport.progressFor(20, a); // b never progresses: nothing can complete
        assertFalse(get.isDone() || put.isDone() || flush.isDone());
        wb.close(); // the peer goes away
        progressUntil(() -> get.isDone() && put.isDone() && flush.isDone(), 5000, "failure completions", a);
        assertEquals(Status.CONNECTION_RESET, get.status());
        assertEquals(Status.CONNECTION_RESET, put.status());
        assertEquals(Status.CONNECTION_RESET, flush.status());
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
        assertEquals(Status.CONNECTION_RESET, ep.putShort(buf, 0, 8, key.base(), key));
        assertEquals(Status.CONNECTION_RESET, ep.check());
        assertEquals(Status.CONNECTION_RESET, ep.flush(0, null));
        b.close(); // idempotent
        ep.close();
        ep.close();
    }

    @Test
    void shouldDeliverWhatThePeerSentBeforeItClosedWhenOurWriteFailsFirst() {
        // without resuming, the failed write fails the endpoint at once
        final Interface a = open(Config.global().with("FAULT_TIMEOUT", "0"));
        final UctWorker wb = new UctWorker();
        final Interface b = TcpTestSupport.open(wb);
        final int[] atB = {0};
        b.setAmHandler(1, (d, o, l, f) -> {
            atB[0]++;
            return Status.OK;
        });
        final Endpoint ab = a.connect(b.deviceAddress(), b.interfaceAddress());
        final Endpoint ba = b.connect(a.deviceAddress(), a.interfaceAddress());
        assertEquals(Status.OK, ab.amShort(1, 0, MemorySegment.NULL, 0, 0));
        assertEquals(Status.OK, ba.amShort(1, 0, MemorySegment.NULL, 0, 0));
        // and both endpoints settled on their socket (during a switch, sends queue without writing)
        progressUntil(() -> delivered == 1 && atB[0] == 1 && !((TcpEndpoint) ab).move.active()
            && !((TcpEndpoint) ba).move.active(), 5000, "one message each way", a, b);
        // b's last message reaches a's receive queue, then b goes away before a reads it
        assertEquals(Status.OK, ba.amShort(1, 0, MemorySegment.NULL, 0, 0));
        wb.close();
        // a writes before it reads: its write fails on the dead socket (the first may still be taken)
        Status st = Status.OK;
        for (int i = 0; i < 1000 && st == Status.OK; i++) {
            st = ab.amShort(1, 0, MemorySegment.NULL, 0, 0);
            if (st == Status.OK) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }
        assertEquals(Status.CONNECTION_RESET, st, "a write to the closed peer fails");
        progressUntil(() -> delivered == 2 && !errors.isEmpty(), 5000, "the peer's last message and the failure", a);
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
    }

    @Test
    void shouldDeliverThePeersLastMessageThenFailWhenItsInterfaceIsGoneWhileResuming() {
        final Interface a = open(Config.global().with("FAULT_TIMEOUT", "60s"));
        final UctWorker wb = new UctWorker();
        final Interface b = TcpTestSupport.open(wb);
        b.setAmHandler(1, (d, o, l, f) -> Status.OK);
        final Endpoint ab = a.connect(b.deviceAddress(), b.interfaceAddress());
        final Endpoint ba = b.connect(a.deviceAddress(), a.interfaceAddress());
        assertEquals(Status.OK, ab.amShort(1, 0, MemorySegment.NULL, 0, 0));
        assertEquals(Status.OK, ba.amShort(1, 0, MemorySegment.NULL, 0, 0));
        progressUntil(() -> delivered == 1 && !((TcpEndpoint) ab).move.active()
            && !((TcpEndpoint) ba).move.active(), 5000, "one message each way", a, b);
        assertEquals(Status.OK, ba.amShort(1, 0, MemorySegment.NULL, 0, 0));
        wb.close();
        // a's writes are kept for a resume; the reconnect is refused (b's listener is gone), long
        // before the 60 s limit, and b's last message is delivered first
        for (int i = 0; i < 50; i++) {
            final Status st = ab.amShort(1, 0, MemorySegment.NULL, 0, 0);
            assertTrue(st == Status.OK || st == Status.CONNECTION_RESET, st.toString());
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        progressUntil(() -> !errors.isEmpty(), 5000, "the failure", a);
        assertEquals(2, delivered, "the peer's last message");
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
        assertEquals(0, ((TcpInterface) a).connections());
    }

    @Test
    void shouldCancelOutstandingOperationsOnClose() {
        final Interface a = open();
        final Interface b = open();
        final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
        final MemoryHandle mh = md.allocate(64);
        toClose.add(() -> md.deregister(mh));
        final RemoteKey key = md.unpackRkey(md.packRkey(mh));
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        final MemorySegment res = arena.allocate(8);
        final Completion c = new Completion().reset(2);
        assertEquals(Status.IN_PROGRESS, ep.atomic64Fetch(weft.uct.AtomicOp.ADD, 1, res, 0, key.base(), key, c));
        assertEquals(Status.IN_PROGRESS, ep.flush(0, c));
        final Status[] pendingSaw = {null};
        final Endpoint ep2 = a.connect(b.deviceAddress(), b.interfaceAddress());
        assertEquals(Status.BUSY, ep2.pendingAdd(new PendingRequest() {
            @Override
            public Status dispatch() {
                return Status.OK;
            }
        }), "resources are free: BUSY");
        ep.close();
        assertTrue(c.isDone());
        assertEquals(Status.CANCELED, c.status());
        assertEquals(Status.CLOSED, ep.amShort(1, 0, MemorySegment.NULL, 0, 0));
        a.close();
        a.close();
        assertEquals(Status.CLOSED, ep2.amShort(1, 0, MemorySegment.NULL, 0, 0));
        assertEquals(null, pendingSaw[0]);
    }

    @Test
    void shouldWakeABlockedPollerWhenAMessageArrives() throws Exception {
        final Interface a = open();
        final Interface b = open();
        final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        assertEquals(Status.OK, ep.amShort(1, 0, MemorySegment.NULL, 0, 0));
        progressUntil(() -> delivered == 1, 5000, "first message", a, b);
        TcpTestSupport.progressFor(20, a, b);
        assertEquals(Status.OK, b.arm(), "nothing to do: armed");
        final MemorySegment pfd = arena.allocate(8, 8);
        pfd.set(ValueLayout.JAVA_INT, 0, b.eventFd());
        pfd.set(ValueLayout.JAVA_SHORT, 4, (short) LibC.POLLIN);
        final int[] polled = {-99};
        final long[] wokeAt = {0};
        final Thread sleeper = new Thread(() -> {
            polled[0] = LibC.poll(pfd.address(), 1, 10_000);
            wokeAt[0] = System.nanoTime();
        });
        sleeper.start();
        Thread.sleep(200);
        assertTrue(sleeper.isAlive(), "poll returned without an event");
        final long sentAt = System.nanoTime();
        assertEquals(Status.OK, ep.amShort(1, 0, MemorySegment.NULL, 0, 0));
        sleeper.join(5000);
        assertFalse(sleeper.isAlive());
        assertEquals(1, polled[0]);
        assertTrue(wokeAt[0] - sentAt < 1_000_000_000L);
        assertEquals(Status.BUSY, b.arm(), "a message is waiting");
        progressUntil(() -> delivered == 2, 5000, "second message", a, b);
    }

    @Test
    void shouldReleaseEveryDescriptorOnClose() {
        cycle(); // warm up: lazily opened JDK descriptors (entropy source, jar files) stay open
        final int before = TcpTestSupport.fdCount();
        for (int i = 0; i < 3; i++) {
            cycle();
        }
        assertEquals(before, TcpTestSupport.fdCount());
    }

    private void cycle() {
        try (UctWorker w1 = new UctWorker(); UctWorker w2 = new UctWorker()) {
            final Interface a = TcpTestSupport.open(w1);
            final Interface b = TcpTestSupport.open(w2);
            final int[] n = {0};
            b.setAmHandler(1, (d, o, l, f) -> {
                n[0]++;
                return Status.OK;
            });
            final Endpoint e1 = a.connect(b.deviceAddress(), b.interfaceAddress());
            final Endpoint e2 = b.connect(a.deviceAddress(), a.interfaceAddress());
            assertEquals(Status.OK, e1.amShort(1, 0, MemorySegment.NULL, 0, 0));
            assertEquals(Status.OK, e2.check());
            progressUntil(() -> n[0] == 1 && ((TcpInterface) a).serverConnections() == 1, 5000, "traffic", a, b);
            e1.close();
        }
    }
}
