package weft.uct.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * A socket that breaks during a connection's first handshake, at a chosen protocol point (each side is
 * progressed alone up to it): the connector comes back with its connection id, resumed when the acceptor
 * had taken its hello and as a fresh connection when it had not, and every message, put and fetch-add sent
 * behind the hello arrives exactly once and in order.
 */
@Timeout(120)
class TcpHandshakeFaultTest extends TcpInterfaceFixture {
    private static final long WAIT_MS = 20_000;
    private static final int MESSAGES = 600;
    private static final int FETCHES = 200;

    private TcpInterface a;
    private TcpInterface b;
    private Endpoint ep;
    private TcpConnection conn;
    private TcpAmStream.Sender s;
    private TcpFetchAdds f;
    private final TcpAmStream.Receiver atB = new TcpAmStream.Receiver();
    private final TcpAmStream.Receiver atA = new TcpAmStream.Receiver();

    private void open2() {
        open2(Config.global());
    }

    private void open2(final Config c) {
        a = open(c);
        b = open(c);
        b.setAmHandler(TcpAmStream.AM_ID, (d, o, l, f) -> atB.onReceive(d, o, l));
        a.setAmHandler(TcpAmStream.AM_ID, (d, o, l, f) -> atA.onReceive(d, o, l));
    }

    private static void until(final java.util.function.BooleanSupplier cond, final String what,
                              final Interface... ifaces) {
        progressUntil(cond, WAIT_MS, what, ifaces);
    }

    /** b's one accepted connection. */
    private TcpConnection accepted() {
        final List<TcpConnection> cs = b.connectionsForTest();
        assertEquals(1, cs.size(), "b's connections");
        assertFalse(cs.get(0).connector);
        return cs.get(0);
    }

    /**
     * a connects to b and queues the first messages and fetch-adds behind its hello, progressed alone (nothing
     * is answered) until its connect completed and, if {@code written}, all of it went into the socket.
     */
    private void connectAndQueue(final boolean written) {
        open2();
        ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        conn = ((TcpEndpoint) ep).conn;
        s = new TcpAmStream.Sender(ep, arena);
        f = new TcpFetchAdds(FETCHES, arena, toClose);
        for (int i = 0; i < 5; i++) {
            while (!s.trySend()) {
                a.progress();
            }
            while (!f.issue(ep)) {
                a.progress();
            }
        }
        until(() -> conn.ch.connected && (!written || conn.ch.txEmpty()), "a's connect", a);
    }

    /** Sends the rest of the stream and the fetch-adds while both progress, then checks that all came once. */
    private void finish() {
        while (s.next < MESSAGES || f.issued < FETCHES) {
            s.send(4, MESSAGES);
            f.issue(ep);
            a.progress();
            b.progress();
        }
        until(() -> atB.next == MESSAGES && f.done(), "every message and fetch-add", a, b);
        final Completion flush = new Completion().reset(1);
        assertEquals(Status.OK, TcpTestSupport.await(flush, ep.flush(Interface.FLUSH_REMOTE, flush), a, b));
        assertEquals(List.of(), atB.problems);
        f.check();
        assertEquals(List.of(), errors, "no endpoint failed");
        assertEquals(1, a.connections());
        assertEquals(1, b.connections());
        assertEquals(0, a.brokenConnections() + b.brokenConnections());
        assertFalse(conn.closed);
        assertTrue(conn.acceptDone);
    }

    @Test
    void aResetBeforeTheAcceptorReadTheHelloComesBackAsAFreshConnection() {
        connectAndQueue(false);
        // b accepts the socket and no more: its hello is not parsed (the next progress would)
        until(() -> b.connections() == 1, "b's accept", b);
        assertFalse(accepted().helloDone);
        assertEquals(1, b.breakSocketsForTest(true)); // closed unread: a sees a reset
        finish();
        assertEquals(1, a.resumes(), "a came back once");
    }

    @Test
    void aResetAfterTheAcceptorTookTheHelloButBeforeTheConnectorReadItsAnswerResumes() {
        connectAndQueue(true);
        // b takes the hello and the first requests, and answers; a does not read the answer
        until(() -> atB.next > 0 && b.serverConnections() == 1, "b's first message", b);
        // b's endpoint shares the accepted socket: its messages follow its ACCEPT frame, unread by a
        final Endpoint back = b.connect(a.deviceAddress(), a.interfaceAddress());
        assertEquals(1, b.connections(), "b's endpoint uses a's socket");
        final TcpAmStream.Sender sb = new TcpAmStream.Sender(back, arena);
        sb.send(5, MESSAGES);
        assertFalse(conn.acceptDone);
        assertEquals(1, a.breakSocketsForTest(true)); // a's socket closed with b's answer unread
        while (sb.next < MESSAGES) {
            sb.send(4, MESSAGES);
            a.progress();
            b.progress();
        }
        finish();
        until(() -> atA.next == MESSAGES, "every message from b", a, b);
        assertEquals(List.of(), atA.problems);
        assertEquals(1, a.resumes(), "a came back once");
        assertEquals(1, b.resumes(), "b took it back once");
    }

