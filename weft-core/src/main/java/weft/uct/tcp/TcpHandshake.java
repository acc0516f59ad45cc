package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * The handshake of a {@link TcpConnection}, both sides: the connector opens the socket and queues
 * its hello ({@link #connect}); the acceptor checks the hello (magic, version, the secret's digest,
 * the sender's address, sharing and resume flags) and answers with its ACCEPT frame ({@link
 * #hello}); the connector checks that ACCEPT frame ({@link #accept}) before it serves the peer
 * anything. Digests are compared in constant time; a failed check closes the socket and counts a
 * refusal. Frame layouts: {@link TcpFrame}. Single threaded (progress).
 */
final class TcpHandshake {
    private static final byte[] NO_DIGEST = new byte[32];

    private TcpHandshake() {
    }

    /** What a peer presents for {@code secret} (the job secret, or an interface's token) in its hello. */
    static byte[] digest(final byte[] secret) {
        return digest(TcpFrame.SECRET_CONTEXT, secret);
    }

    /** SHA-256 of {@code context} then {@code secret}: one digest per use, so one cannot stand for another. */
    static byte[] digest(final String context, final byte[] secret) {
        return new weft.ucs.Sha256().update(context.getBytes(StandardCharsets.US_ASCII)).digest(secret);
    }

    /**
     * Opens a socket to {@code ip:port} for {@code ep} and queues the hello; operations queue
     * behind it until the connection completes.
     */
    static TcpConnection connect(final TcpInterface iface, final TcpEndpoint ep, final int ip, final int port,
                                 final byte[] secretDigest, final byte[] acceptDigest) {
        final int fd = LibC.socket(LibC.AF_INET, LibC.SOCK_STREAM | LibC.SOCK_NONBLOCK | LibC.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new WeftException(Status.NO_RESOURCE, "tcp: socket: " + LibC.strerror(-fd));
        }
        TcpChannel c = null;
        final TcpConnection conn;
        try {
            iface.sockets.configure(fd);
            c = new TcpChannel(iface, null, fd, iface.rxBufSize, iface.txBufSize);
            conn = new TcpConnection(iface, c, ip, port, acceptDigest, secretDigest);
            c.owner = conn;
            final int r;
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment sa = TcpSocketOptions.sockaddr(a, ip, port);
                r = LibC.connect(fd, sa, (int) LibC.SOCKADDR_IN_SIZE);
            }
            if (r < 0 && r != -LibC.EINPROGRESS) {
                throw new WeftException(Status.UNREACHABLE, "tcp: connect to " + TcpAddress.ipString(ip) + ":"
                    + port + ": " + LibC.strerror(-r));
            }
            c.connected = r == 0;
            iface.register(c);
        } catch (final RuntimeException e) {
            if (c != null) {
                c.close();
            } else {
                LibC.close(fd);
            }
            throw e;
        }
        conn.requester = ep;
        conn.hadRequester = true;
        iface.addConnection(conn);
        // the hello is the first thing in the stream; operations queue behind it
        final byte[] own = iface.helloAddress();
        final int len = TcpFrame.HANDSHAKE_FIXED + own.length;
        final int off = c.reserve(len);
        conn.connId = iface.faultTimeoutNs > 0 ? iface.newConnectionId() : 0;
        TcpFrame.hello(c.tx, off, conn.shareOffered ? TcpFrame.HELLO_SHARE : 0, secretDigest, conn.connId, 0, own);
        if (c.commit(off, len) < 0) {
            conn.requester = null; // the endpoint fails itself (deferred) when it sees the closed connection
            conn.closeNow();
            return conn;
        }
        if (conn.connId != 0) {
            c.startLog(iface.replayMax); // requests queue behind the hello: logged from here
        }
        return conn;
    }

    /** Checks the hello (acceptor side); CONT when accepted (continue parsing), else a parse result. */
    static int hello(final TcpConnection conn, final int avail) {
        final TcpChannel c = conn.ch;
        if (avail < TcpFrame.HANDSHAKE_FIXED) {
            c.need(TcpFrame.HANDSHAKE_FIXED);
            return TcpConnection.MORE;
        }
        final long magic = c.rx.get(I64, c.rxHead);
        final int ver = c.rx.get(TcpFrame.I16, c.rxHead + 8) & 0xFFFF;
        final int alen = c.rx.get(TcpFrame.I16, c.rxHead + 10) & 0xFFFF;
        final int flags = c.rx.get(I32, c.rxHead + 12);
        if (magic != TcpFrame.MAGIC || ver != TcpFrame.VERSION || alen > TcpFrame.MAX_ADDR
            || (flags & ~(TcpFrame.HELLO_SHARE | TcpFrame.HELLO_RESUME)) != 0) {
            return conn.reject();
        }
        if (avail < TcpFrame.HANDSHAKE_FIXED + alen) {
            c.need(TcpFrame.HANDSHAKE_FIXED + alen);
            return TcpConnection.MORE;
        }
        final byte[] digest = c.rx.asSlice(c.rxHead + 16, 32).toArray(JAVA_BYTE);
        if (!MessageDigest.isEqual(digest, conn.iface.secretDigest)) { // constant time
            return conn.reject();
        }
        TcpAddress.Iface from = null; // optional: without it the socket is not shared
        if (alen > 0) {
            try {
                from = TcpAddress.parseIface(c.rx.asSlice(c.rxHead + TcpFrame.HANDSHAKE_FIXED, alen)
                    .toArray(JAVA_BYTE));
            } catch (final WeftException e) {
                return conn.reject();
            }
        }
        final long id = c.rx.get(I64, c.rxHead + TcpFrame.HELLO_ID);
        final long peerRx = c.rx.get(I64, c.rxHead + TcpFrame.HELLO_RX);
        c.rxHead += TcpFrame.HANDSHAKE_FIXED + alen;
        conn.helloDone = true;
        if (from != null) {
            conn.peerIp = from.ip();
            conn.peerPort = from.port();
        }
        conn.shared = conn.shareOffered && from != null && (flags & TcpFrame.HELLO_SHARE) != 0;
        conn.iface.handshakeDone();
        if ((flags & TcpFrame.HELLO_RESUME) != 0) {
            final int r = TcpResume.resumeHello(conn, id, peerRx);
            if (r != TcpConnection.CONT) {
                return r;
            }
        } else if (conn.peerPort >= 0 && conn.iface.knowsConnection(id, conn.peerIp, conn.peerPort)) {
            // a first hello of a connection already here: the socket the connector gave up during its first
            // handshake, read late; its connector came back on another socket, which carries it all
            conn.closeNow();
            return TcpConnection.DEAD;
        }
        // our proof first: the connector serves nothing of ours before it checked out
        final int off = c.reserve(TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
        TcpFrame.accept(c.tx, off, conn.shared ? TcpFrame.HELLO_SHARE : 0, conn.iface.acceptDigest, 0);
        conn.acceptDone = true;
        if (c.commit(off, TcpFrame.HEADER + TcpFrame.ACCEPT_LEN) < 0) {
            conn.fail(Status.CONNECTION_RESET, true);
            return TcpConnection.DEAD;
        }
        c.markRx(0);
        conn.connId = id;
        if (id != 0 && conn.iface.faultTimeoutNs > 0) {
            c.startLog(conn.iface.replayMax);
        }
        if (conn.shared) {
            conn.iface.sharedHello(conn);
        }
        return conn.closed ? TcpConnection.DEAD : TcpConnection.CONT;
    }

    /**
     * Best effort before an acceptor closes a hello it refused: an ACCEPT frame flagged refused, with a zero
     * digest (the connector fails on it at once instead of taking the closed socket for a fault to ride through).
     */
    static void refuse(final TcpConnection conn) {
        final TcpChannel c = conn.ch;
        final int off = c.reserve(TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
        if (off >= 0 && c.fd >= 0) {
            TcpFrame.accept(c.tx, off, TcpFrame.ACCEPT_REFUSED, NO_DIGEST, 0);
            c.commit(off, TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
        }
    }

    /** The acceptor's ACCEPT frame (connector side). */
    static int accept(final TcpConnection conn, final int avail, final long hdr) {
        final int flags = TcpFrame.flags(hdr);
        if (TcpFrame.length(hdr) != TcpFrame.ACCEPT_LEN || TcpFrame.op(hdr) != 0
            || (flags & ~(TcpFrame.HELLO_SHARE | TcpFrame.ACCEPT_REFUSED)) != 0) {
            return conn.malformed();
        }
        final TcpChannel c = conn.ch;
        if (avail < TcpFrame.HEADER + TcpFrame.ACCEPT_LEN) {
            c.need(TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
            return TcpConnection.MORE;
        }
        final byte[] digest = c.rx.asSlice(c.rxHead + TcpFrame.HEADER, 32).toArray(JAVA_BYTE);
        if (!MessageDigest.isEqual(digest, conn.expectAccept)) {
            return conn.reject(); // the acceptor does not know the secret: serve it nothing
        }
        final long peerRx = c.rx.get(I64, c.rxHead + TcpFrame.HEADER + 32);
        c.rxHead += TcpFrame.HEADER + TcpFrame.ACCEPT_LEN;
        if (conn.resume != null) {
            if ((flags & TcpFrame.ACCEPT_REFUSED) != 0) {
                conn.giveUp("the peer no longer knows the connection, or lost what it had not acknowledged");
                return TcpConnection.DEAD;
            }
            final boolean first = conn.resume.first;
            if (first) {
                accepted(conn, flags); // the first handshake completes on the new socket
            } else {
                c.markRx(conn.resume.announcedRx);
            }
            TcpResume.resumed(conn, peerRx);
            return conn.closed ? TcpConnection.DEAD : TcpConnection.CONT;
        }
        if ((flags & TcpFrame.ACCEPT_REFUSED) != 0) {
            return conn.malformed(); // only an answer to a resume
        }
        accepted(conn, flags);
        return TcpConnection.CONT;
    }

    /** The connector's first ACCEPT frame checked out: the peer's stream starts, the socket may be shared. */
    private static void accepted(final TcpConnection conn, final int flags) {
        conn.ch.markRx(0);
        conn.acceptDone = true;
        conn.shared = conn.shareOffered && (flags & TcpFrame.HELLO_SHARE) != 0;
        final TcpEndpoint ep = conn.requester;
        if (ep != null && ep.conn == conn) {
            ep.accepted();
        }
    }
}
