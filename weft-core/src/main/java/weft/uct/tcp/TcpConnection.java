package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.MessageDigest;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * One socket to a peer interface and the roles that use it: the server role ({@link
 * TcpServerConnection}: serves the peer's requests) and at most one local requester ({@link
 * TcpEndpoint}: sends requests, receives their replies). The frame type says which role a frame
 * belongs to ({@link TcpFrame#isRequest}); frames are handled in stream order, and a role that
 * streams a large payload straight into memory owns the socket until it is done.
 *
 * <p>One socket per peer pair. Both sides may open a socket at once (both call connect before
 * either progresses: the usual case). Each side offers sharing in its hello / ACCEPT frame; when
 * an interface accepts a shared-capable socket from the peer interface that one of its own
 * endpoints is also connected to, the socket opened by the smaller interface address (ip, port)
 * carries both directions: the side with the larger address moves its endpoint onto the accepted
 * socket (see {@link TcpEndpoint#beginSwitch}); the other side keeps its socket. A connect that
 * finds an accepted shared socket from the target interface uses it at once.
 *
 * <p>Authentication is mutual before a socket carries requests both ways: the connector proves
 * the secret in its hello, the acceptor in its ACCEPT frame (a different hash context); the
 * connector serves no request before that frame checked out.
 *
 * <p>Lifetime: the socket stays open while either side's requester may use it. A requester that
 * leaves a socket the peer may also use sends DETACH; a side with no requester that receives
 * DETACH closes; end of stream fails the local requester (if any) and closes.
 *
 * <p>Single threaded (the interface's progress thread).
 */
final class TcpConnection implements TcpChannel.Owner {
    static final int CONT = -1;
    static final int MORE = 0;
    static final int BLOCKED = 1;
    static final int DEAD = 2;
    static final int STREAM = 3;

    private static final int S_NONE = 0;
    private static final int S_SERVER = 1;
    private static final int S_EP = 2;
    private static final int S_SKIP = 3;

    final TcpInterface iface;
    final TcpChannel ch;
    /** This side opened the socket. */
    final boolean connector;
    final TcpServerConnection server;
    final long createdNs;
    /** The peer interface: the connect target, or the address in the hello; port -1 until known. */
    int peerIp;
    int peerPort = -1;
    /** Acceptor: the hello checked out (connector: always). */
    boolean helloDone;
    /** Connector: the ACCEPT frame checked out (acceptor: sent with the hello check). */
    boolean acceptDone;
    /** This side offered to share the socket. */
    final boolean shareOffered;
    /** Both sides agreed: each may be requester and server on this socket. */
    boolean shared;
    private final byte[] expectAccept;
    /** The local requester, or null. */
    TcpEndpoint requester;
    boolean hadRequester;
    boolean detachSent;
    private boolean detachPending;
    boolean detachRecv;
    private int stream;
    private long skipLeft;
    private boolean inRead;
    private boolean closeAfterRead;
    boolean closed;
    /** A write failed; the socket is read to its end at the next progress ({@link #writeFailed}). */
    private boolean draining;

    /** Accepted socket. */
    TcpConnection(final TcpInterface iface, final int fd) {
        this.iface = iface;
        this.connector = false;
        this.ch = new TcpChannel(iface, this, fd, iface.rxBufSize, iface.txBufSize);
        this.ch.connected = true;
        this.server = new TcpServerConnection(this);
        this.createdNs = System.nanoTime();
        this.shareOffered = iface.shareEnabled;
        this.expectAccept = null;
        this.acceptDone = false;
    }

    private TcpConnection(final TcpInterface iface, final TcpChannel c, final int ip, final int port,
                          final byte[] expectAccept) {
        this.iface = iface;
        this.connector = true;
        this.ch = c;
        this.server = new TcpServerConnection(this);
        this.createdNs = System.nanoTime();
        this.peerIp = ip;
        this.peerPort = port;
        this.helloDone = true;
        this.shareOffered = iface.shareEnabled;
        this.expectAccept = expectAccept;
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
            iface.configureSocket(fd);
            c = new TcpChannel(iface, null, fd, iface.rxBufSize, iface.txBufSize);
            conn = new TcpConnection(iface, c, ip, port, acceptDigest);
            c.owner = conn;
            final int r;
            try (Arena a = Arena.ofConfined()) {
                final MemorySegment sa = TcpInterface.sockaddr(a, ip, port);
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
        c.tx.set(I64, off, TcpFrame.MAGIC);
        c.tx.set(TcpFrame.I16, off + 8, (short) TcpFrame.VERSION);
        c.tx.set(TcpFrame.I16, off + 10, (short) own.length);
        c.tx.set(I32, off + 12, conn.shareOffered ? TcpFrame.HELLO_SHARE : 0);
        MemorySegment.copy(secretDigest, 0, c.tx, ValueLayout.JAVA_BYTE, off + 16, 32);
        MemorySegment.copy(own, 0, c.tx, ValueLayout.JAVA_BYTE, off + TcpFrame.HANDSHAKE_FIXED, own.length);
        if (c.commit(off, len) < 0) {
            conn.requester = null; // the endpoint fails itself (deferred) when it sees the closed connection
            conn.closeNow();
        }
        return conn;
    }

    /** True if {@code ip:port}'s requester may attach here now (an accepted, shared, unused socket). */
    boolean attachableFrom(final int ip, final int port) {
        return !connector && !closed && helloDone && shared && requester == null && !hadRequester
            && !detachRecv && peerIp == ip && peerPort == port;
    }

    // ---------------------------------------------------------------- readiness

    @Override
    public void onWritable() {
        if (closed) {
            return;
        }
        if (!ch.connected) {
            final int err = iface.socketError(ch.fd);
            if (err != 0) {
                fail(Status.UNREACHABLE, true);
                return;
            }
            ch.connected = true;
            ch.updateInterest();
        }
        if (ch.flushTx() < 0) {
            writeFailed(true);
            return;
        }
        if (detachPending) {
            sendDetach();
        }
        server.flushAck();
        if (closed) {
            return;
        }
        final TcpEndpoint ep = requester;
        if (ep != null && ep.conn == this) {
            ep.txProgress();
            if (closed) {
                return;
            }
        }
        if (ch.readPaused && ch.txEmpty()) {
            ch.readPaused = false; // replies drained: serve the requests still buffered
            ch.updateInterest();
            onReadable();
        }
    }

    @Override
    public void onReadable() {
        if (closed) {
            return;
        }
        inRead = true;
        try {
            read();
        } finally {
            inRead = false;
        }
        if (closeAfterRead && !closed) {
            closeNow();
            return;
        }
        if (!closed) {
            server.flushAck();
            final TcpEndpoint ep = requester;
            if (!closed && ep != null && ep.conn == this) {
                ep.afterRead();
            }
        }
    }

    private void read() {
        if (ch.rxTail > ch.rxHead && stream == S_NONE && !ch.readPaused) {
            final int p = parse(); // frames left over from a pause
            if (p == DEAD || p == BLOCKED) {
                return;
            }
        }
        for (int i = 0; i < 16; i++) {
            if (stream != S_NONE) {
                final int r = streamIn();
                if (r < 0) {
                    return;
                }
                if (r == 0) {
                    break;
                }
                if (stream != S_NONE) {
                    continue;
                }
            }
            final long n = ch.fill();
            if (n == -LibC.EAGAIN) {
                break;
            }
            if (n <= 0) {
                endOfStream();
                return;
            }
            final int p = parse();
            if (p == DEAD || p == BLOCKED) {
                return;
            }
            if (p != STREAM && n < ch.lastAsk) {
                break; // short read: the socket is drained
            }
        }
    }

    /** The stream ended (or failed): the peer went away. */
    private void endOfStream() {
        if (requester == null) {
            closeNow(); // no local requester to tell: the peer's endpoint went away
            return;
        }
        fail(ch.connected ? Status.CONNECTION_RESET : Status.UNREACHABLE, true);
    }

    /** 1 progress, 0 nothing now, -1 the connection is gone. */
    private int streamIn() {
        final int r;
        if (stream == S_SERVER) {
            r = server.streamIn();
            if (r > 0 && !server.streaming()) {
                stream = S_NONE;
                ch.afterStream();
            }
        } else if (stream == S_EP) {
            final TcpEndpoint ep = requester;
            r = ep.streamIn();
            if (!ep.streaming()) {
                stream = S_NONE;
                ch.afterStream();
            }
            if (r < 0) {
                return closed ? -1 : 1; // the completion closed the endpoint: the socket goes on
            }
        } else {
            final long n = ch.recv(ch.rxBase, Math.min(skipLeft, ch.rxCap));
            if (n == -LibC.EAGAIN) {
                return 0;
            }
            if (n <= 0) {
                endOfStream();
                return -1;
            }
            skipLeft -= n;
            if (skipLeft == 0) {
                stream = S_NONE;
                ch.rxHead = 0;
                ch.rxTail = 0;
            }
            return 1;
        }
        return closed ? -1 : r;
    }

    /** Handles the buffered frames; MORE, BLOCKED, DEAD or STREAM. */
    private int parse() {
        final TcpChannel c = ch;
        while (true) {
            if (closed) {
                return DEAD;
            }
            final int avail = c.rxTail - c.rxHead;
            if (!helloDone) {
                final int h = hello(avail);
                if (h != CONT) {
                    return h;
                }
                continue;
            }
            if (avail < TcpFrame.HEADER) {
                c.need(TcpFrame.HEADER);
                return MORE;
            }
            final long hdr = c.rx.get(I64, c.rxHead);
            final int type = TcpFrame.type(hdr);
            final int r;
            if (connector && !acceptDone) {
                if (type != TcpFrame.ACCEPT) {
                    return malformed();
                }
                r = accept(avail, hdr);
            } else if (TcpFrame.isRequest(type)) {
                if (connector && !shared || detachRecv) {
                    return malformed(); // requests only from an authenticated, sharing, attached peer
                }
                r = server.request(avail, hdr);
                if (r == STREAM) {
                    stream = S_SERVER;
                }
            } else if (type == TcpFrame.DETACH) {
                if (TcpFrame.length(hdr) != 0 || TcpFrame.op(hdr) != 0 || TcpFrame.flags(hdr) != 0 || detachRecv) {
                    return malformed();
                }
                c.rxHead += TcpFrame.HEADER;
                detachRecv = true;
                if (requester == null) {
                    closeNow(); // neither side sends requests any more
                    return DEAD;
                }
                r = CONT;
            } else if (type == TcpFrame.ACCEPT) {
                return malformed(); // only once, only from the acceptor
            } else if (requester != null && requester.conn == this) {
                r = requester.reply(avail, hdr);
                if (r == STREAM) {
                    stream = S_EP;
                }
            } else if (hadRequester) {
                r = skipReply(avail, hdr); // a reply for a requester that left: drop it
            } else {
                return malformed();
            }
            if (r == BLOCKED) {
                if (!ch.readPaused) {
                    ch.readPaused = true;
                    ch.updateInterest();
                }
                return BLOCKED;
            }
            if (r != CONT) {
                return r;
            }
        }
    }

    /** Skips one reply frame whose requester has left (it may be larger than the rx buffer). */
    private int skipReply(final int avail, final long hdr) {
        final int type = TcpFrame.type(hdr);
        final long len = TcpFrame.length(hdr);
        if (type < TcpFrame.PUT_ACK || type > TcpFrame.KEEPALIVE_ACK || len > TcpFrame.MAX_RMA + 64) {
            return malformed();
        }
        final long total = TcpFrame.HEADER + len;
        if (total <= ch.rxCap) {
            if (avail < total) {
                ch.need((int) total);
                return MORE;
            }
            ch.rxHead += (int) total;
            return CONT;
        }
        skipLeft = total - avail;
        ch.rxHead = ch.rxTail;
        stream = S_SKIP;
        return STREAM;
    }

    /** Checks the hello (acceptor side); CONT when accepted (continue parsing), else a parse result. */
    private int hello(final int avail) {
        final TcpChannel c = ch;
        if (avail < TcpFrame.HANDSHAKE_FIXED) {
            c.need(TcpFrame.HANDSHAKE_FIXED);
            return MORE;
        }
        final long magic = c.rx.get(I64, c.rxHead);
        final int ver = c.rx.get(TcpFrame.I16, c.rxHead + 8) & 0xFFFF;
        final int alen = c.rx.get(TcpFrame.I16, c.rxHead + 10) & 0xFFFF;
        final int flags = c.rx.get(I32, c.rxHead + 12);
        if (magic != TcpFrame.MAGIC || ver != TcpFrame.VERSION || alen > TcpFrame.MAX_ADDR
            || (flags & ~TcpFrame.HELLO_SHARE) != 0) {
            return reject();
        }
        if (avail < TcpFrame.HANDSHAKE_FIXED + alen) {
            c.need(TcpFrame.HANDSHAKE_FIXED + alen);
            return MORE;
        }
        final byte[] digest = c.rx.asSlice(c.rxHead + 16, 32).toArray(JAVA_BYTE);
        if (!MessageDigest.isEqual(digest, iface.secretDigest)) { // constant time
            return reject();
        }
        TcpAddress.Iface from = null; // optional: without it the socket is not shared
        if (alen > 0) {
            try {
                from = TcpAddress.parseIface(c.rx.asSlice(c.rxHead + TcpFrame.HANDSHAKE_FIXED, alen)
                    .toArray(JAVA_BYTE));
            } catch (final WeftException e) {
                return reject();
            }
        }
        c.rxHead += TcpFrame.HANDSHAKE_FIXED + alen;
        helloDone = true;
        if (from != null) {
            peerIp = from.ip();
            peerPort = from.port();
        }
        shared = shareOffered && from != null && (flags & TcpFrame.HELLO_SHARE) != 0;
        iface.handshakeDone();
        // our proof first: the connector serves nothing of ours before it checked out
        final int off = c.reserve(TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
        TcpFrame.header(c.tx, off, TcpFrame.ACCEPT, 0, shared ? TcpFrame.HELLO_SHARE : 0, TcpFrame.ACCEPT_LEN);
        MemorySegment.copy(iface.acceptDigest, 0, c.tx, JAVA_BYTE, off + TcpFrame.HEADER, TcpFrame.ACCEPT_LEN);
        acceptDone = true;
        if (c.commit(off, TcpFrame.HEADER + TcpFrame.ACCEPT_LEN) < 0) {
            fail(Status.CONNECTION_RESET, true);
            return DEAD;
        }
        if (shared) {
            iface.sharedHello(this);
        }
        return closed ? DEAD : CONT;
    }

    /** The acceptor's ACCEPT frame (connector side). */
    private int accept(final int avail, final long hdr) {
        if (TcpFrame.length(hdr) != TcpFrame.ACCEPT_LEN || TcpFrame.op(hdr) != 0
            || (TcpFrame.flags(hdr) & ~TcpFrame.HELLO_SHARE) != 0) {
            return malformed();
        }
        if (avail < TcpFrame.HEADER + TcpFrame.ACCEPT_LEN) {
            ch.need(TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
            return MORE;
        }
        final byte[] digest = ch.rx.asSlice(ch.rxHead + TcpFrame.HEADER, TcpFrame.ACCEPT_LEN).toArray(JAVA_BYTE);
        if (!MessageDigest.isEqual(digest, expectAccept)) {
            return reject(); // the acceptor does not know the secret: serve it nothing
        }
        ch.rxHead += TcpFrame.HEADER + TcpFrame.ACCEPT_LEN;
        acceptDone = true;
        shared = shareOffered && (TcpFrame.flags(hdr) & TcpFrame.HELLO_SHARE) != 0;
        final TcpEndpoint ep = requester;
        if (ep != null && ep.conn == this) {
            ep.accepted();
        }
        return CONT;
    }

    private int reject() {
        iface.countRejected();
        fail(Status.CONNECTION_RESET, true);
        return DEAD;
    }

    int malformed() {
        iface.countMalformed();
        fail(Status.CONNECTION_RESET, true);
        return DEAD;
    }

    // ---------------------------------------------------------------- requester attach / detach

    /** The local requester leaves this socket (its endpoint closed, failed alone, or moved). */
    void detach(final TcpEndpoint ep) {
        if (requester != ep) {
            return;
        }
        requester = null;
        if (closed) {
            return;
        }
        if (stream == S_EP) {
            skipLeft = ep.streamRemaining(); // the rest of its get reply is read and dropped
            stream = skipLeft > 0 ? S_SKIP : S_NONE;
        }
        final boolean peerMayUse = connector ? shareOffered && (!acceptDone || shared) : shared;
        if (!peerMayUse || detachRecv) {
            if (inRead) {
                closeAfterRead = true; // never free the rx buffer under the parser
            } else {
                closeNow();
            }
            return;
        }
        sendDetach();
    }

    private void sendDetach() {
        final int off = ch.reserve(TcpFrame.HEADER);
        if (off < 0) {
            detachPending = true; // sent when the socket drains
            return;
        }
        detachPending = false;
        detachSent = true;
        TcpFrame.header(ch.tx, off, TcpFrame.DETACH, 0, 0, 0);
        if (ch.commit(off, TcpFrame.HEADER) < 0) {
            writeFailed(inRead);
        }
    }

    // ---------------------------------------------------------------- failure and close

    /**
     * The socket failed (error, end of stream while in use, malformed frame): closes it, fails
     * the local requester and stops serving. From an operation call, the requester's failure
     * is reported at the next progress.
     */
    void fail(final Status st, final boolean fromProgress) {
        if (closed) {
            return;
        }
        final TcpEndpoint ep = requester;
        requester = null;
        closeNow();
        if (ep != null) {
            if (ep.conn == this) {
                ep.connectionLost(st, fromProgress);
            } else {
                ep.switchTargetLost(this, fromProgress);
            }
        }
    }

    /**
     * A write to the peer failed: the peer is gone, but what it sent before may still wait in our
     * receive queue (its last message before it closed, say), and closing now would drop it. The
     * local requester fails as on any reset; the socket stops writing (what the server still
     * answers is dropped with it) and is read to its end at the next progress, then closed
     * ({@link #finishDrain}). Not while a get reply streams into the requester's memory: that
     * stream belongs to the failed requester, so the socket closes at once.
     */
    void writeFailed(final boolean fromProgress) {
        if (closed || draining) {
            return;
        }
        if (!ch.connected || !helloDone || stream == S_EP) {
            fail(ch.connected ? Status.CONNECTION_RESET : Status.UNREACHABLE, fromProgress);
            return;
        }
        draining = true;
        ch.held = true;
        ch.updateInterest();
        final TcpEndpoint ep = requester;
        requester = null; // the end of the stream then closes the socket without telling anyone
        if (ep != null) {
            if (ep.conn == this) {
                ep.connectionLost(Status.CONNECTION_RESET, fromProgress);
            } else {
                ep.switchTargetLost(this, fromProgress);
            }
        }
        iface.deferDrain(this);
    }

    /** Progress after {@link #writeFailed}: delivers what the peer sent before it went, then closes. */
    void finishDrain() {
        if (closed) {
            return;
        }
        onReadable();
        closeNow();
    }

    /** True once a write failed and the socket is only read to its end. */
    boolean draining() {
        return draining;
    }

    /** Closes the socket and frees its buffers (no notification). Idempotent. */
    void closeNow() {
        if (closed) {
            return;
        }
        closed = true;
        if (!helloDone) {
            iface.handshakeDone();
        }
        ch.close();
        iface.removeConnection(this);
    }

    /** True while this side may serve the peer's requests here. */
    boolean serving() {
        return !closed && helloDone && (!connector || acceptDone && shared) && !detachRecv;
    }
}