    @Test
    void aConnectorThatComesBackWhileItsOldSocketStillHoldsTheHelloGetsEachMessageOnce() {
        connectAndQueue(true);
        // a takes its socket for broken (b never ran): the old socket, hello and requests in it, ends
        // with a FIN; a's resume hello comes on a second socket; b takes both in whatever order
        conn.ioFailed(Status.CONNECTION_RESET);
        assertTrue(conn.isBroken());
        until(() -> conn.resume == null || conn.resume.phase == TcpResume.HELLO, "a's resume hello", a);
        finish();
        assertTrue(a.resumes() >= 1, "a came back");
    }

    @Test
    void aPeerThatClosesTheResumeHelloUnansweredFailsTheFirstHandshakeAfterOneMoreTry() throws Exception {
        open2();
        try (ServerSocket fake = new ServerSocket()) {
            fake.bind(new InetSocketAddress("127.0.0.1", 0));
            fake.setSoTimeout((int) WAIT_MS);
            ep = a.connect(TcpAddress.device(0x7F000001), TcpAddress.iface(0x7F000001, fake.getLocalPort(), new byte[16]));
            conn = ((TcpEndpoint) ep).conn;
            assertEquals(Status.OK, ep.amShort(TcpAmStream.AM_ID, 0, MemorySegment.NULL, 0, 0));
            until(() -> conn.ch.connected, "a's connect", a);
            final ByteBuffer first;
            try (Socket s1 = fake.accept()) {
                first = readHello(s1);
                assertEquals(0, first.getInt(12) & TcpFrame.HELLO_RESUME);
            } // closed unanswered, as an acceptor closes a hello it refuses
            until(() -> conn.resume != null && conn.resume.phase == TcpResume.HELLO || !errors.isEmpty(),
                "a's resume hello", a);
            assertEquals(List.of(), errors, "the first socket's end is ridden through");
            try (Socket s2 = fake.accept()) {
                final ByteBuffer again = readHello(s2);
                assertEquals(TcpFrame.HELLO_RESUME, again.getInt(12) & TcpFrame.HELLO_RESUME);
                assertEquals(first.getLong(TcpFrame.HELLO_ID), again.getLong(TcpFrame.HELLO_ID), "its connection id");
                assertEquals(TcpResume.FIRST_RX, again.getLong(TcpFrame.HELLO_RX), "it never had the ACCEPT frame");
            } // closed unanswered again: a gives up, without a third try
            until(() -> !errors.isEmpty(), "a's failure", a);
            assertEquals(List.of(Status.CONNECTION_RESET), errors);
            assertTrue(conn.closed);
            assertEquals(0, a.connections() + a.brokenConnections());
            fake.setSoTimeout(1);
            assertThrows(SocketTimeoutException.class, fake::accept, "no third try");
        }
    }

    @Test
    void aFirstHandshakeThatCannotComeBackFailsAtTheLimitAndNothingIsLeft() {
        open2(Config.global().with("FAULT_TIMEOUT", "300ms"));
        ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        conn = ((TcpEndpoint) ep).conn;
        assertEquals(Status.OK, ep.amShort(TcpAmStream.AM_ID, 0, MemorySegment.NULL, 0, 0));
        until(() -> conn.ch.connected, "a's connect", a);
        until(() -> b.connections() == 1, "b's accept", b);
        assertEquals(1, b.breakSocketsForTest(true));
        // b is not progressed: a's resume hellos get no answer, for longer than the limit
        until(() -> !errors.isEmpty(), "a's failure", a);
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
        assertEquals(Status.CONNECTION_RESET, ep.amShort(TcpAmStream.AM_ID, 1, MemorySegment.NULL, 0, 0));
        assertEquals(0, a.connections() + a.brokenConnections());
        // b then reads what a left in its backlog: whatever it took up, it lets go within its own limit
        until(() -> b.connections() == 0 && b.brokenConnections() == 0, "b to let go", b);
        assertEquals(0, atB.next, "nothing delivered");
    }

    /** Reads a hello's fixed part from {@code s} while a progresses. */
    private ByteBuffer readHello(final Socket s) throws Exception {
        s.setSoTimeout(5);
        final byte[] b = new byte[TcpFrame.HANDSHAKE_FIXED];
        int n = 0;
        final long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        while (n < b.length) {
            assertTrue(System.nanoTime() < deadline, "a hello within " + WAIT_MS + " ms");
            a.progress();
            try {
                final int r = s.getInputStream().read(b, n, b.length - n);
                assertTrue(r > 0, "the hello");
                n += r;
            } catch (final SocketTimeoutException e) {
                continue;
            }
        }
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }
}
