package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;


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
 * socket (see {@link TcpSocketSwitch}); the other side keeps its socket. A connect that
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
 * <p>Resume ({@code WEFT_FAULT_TIMEOUT} &gt; 0): a socket that breaks (reset, end of stream, a failed write, a
 * timeout) between live processes does not end the connection. Each direction is a stream whose bytes after the
 * handshake are counted; the receiver acknowledges what it consumed (ACK frames, every {@link #ACK_EVERY} bytes,
 * at each keepalive, with a put acknowledgement after {@link #RIDE_EVERY} bytes, and when a frame asks: {@link
 * TcpFrame#FLAG_ASK}) and the sender keeps what is not acknowledged yet ({@link TcpReplayLog}: it asks before many
 * small frames would make it grow). The side that opened the socket connects again ({@link TcpResume}) with a
 * resume hello naming the connection (the id from its first hello) and what it consumed; the acceptor moves the
 * new socket into the connection and answers with its own count in the ACCEPT frame; each side then sends again
 * what the other has not consumed and goes on. Bytes received but not parsed when the socket broke are dropped and
 * come again, so every frame is handled exactly once and in order: no message is lost or duplicated, no atomic
 * applied twice. Meanwhile operations queue as on a slow socket. A connector's first handshake resumes too (see
 * {@link TcpResume#FIRST_RX}), as do both sockets of a switch ({@link TcpSocketSwitch}). Not resumed, as before: a
 * connect that fails, or a fault past {@code WEFT_FAULT_TIMEOUT}; a peer that refuses a new connection (its
 * interface or process is gone) fails the connection at once.
 *
 * <p>Single threaded (the interface's progress thread).
 */
final class TcpConnection implements TcpChannel.Owner {
    static final int CONT = -1;
    static final int MORE = 0;
    static final int BLOCKED = 1;
    static final int DEAD = 2;
    static final int STREAM = 3;
    /** Consumed bytes after which the receiver acknowledges (so the sender may forget them). */
    static final long ACK_EVERY = 256 * 1024;
    /** Consumed bytes after which an ACK rides with a put acknowledgement this side sends anyway (same write). */
    static final long RIDE_EVERY = 1024;
    private static final System.Logger LOG = System.getLogger("weft.uct.tcp");

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
    /** Connector: the digest the acceptor's ACCEPT frame must carry. */
    final byte[] expectAccept;
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
    /** As {@link #draining}, then the connection resumes instead of closing. */
    private boolean drainThenResume;
    /** Names the connection for a resume; 0 = never resumed (resuming is off at the connector). */
    long connId;
    /** Connector: the digest its hellos carry. */
    final byte[] helloDigest;
    /** The peer's stream offset this side acknowledged last. */
    private long ackSent;
    /** A frame of the peer asked for an ACK ({@link TcpFrame#FLAG_ASK}): sent after this read batch. */
    private boolean ackAsked;
    /** Non-null while the socket is broken and the connection tries to come back. */
    TcpResume resume;

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
        this.helloDigest = null;
        this.acceptDone = false;
    }

    /** Opened socket (see {@link TcpHandshake#connect}). */
    TcpConnection(final TcpInterface iface, final TcpChannel c, final int ip, final int port,
                          final byte[] expectAccept, final byte[] helloDigest) {
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
        this.helloDigest = helloDigest;
    }

    /** True if {@code ip:port}'s requester may attach here now (an accepted, shared, unused socket). */
    boolean attachableFrom(final int ip, final int port) {
        return !connector && !closed && helloDone && shared && requester == null && !hadRequester
            && !detachRecv && peerIp == ip && peerPort == port;
    }

    // ---------------------------------------------------------------- readiness

    @Override
    public void onWritable() {
        if (closed || ch.fd < 0) {
            return;
        }
        if (!ch.connected) {
            final int err = iface.sockets.error(ch.fd);
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
        server.flushDueAck();
        if (ackAsked) {
            ackIfDue(ACK_EVERY, true); // the peer's ask found no room before
        }
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
        if (closed || ch.fd < 0) {
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
            // a due ACK rides in the same write as the put acks (a bulk put stream pays no extra send)
            final boolean ride = server.ackDue() && ackIfDue(RIDE_EVERY, false);
            server.flushDueAck();
            if (!ride) {
                // queued, not sent: the reply this read prompts carries it, else the next progress call does
                if (ackIfDue(ACK_EVERY, false)) {
                    iface.flushLater(ch);
                }
            } else if (!closed && ch.flushTx() < 0) {
                writeFailed(true);
            }
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
            if (ch.fd < 0) {
                return; // the socket broke: the connection resumes or failed
            }
            if (stream != S_NONE && resume == null) { // (while resuming, the ACCEPT frame comes first)
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
            if (resume != null) {
                ch.nextFillMax = TcpFrame.HEADER + TcpFrame.ACCEPT_LEN - (ch.rxTail - ch.rxHead);
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

    /** The stream ended (or failed): the socket broke, or the peer went away. */
    private void endOfStream() {
        ioFailed(ch.connected ? Status.CONNECTION_RESET : Status.UNREACHABLE);
    }

    /**
     * The socket failed under a read (progress): the connection resumes if it can, else the local
     * requester fails (or, with none, the socket just closes: the peer's endpoint went away).
     */
    void ioFailed(final Status st) {
        if (closed) {
            return;
        }
        if (resume != null) {
            resume.attemptEnded(); // the new socket failed during the resume handshake
            return;
        }
        if (drainThenResume) {
            draining = false; // read to its end before the deferred drain came: resume now
            drainThenResume = false;
        }
        if (resumable()) {
            broken(st);
            return;
        }
        if (requester == null) {
            closeNow();
            return;
        }
        fail(st, true);
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
            r = ep.replies.streamIn();
            if (!ep.replies.streaming()) {
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
                final int h = TcpHandshake.hello(this, avail);
                if (h != CONT) {
                    return h;
                }
                continue;
            }
            if (avail < TcpFrame.HEADER) {
                c.need(TcpFrame.HEADER);
                return MORE;
            }
            long hdr = c.rx.get(I64, c.rxHead);
            if (TcpFrame.asks(hdr)) {
                ackAsked = true; // any frame may ask (answered after this batch); its own flags follow
                hdr = TcpFrame.withoutAsk(hdr);
            }
            final int type = TcpFrame.type(hdr);
            c.fitFrame(TcpFrame.HEADER + TcpFrame.length(hdr));
            final int r;
            if (connector && (!acceptDone || resume != null)) {
                if (type != TcpFrame.ACCEPT) {
                    return malformed();
                }
                r = TcpHandshake.accept(this, avail, hdr);
            } else if (type == TcpFrame.ACK) {
                r = ack(avail, hdr);
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
                    finalDetach(); // the peer may not know that we have no requester: it must not resume
                    closeNow(); // neither side sends requests any more
                    return DEAD;
                }
                r = CONT;
            } else if (type == TcpFrame.ACCEPT) {
                return malformed(); // only once, only from the acceptor
            } else if (requester != null && requester.conn == this) {
                r = requester.replies.reply(avail, hdr);
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

    int reject() {
        iface.countRejected();
        if (!helloDone) {
            TcpHandshake.refuse(this); // the connector fails rather than tries again
        }
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
        if (ch.log != null && ep.putsOutstanding()) {
            ch.log.forget(); // the log refers to put payloads whose owner may now free them
        }
        if (closed) {
            return;
        }
        if (stream == S_EP) {
            skipLeft = ep.replies.streamRemaining(); // the rest of its get reply is read and dropped
            stream = skipLeft > 0 ? S_SKIP : S_NONE;
        }
        final boolean peerMayUse = connector ? shareOffered && (!acceptDone || shared) : shared;
        if (!peerMayUse || detachRecv) {
            finalDetach(); // a deliberate close: the peer must not take it for a fault and resume
            if (inRead) {
                closeAfterRead = true; // never free the rx buffer under the parser
            } else {
                closeNow();
            }
            return;
        }
        sendDetach();
    }

    /** Best effort DETACH before this side closes the socket on purpose (nothing if already sent). */
    private void finalDetach() {
        if (detachSent || connId == 0 || resume != null || !acceptDone || ch.fd < 0) {
            return;
        }
        final int off = ch.reserve(TcpFrame.HEADER);
        if (off >= 0) {
            detachSent = true;
            TcpFrame.header(ch.tx, off, TcpFrame.DETACH, 0, 0, 0);
            ch.commit(off, TcpFrame.HEADER);
            ch.flushTx(); // the socket closes next: whatever does not leave now is dropped, as before
        }
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
                ep.move.targetLost(this, fromProgress);
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
        if (closed || draining || resume != null) {
            return;
        }
        if (resumable()) {
            // read what the peer sent first (its last message, if it is gone), then resume
            draining = true;
            drainThenResume = true;
            ch.held = true;
            ch.updateInterest();
            iface.deferDrain(this);
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
                ep.move.targetLost(this, fromProgress);
            }
        }
        iface.deferDrain(this);
    }

    /** Progress after {@link #writeFailed}: delivers what the peer sent before it went, then closes. */
    void finishDrain() {
        if (closed || resume != null) {
            return; // the socket broke meanwhile: the connection resumes
        }
        if (drainThenResume) {
            draining = false; // reads may break the socket now: it then resumes
            drainThenResume = false;
            onReadable();
            if (!closed && resume == null) {
                if (resumable()) {
                    broken(Status.CONNECTION_RESET);
                } else {
                    fail(Status.CONNECTION_RESET, true);
                }
            }
            return;
        }
        onReadable();
        closeNow();
    }


    /** Closes the socket and frees its buffers (no notification). Idempotent. */
    void closeNow() {
        if (closed) {
            return;
        }
        closed = true;
        if (resume != null) {
            resume.closeAttempt();
            resume = null;
            iface.removeResuming(this);
        }
        if (!helloDone) {
            iface.handshakeDone();
        } else if (!connector && connId != 0) {
            iface.retire(connId); // a connector coming back with it must not start it afresh
        }
        ch.close();
        iface.removeConnection(this);
    }

    // ---------------------------------------------------------------- acknowledgements and resume

    /** An ACK frame: the peer consumed our stream up to the offset it names. */
    private int ack(final int avail, final long hdr) {
        if (TcpFrame.length(hdr) != TcpFrame.ACK_LEN || TcpFrame.op(hdr) != 0 || TcpFrame.flags(hdr) != 0) {
            return malformed();
        }
        if (avail < TcpFrame.HEADER + TcpFrame.ACK_LEN) {
            ch.need(TcpFrame.HEADER + TcpFrame.ACK_LEN);
            return MORE;
        }
        final long off = ch.rx.get(I64, ch.rxHead + TcpFrame.HEADER);
        ch.rxHead += TcpFrame.HEADER + TcpFrame.ACK_LEN;
        if (off < 0 || ch.txOrigin + off > ch.bytesWritten) {
            return malformed(); // acknowledges bytes never sent
        }
        if (ch.log != null) {
            ch.log.ack(ch.txOrigin + off);
        }
        return CONT;
    }

    /**
     * Acknowledges what this side consumed when at least {@code every} bytes (one, if the peer asked) are
     * unacknowledged: sent at once, or ({@code send} false) queued for the caller's next write.
     *
     * @return true if an ACK was queued or sent
     */
    boolean ackIfDue(final long every, final boolean send) {
        if (connId == 0 || resume != null || !acceptDone || closed) {
            return false;
        }
        final long c = ch.consumed();
        if (c - ackSent < (ackAsked ? 1 : every)) {
            ackAsked = false; // (asked: an ACK sent meanwhile covers what this side consumed)
            return false;
        }
        final int off = ch.reserve(TcpFrame.HEADER + TcpFrame.ACK_LEN);
        if (off < 0) {
            return false; // the next read or keepalive tries again
        }
        TcpFrame.header(ch.tx, off, TcpFrame.ACK, 0, 0, TcpFrame.ACK_LEN);
        ch.tx.set(I64, off + TcpFrame.HEADER, c);
        ackSent = c;
        ackAsked = false;
        iface.counters().increment(Counter.STREAM_ACKS);
        if (!send) {
            ch.queue(off, TcpFrame.HEADER + TcpFrame.ACK_LEN);
        } else if (ch.commit(off, TcpFrame.HEADER + TcpFrame.ACK_LEN) < 0) {
            writeFailed(true);
        }
        return true;
    }

    /** True if a broken socket would be replaced rather than fail the connection. */
    boolean resumable() {
        if (connId == 0 || ch.log == null || closed || draining || !helloDone || iface.isClosed()) {
            return false;
        }
        if (!acceptDone && !ch.connected) {
            return false; // a connect that failed: the peer was never reached (its failure is the answer)
        }
        final TcpEndpoint ep = requester;
        if (ep != null) {
            return ep.conn == this || ep.move.movingTo(this); // either socket of a switch comes back
        }
        // the peer's requester may still use it (a connector's first handshake: if the peer accepts sharing)
        return connector ? (acceptDone ? shared : shareOffered) && !detachRecv : !detachRecv;
    }

    /**
     * A resume hello names this connection while its socket still looks alive here (acceptor): the
     * connector saw the socket break first. A drain after a failed write is moot (the peer is alive: what
     * it sent comes again on the new socket).
     *
     * @return false if the connection cannot come back
     */
    boolean brokenByPeer() {
        if (drainThenResume) {
            draining = false;
            drainThenResume = false;
            iface.cancelDrain(this);
        }
        if (!resumable()) {
            return false;
        }
        broken(Status.CONNECTION_RESET);
        return true;
    }

    /** The socket broke: closes it and starts resuming (progress or a deferred drain). */
    void broken(final Status cause) {
        resume = new TcpResume(this, cause);
        ch.dropSocket();
        if (!acceptDone) {
            ch.dropUnwrittenHello(); // the new socket starts with a resume hello of its own
        }
        iface.addResuming(this);
        // DEBUG: at a job's end every peer's sockets break as PEs exit; what matters is logged when a connection
        // resumes (INFO) or fails for a reason other than its peer being gone (WARNING)
        LOG.log(System.Logger.Level.DEBUG, "tcp: connection {0} {1}:{2} broke ({3}); {4} for up to {5} ms",
            connector ? "to" : "from", TcpAddress.ipString(peerIp), String.valueOf(peerPort), cause,
            connector ? "reconnecting" : "waiting for the peer", String.valueOf(iface.faultTimeoutNs / 1_000_000L));
    }

    /** Progress while broken. */
    void serviceResume(final long now) {
        if (resume != null) {
            resume.service(now);
        }
    }

    /** The connection cannot come back: fails it as a socket error always did. */
    void giveUp(final String why) {
        giveUp(why, System.Logger.Level.WARNING);
    }

    /**
     * The connection cannot come back, logged at {@code level}: DEBUG when the peer's process or interface is
     * gone (normal at a job's end; its endpoints report the failure to whoever uses them).
     */
    void giveUp(final String why, final System.Logger.Level level) {
        final Status st = resume != null ? resume.cause : Status.CONNECTION_RESET;
        LOG.log(level, "tcp: connection {0} {1}:{2} failed ({3}): {4}",
            connector ? "to" : "from", TcpAddress.ipString(peerIp), String.valueOf(peerPort), st, why);
        fail(st, true);
    }

    /** True while the socket is broken and the connection tries to come back. */
    boolean isBroken() {
        return resume != null;
    }

    /** True while this side may serve the peer's requests here. */
    boolean serving() {
        return !closed && helloDone && (!connector || acceptDone && shared) && !detachRecv;
    }
}
