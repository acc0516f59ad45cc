package weft.uct.tcp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.sys.LibC;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * A socket that breaks in the middle of a switch to the peer's socket ({@link TcpSocketSwitch}: both sides
 * connected at once, the endpoint of the larger address moves to the socket the peer opened): either of the
 * two sockets, broken at the mover or at the peer, reset (in-flight bytes lost) or shut down, while the
 * mover's new requests are held on the new socket. The broken socket comes back, the switch completes, and
 * every message both ways and every fetch-add arrives exactly once and in order.
 */
@Timeout(120)
class TcpSwitchFaultTest extends TcpInterfaceFixture {
    private static final long WAIT_MS = 20_000;
    private static final int MESSAGES = 600;
    private static final int FETCHES = 100;

    @ParameterizedTest(name = "{0} socket broken at the {1}, reset={2}")
    @CsvSource({
        "new, mover, true", "new, mover, false", "new, peer, true", "new, peer, false",
        "old, mover, true", "old, mover, false", "old, peer, true", "old, peer, false"})
    void aSocketBrokenMidSwitchComesBackAndTheSwitchCompletesWithEverythingOnce(final String socket,
                                                                                final String side,
                                                                                final boolean reset) {
        final TcpInterface a = open(Config.global());
        final TcpInterface b = open(Config.global());
        final TcpAmStream.Receiver atA = new TcpAmStream.Receiver();
        final TcpAmStream.Receiver atB = new TcpAmStream.Receiver();
        a.setAmHandler(TcpAmStream.AM_ID, (d, o, l, f) -> atA.onReceive(d, o, l));
        b.setAmHandler(TcpAmStream.AM_ID, (d, o, l, f) -> atB.onReceive(d, o, l));
        a.setAmHandler(1, (d, o, l, f) -> Status.OK);
        b.setAmHandler(1, (d, o, l, f) -> Status.OK);
        final TcpEndpoint ab = (TcpEndpoint) a.connect(b.deviceAddress(), b.interfaceAddress());
        final TcpEndpoint ba = (TcpEndpoint) b.connect(a.deviceAddress(), a.interfaceAddress());
        final TcpAmStream.Sender toB = new TcpAmStream.Sender(ab, arena);
        final TcpAmStream.Sender toA = new TcpAmStream.Sender(ba, arena);
        // requests behind each hello: the mover cannot move at once, it switches in two phases
        toB.send(3, MESSAGES);
        toA.send(3, MESSAGES);
        // one side's progress at a time, until the mover holds its new requests on the new socket
        final int[] turn = {0};
        progressUntil(() -> {
            if (!ab.move.holding() && !ba.move.holding()) {
                (turn[0]++ % 2 == 0 ? a : b).progress();
            }
            return ab.move.holding() || ba.move.holding();
        }, WAIT_MS, "a switch holding requests on the new socket");
        final boolean aMoves = ab.move.holding();
        final TcpInterface mover = aMoves ? a : b;
        final TcpInterface peer = aMoves ? b : a;
        final TcpEndpoint moving = aMoves ? ab : ba;
        final TcpFetchAdds f = new TcpFetchAdds(FETCHES, arena, toClose);
        // more from both sides: the mover's are held on the new socket, the peer's go on its own socket
        toB.send(5, MESSAGES);
        toA.send(5, MESSAGES);
        for (int i = 0; i < 5; i++) {
            f.issue(moving);
        }
        assertTrue(moving.move.holding(), "still mid-switch");
        final TcpConnection broken = pick(mover, peer, moving, socket, side);
        if (reset) {
            broken.ioFailed(Status.CONNECTION_RESET);
        } else {
            LibC.shutdown(broken.ch.fd, LibC.SHUT_RDWR);
        }
        while (toB.next < MESSAGES || toA.next < MESSAGES || f.issued < FETCHES) {
            toB.send(4, MESSAGES);
            toA.send(4, MESSAGES);
            f.issue(moving);
            a.progress();
            b.progress();
        }
        progressUntil(() -> atB.next == MESSAGES && atA.next == MESSAGES && f.done(), WAIT_MS,
            "every message and fetch-add", a, b);
        final Completion flush = new Completion().reset(1);
        assertEquals(Status.OK, TcpTestSupport.await(flush, moving.flush(Interface.FLUSH_REMOTE, flush), a, b));
        assertEquals(List.of(), atA.problems);
        assertEquals(List.of(), atB.problems);
        f.check();
        assertEquals(List.of(), errors, "no endpoint failed");
        progressUntil(() -> !moving.move.active() && a.connections() == 1 && b.connections() == 1
            && a.brokenConnections() + b.brokenConnections() == 0, WAIT_MS, "one shared socket", a, b);
        assertEquals(1, a.sharedSwitches() + b.sharedSwitches(), "the switch completed");
        assertTrue(a.resumes() + b.resumes() >= 1, "the broken socket came back");
        final Endpoint[] both = {ab, ba};
        for (final Endpoint ep : both) {
            assertEquals(Status.OK, ep.amShort(1, 0, MemorySegment.NULL, 0, 0));
        }
    }

    /**
     * The socket to break: "new" is the one the mover moves to (accepted by the mover, opened by the peer),
     * "old" the one the mover opened; at the "mover" or at the "peer" end.
     */
    private static TcpConnection pick(final TcpInterface mover, final TcpInterface peer, final TcpEndpoint moving,
                                      final String socket, final String side) {
        final boolean moverOpened = socket.equals("old");
        final TcpInterface at = side.equals("mover") ? mover : peer;
        // the mover opened the old socket: the mover's end is its connector, the peer's end accepted it
        final boolean connectorEnd = side.equals("mover") == moverOpened;
        TcpConnection found = null;
        for (final TcpConnection c : at.connectionsForTest()) {
            if (c.connector == connectorEnd) {
                assertEquals(null, found, "one socket each way");
                found = c;
            }
        }
        assertTrue(found != null && found.ch.fd >= 0, "the " + socket + " socket at the " + side);
        if (moverOpened && side.equals("mover")) {
            assertEquals(moving.conn, found);
        }
        return found;
    }
}
