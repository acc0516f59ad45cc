package weft.uct.tcp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.ucs.sys.LibC;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    /** More than loopback's kernel socket buffers hold (autotuned: up to 4 MiB sent, 6 MiB received). */
    private static final int BIG_GET = 16 << 20;

    /** Either socket of the switch ("new", "old"), broken at either end, reset or shut down. */
    static Stream<Arguments> cells() {
        return Stream.of("new", "old").flatMap(socket -> Stream.of("mover", "peer").flatMap(side ->
            Stream.of(true, false).map(reset -> Arguments.of(socket, side, reset))));
    }

    @ParameterizedTest(name = "{0} socket broken at the {1}, reset={2}")
    @MethodSource("cells")
    void aSocketBrokenMidSwitchComesBackAndTheSwitchCompletesWithEverythingOnce(final String socket,
                                                                                final String side,
                                                                                final boolean reset) {
        final Pair p = new Pair(Config.global(), 3);
        p.progressUntilHolding();
        final TcpFetchAdds f = new TcpFetchAdds(FETCHES, arena, toClose);
        // more from both sides: the mover's are held on the new socket, the peer's go on its own socket
        p.toB.send(5, MESSAGES);
        p.toA.send(5, MESSAGES);
        for (int i = 0; i < 5; i++) {
            f.issue(p.moving);
        }
        assertTrue(p.moving.move.holding(), "still mid-switch");
        p.breakSocket(socket, side, reset);
        p.finish(f, null);
    }

    /**
     * Phase 1 of the switch: the mover waits for a large get's reply on its old socket before it may hold new
     * requests on the new one, while either socket breaks. The get (more than the kernel's socket buffers hold)
     * is issued behind the mover's hello; the peer progresses alone until its hello on the new socket is out,
     * then the mover alone until its switch begins: with the peer idle, the reply cannot have arrived.
     */
    @ParameterizedTest(name = "phase 1: {0} socket broken at the {1}, reset={2}")
    @MethodSource("cells")
    void aSocketBrokenWhileALargeGetHoldsTheSwitchComesBackAndTheSwitchCompletes(final String socket,
                                                                                final String side,
                                                                                final boolean reset) {
        final Pair p = new Pair(Config.global(), 3);
        final boolean aMoves = port(p.a) > port(p.b); // the larger address moves to the smaller's socket
        final TcpEndpoint moving = aMoves ? p.ab : p.ba;
        final TcpEndpoint toMover = aMoves ? p.ba : p.ab;
        final TcpInterface mover = aMoves ? p.a : p.b;
        final TcpInterface peer = aMoves ? p.b : p.a;
        final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
        final MemoryHandle source = md.allocate(BIG_GET);
        toClose.add(() -> md.deregister(source));
        for (long i = 0; i < BIG_GET; i += 8) {
            source.segment().set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
        }
        final RemoteKey key = md.unpackRkey(md.packRkey(source));
        final MemorySegment dst = arena.allocate(BIG_GET, 8);
        final Completion get = new Completion().reset(1);
        assertEquals(Status.IN_PROGRESS, moving.getZcopy(IoVector.of(dst, 0, BIG_GET), key.base(), key, get));
        progressUntil(() -> toMover.conn.ch.connected && toMover.conn.ch.bytesWritten > 0, WAIT_MS,
            "the peer's hello on the new socket", peer);
        progressUntil(() -> moving.move.active(), WAIT_MS, "the mover's switch to begin", mover);
        assertFalse(get.isDone(), "the peer was idle: the get's reply is not all in");
        assertTrue(moving.move.active() && !moving.move.holding(), "phase 1: waiting for the get's reply");
        p.adopt(mover, peer, moving);
        final TcpFetchAdds f = new TcpFetchAdds(FETCHES, arena, toClose);
        p.breakSocket(socket, side, reset);
        p.finish(f, get);
        assertEquals(Status.OK, get.status(), "the large get");
        assertEquals(-1, dst.mismatch(source.segment().asSlice(0, BIG_GET)), "the large get's bytes");
    }

    private static int port(final TcpInterface i) {
        return TcpAddress.parseIface(i.interfaceAddress()).port();
    }

    /** Two interfaces that connected to each other at once, each sending a message stream to the other. */
    private final class Pair {
        final TcpInterface a;
        final TcpInterface b;
        final TcpAmStream.Receiver atA = new TcpAmStream.Receiver();
        final TcpAmStream.Receiver atB = new TcpAmStream.Receiver();
        final TcpEndpoint ab;
        final TcpEndpoint ba;
        final TcpAmStream.Sender toB;
        final TcpAmStream.Sender toA;
        TcpInterface mover;
        TcpInterface peer;
        TcpEndpoint moving;

        /** Connects both ways and queues up to {@code backlog} messages each way behind the hellos. */
        Pair(final Config c, final int backlog) {
            a = open(c);
            b = open(c);
            a.setAmHandler(TcpAmStream.AM_ID, (d, o, l, f) -> atA.onReceive(d, o, l));
            b.setAmHandler(TcpAmStream.AM_ID, (d, o, l, f) -> atB.onReceive(d, o, l));
            a.setAmHandler(1, (d, o, l, f) -> Status.OK);
            b.setAmHandler(1, (d, o, l, f) -> Status.OK);
            ab = (TcpEndpoint) a.connect(b.deviceAddress(), b.interfaceAddress());
            ba = (TcpEndpoint) b.connect(a.deviceAddress(), a.interfaceAddress());
            toB = new TcpAmStream.Sender(ab, arena);
            toA = new TcpAmStream.Sender(ba, arena);
            // requests behind each hello: the mover cannot move at once, it switches in two phases
            toB.send(backlog, MESSAGES);
            toA.send(backlog, MESSAGES);
        }

        /** Progresses one side at a time until the mover holds its new requests on the new socket (phase 2). */
        void progressUntilHolding() {
            final int[] turn = {0};
            progressUntil(() -> {
                if (!ab.move.holding() && !ba.move.holding()) {
                    (turn[0]++ % 2 == 0 ? a : b).progress();
                }
                return ab.move.holding() || ba.move.holding();
            }, WAIT_MS, "a switch holding requests on the new socket");
            final boolean aMoves = ab.move.holding();
            adopt(aMoves ? a : b, aMoves ? b : a, aMoves ? ab : ba);
        }

        void adopt(final TcpInterface m, final TcpInterface pe, final TcpEndpoint mv) {
            mover = m;
            peer = pe;
            moving = mv;
        }

        void breakSocket(final String socket, final String side, final boolean reset) {
            final TcpConnection broken = pick(mover, peer, moving, socket, side);
            if (reset) {
                broken.ioFailed(Status.CONNECTION_RESET);
            } else {
                LibC.shutdown(broken.ch.fd, LibC.SHUT_RDWR);
            }
        }

        /**
         * Sends the rest of both streams and of {@code f}'s fetch-adds, then checks: everything arrived once, in
         * order, intact ({@code get}, if any, completed too), no endpoint failed, the switch completed onto one
         * shared socket, and the broken socket came back.
         */
        void finish(final TcpFetchAdds f, final Completion get) {
            while (toB.next < MESSAGES || toA.next < MESSAGES || f.issued < FETCHES) {
                toB.send(4, MESSAGES);
                toA.send(4, MESSAGES);
                f.issue(moving);
                a.progress();
                b.progress();
            }
            progressUntil(() -> atB.next == MESSAGES && atA.next == MESSAGES && f.done()
                && (get == null || get.isDone()), WAIT_MS, "every message and fetch-add", a, b);
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
