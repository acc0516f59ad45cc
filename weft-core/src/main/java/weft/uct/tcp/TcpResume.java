package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One broken connection on its way back: the side that opened the socket connects again to the
 * peer interface (bounded attempts with backoff) and sends a resume hello; the side that accepted
 * it waits for that hello, and meanwhile probes the peer's listening socket, since a refused
 * connection means the peer's interface (or process) is gone and nothing will come back. Both give
 * up after {@code WEFT_FAULT_TIMEOUT} ({@link TcpConnection#giveUp}).
 *
 * <p>Attempts are non-blocking: progress polls the attempt's socket ({@code poll} with no wait,
 * then {@code SO_ERROR}), so a worker keeps serving its other connections during a fault.
 *
 * <p>The acceptor's side of the resume handshake ({@link #resumeHello}) and the step both sides
 * end with ({@link #resumed}) live here too.
 *
 * <p>Single threaded (the interface's progress thread).
 */
final class TcpResume {
    private static final System.Logger LOG = System.getLogger("weft.uct.tcp");
    static final int WAIT = 0;
    static final int CONNECTING = 1;
    static final int HELLO = 2;
    /** A connect or a resume hello not answered by then is abandoned and tried again. */
    private static final long ATTEMPT_TIMEOUT_NS = 500_000_000L;
    private static final long FIRST_BACKOFF_NS = 5_000_000L;
    private static final long MAX_BACKOFF_NS = 200_000_000L;
    private static final int SCRATCH = 16 + 8 + TcpFrame.HANDSHAKE_FIXED + TcpFrame.MAX_ADDR;

    /**
     * The consumed offset of a connector's resume hello when its socket broke before the ACCEPT frame: the
     * acceptor resumes the connection if it took the first hello, and starts it afresh if it never did.
     */
    static final long FIRST_RX = -1L;

    private final TcpConnection conn;
    /** The connector never had the ACCEPT frame: this resume may turn out to be the first handshake. */
    final boolean first;
    final long sinceNs;
    final Status cause;
    int phase = WAIT;
    private int attemptFd = -1;
    private long attemptStartNs;
    private long nextAttemptNs;
    private int attempts;
    /** The consumed offset told to the peer in the resume hello (connector). */
    long announcedRx;
    /** sockaddr_in of the peer interface | pollfd | handshake bytes. */
    private final MemorySegment scratch;

    TcpResume(final TcpConnection conn, final Status cause) {
        this.conn = conn;
        this.cause = cause;
        this.first = !conn.acceptDone;
        this.sinceNs = System.nanoTime();
        // the connector tries at once; the acceptor's first probe waits a little (the connector
        // may be on its way already)
        this.nextAttemptNs = sinceNs + (conn.connector ? 0 : 20_000_000L);
        this.scratch = Arena.ofAuto().allocate(SCRATCH, 8);
        if (conn.peerPort >= 0) {
            scratch.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) LibC.AF_INET);
            scratch.set(LibC.SHORT_BE, 2, (short) conn.peerPort);
            scratch.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4, conn.peerIp);
        }
    }

    /** Progress while broken. */
    void service(final long now) {
        if (now - sinceNs > conn.iface.faultTimeoutNs) {
            conn.giveUp("it did not come back within WEFT_FAULT_TIMEOUT ("
                + conn.iface.faultTimeoutNs / 1_000_000L + " ms)");
            return;
        }
        switch (phase) {
            case WAIT -> {
                if (now >= nextAttemptNs && conn.peerPort >= 0) {
                    start(now);
                }
            }
            case CONNECTING -> poll(now);
            default -> {
                if (now - attemptStartNs > ATTEMPT_TIMEOUT_NS) {
                    retry(now); // the resume hello got no answer
                }
            }
        }
    }

    private void start(final long now) {
        attempts++;
        attemptStartNs = now;
        final int fd = LibC.socket(LibC.AF_INET, LibC.SOCK_STREAM | LibC.SOCK_NONBLOCK | LibC.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            nextAttemptNs = now + backoff();
            return;
        }
        try {
            conn.iface.sockets.configure(fd);
        } catch (final RuntimeException e) {
            LibC.close(fd);
            nextAttemptNs = now + backoff();
            return;
        }
        attemptFd = fd;
        phase = CONNECTING;
        final int r = LibC.connect(fd, scratch.asSlice(0, LibC.SOCKADDR_IN_SIZE), (int) LibC.SOCKADDR_IN_SIZE);
        if (r == 0) {
            connected(now);
        } else if (r != -LibC.EINPROGRESS) {
            failed(now, -r);
        }
    }

    private void poll(final long now) {
        final MemorySegment pfd = scratch.asSlice(16, 8);
        pfd.set(ValueLayout.JAVA_INT, 0, attemptFd);
        pfd.set(ValueLayout.JAVA_SHORT, 4, (short) LibC.POLLOUT);
        pfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
        if (LibC.poll(pfd.address(), 1, 0) <= 0) {
            if (now - attemptStartNs > ATTEMPT_TIMEOUT_NS) {
                retry(now); // a link that is down swallows the SYN
            }
            return;
        }
        final int err = conn.iface.sockets.error(attemptFd);
        if (err == 0) {
            connected(now);
        } else {
            failed(now, err);
        }
    }

    private void failed(final long now, final int errno) {
        if (errno == LibC.ECONNREFUSED) {
            // the peer's host answers, but nothing listens: its interface or its process is gone
            closeAttempt();
            conn.giveUp("the peer refused a new connection (its interface or process is gone)",
                System.Logger.Level.DEBUG);
            return;
        }
        retry(now);
    }

    private void connected(final long now) {
        final int fd = attemptFd;
        attemptFd = -1;
        if (!conn.connector) {
            LibC.close(fd); // a probe: the peer's interface is alive, the connector will come back
            phase = WAIT;
            nextAttemptNs = now + backoff();
            return;
        }
        conn.ch.adoptSocket(fd, true);
        announcedRx = first ? FIRST_RX : conn.ch.consumed();
        final int len = TcpFrame.hello(scratch, 24, TcpFrame.HELLO_RESUME | (conn.shareOffered ? TcpFrame.HELLO_SHARE : 0),
            conn.helloDigest, conn.connId, announcedRx, conn.iface.helloAddress());
        if (!sendAll(fd, 24, len)) {
            retry(now);
            return;
        }
        phase = HELLO;
    }

    /**
     * Sends an ACCEPT frame answering a resume on the adopted socket (acceptor).
     *
     * @return false if the fresh socket did not take it
     */
    boolean sendAccept(final int fd, final int flags, final long rxOffset) {
        TcpFrame.accept(scratch, 24, flags, conn.iface.acceptDigest, rxOffset);
        return sendAll(fd, 24, TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
    }

    /** A fresh socket's send buffer is empty: a handshake goes out whole or the socket is bad. */
    private boolean sendAll(final int fd, final long off, final int len) {
        return LibC.send(fd, scratch.address() + off, len, LibC.MSG_DONTWAIT | LibC.MSG_NOSIGNAL) == len;
    }

    /**
     * The peer closed (or reset) the socket of this attempt before answering it. A connector still in its
     * first handshake gives up: an acceptor closes a hello it refuses (a wrong secret, too many handshakes at
     * once), and the first socket's end may have been that refusal. Any other attempt is tried again.
     */
    void attemptEnded() {
        if (first && phase == HELLO) {
            conn.giveUp("the peer closed the connection during its first handshake");
        } else {
            retry(System.nanoTime());
        }
    }

    /** The attempt failed: the next one after a backoff. */
    void retry(final long now) {
        closeAttempt();
        conn.ch.dropSocket();
        phase = WAIT;
        nextAttemptNs = now + backoff();
    }

    private long backoff() {
        return Math.min(MAX_BACKOFF_NS, FIRST_BACKOFF_NS << Math.min(attempts, 10));
    }

    /** Closes a socket still connecting. Idempotent. */
    void closeAttempt() {
        if (attemptFd >= 0) {
            LibC.close(attemptFd);
            attemptFd = -1;
        }
    }

    /** Attempts so far (for the log line). */
    int attempts() {
        return attempts;
    }

    // ---------------------------------------------------------------- the acceptor's side, and both ends

    /**
     * A resume hello on the new socket of {@code temp} names connection {@code id} (acceptor). A connector
     * that never had the ACCEPT frame ({@link #FIRST_RX}) and whose id is unknown here (this side never took
     * its first hello) starts afresh: {@code temp} handles it as a first hello (CONT). Otherwise the
     * connection adopts the socket, or the resume is refused, and either way {@code temp} is done.
     *
     * @return CONT for a fresh start, else the parse result for {@code temp}
     */
    static int resumeHello(final TcpConnection temp, final long id, final long rx) {
        if (rx == FIRST_RX
            && !(temp.peerPort >= 0 && temp.iface.mayKnowConnection(id, temp.peerIp, temp.peerPort))) {
            return TcpConnection.CONT;
        }
        final long peerRx = rx == FIRST_RX ? 0 : rx; // the connector consumed nothing of ours
        final TcpChannel ch = temp.ch;
        if (ch.rxTail != ch.rxHead) {
            return temp.malformed(); // the connector sends nothing more before our answer
        }
        final TcpInterface iface = temp.iface;
        final TcpConnection old = id != 0 && temp.peerPort >= 0 ? iface.resumeTarget(id, temp.peerIp, temp.peerPort)
            : null;
        if (old == null || !adopt(old, temp, peerRx)) {
            LOG.log(System.Logger.Level.WARNING, "tcp: refused to resume an unknown or lost connection from {0}:{1}",
                TcpAddress.ipString(temp.peerIp), String.valueOf(temp.peerPort));
            final int off = ch.reserve(TcpFrame.HEADER + TcpFrame.ACCEPT_LEN);
            TcpFrame.accept(ch.tx, off, TcpFrame.ACCEPT_REFUSED, iface.acceptDigest, 0);
            ch.commit(off, TcpFrame.HEADER + TcpFrame.ACCEPT_LEN); // best effort: the connector fails either way
        }
        temp.closeNow();
        return TcpConnection.DEAD;
    }

    /**
     * A resume hello for {@code c} came on {@code from}'s new socket: {@code c} takes the socket,
     * answers with what it consumed and sends again what the connector has not.
     *
     * @return false if {@code c} cannot resume (it failed; the caller refuses the hello)
     */
    private static boolean adopt(final TcpConnection c, final TcpConnection from, final long peerRx) {
        if (c.resume == null && !c.brokenByPeer()) {
            return false;
        }
        final TcpResume r = c.resume;
        r.closeAttempt();
        final TcpChannel ch = c.ch;
        if (!ch.log.replayable(ch.txOrigin + peerRx, ch.bytesWritten)) {
            c.giveUp("the peer asks again for bytes that are no longer kept");
            return false;
        }
        final int fd = from.ch.releaseSocket();
        ch.adoptSocket(fd, true);
        if (!r.sendAccept(fd, c.shared ? TcpFrame.HELLO_SHARE : 0, ch.consumed())) {
            r.retry(System.nanoTime()); // the connector tries again
            return true;
        }
        resumed(c, peerRx);
        return true;
    }

    /** {@code c}'s new socket checked out both ways: send again what the peer has not consumed, go on. */
    static void resumed(final TcpConnection c, final long peerRx) {
        final TcpChannel ch = c.ch;
        final TcpEndpoint ep = c.requester;
        if (!ch.startReplay(peerRx, ep != null && ep.move.holds(c))) {
            c.giveUp("the peer asks again for bytes that are no longer kept");
            return;
        }
        final TcpResume r = c.resume;
        c.resume = null;
        c.iface.removeResuming(c);
        c.iface.countResume();
        LOG.log(System.Logger.Level.INFO, "tcp: connection {0} {1}:{2} resumed after {3} ms ({4} attempts); "
                + "sending {5} bytes again", c.connector ? "to" : "from", TcpAddress.ipString(c.peerIp),
            String.valueOf(c.peerPort), String.valueOf((System.nanoTime() - r.sinceNs) / 1_000_000L),
            String.valueOf(r.attempts), String.valueOf(ch.replayBytes()));
        ch.updateInterest();
        if (ch.flushTx() < 0) {
            c.ioFailed(Status.CONNECTION_RESET);
            return;
        }
        if (ep != null && ep.conn == c && c.requester == ep) {
            ep.txProgress(); // what waited for bytes to leave may be due
        }
    }
}
