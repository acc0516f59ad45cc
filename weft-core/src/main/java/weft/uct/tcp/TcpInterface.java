package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;
import weft.ucs.sys.KernelRandom;
import weft.ucs.sys.LibC;
import weft.ucs.wakeup.EventSet;
import weft.uct.AbstractInterface;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Device;
import weft.uct.Endpoint;
import weft.uct.InterfaceAttributes;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A tcp interface: a listening socket on one IPv4 address, the endpoints it created, its
 * connections (opened or accepted: {@link TcpConnection}), and one epoll set over all of their
 * sockets. With {@code TCP_SHARED_SOCKET} (default on) one socket serves both directions of a
 * peer pair (see {@link TcpConnection}). The epoll descriptor is
 * also the wakeup descriptor ({@link #eventFd()}): it is readable exactly when some socket is.
 *
 * <p>Sockets are driven with FFM system calls ({@link LibC}) rather than {@code java.nio}: the
 * interface needs one epoll set of its own that applications can sleep on, gathering writes
 * ({@code writev}) straight from {@link MemorySegment} addresses of user memory for zero-copy
 * sends, and receives straight into registered target memory, none of which NIO offers without
 * ByteBuffer wrappers, selector locks and garbage per operation.
 *
 * <p>Single threaded: every method runs on the owning worker's thread.
 */
final class TcpInterface extends AbstractInterface<TcpEndpoint> {
    /** Absolute-address view for copies from raw buffer addresses. */
    @SuppressWarnings("restricted") // raw buffer addresses taken from live segments, never from the wire
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    static final int MAX_IOV = 16;
    private static final long LISTEN_DATA = -1L;
    private static final int MAX_EVENTS = 64;

    private final int ip;
    private final TcpRoutes routes = TcpRoutes.load();
    private final EventSet events;
    /**
     * The socket that received last. Progress reads it directly on most calls ({@link #EPOLL_EVERY}):
     * a message waiting there is then one recv away, where epoll would take an epoll_wait and a recv
     * (a system call less on the latency path of a ping-pong or a request and its reply); idle, either
     * way costs one call. The other sockets, writability and new connections wait for the next epoll
     * turn, at most {@code EPOLL_EVERY - 1} progress calls later.
     */
    private TcpChannel hot;
    private int pollTurn;
    private static final int EPOLL_EVERY = 4;
    private final int listenFd;
    private final int port;
    private final byte[] token;
    private final String jobSecret;
    /** What a connecting peer must present. */
    final byte[] secretDigest;
    /** What this side presents in its ACCEPT frame. */
    final byte[] acceptDigest;
    /** This interface takes part in one socket per peer pair. */
    final boolean shareEnabled;
    private final byte[] helloAddress;
    private final Arena arena = Arena.ofShared();
    private MemorySegment packAside;
    private final MemorySegment scratch;

    final int rxBufSize;
    final int txBufSize;
    final int segSize;
    final int amMaxShort;
    /** Puts of at least this many bytes are spliced into the socket (Long.MAX_VALUE = never). */
    final long spliceThresh;
    /** Puts of more than this many bytes are copied, not spliced. */
    final long spliceMax;
    final int splicePipe;
    /** What every data socket gets. */
    final TcpSocketOptions sockets;
    private final long handshakeTimeoutNs;
    private final int maxHandshakes;
    /** How long a broken connection may take to come back (0: it fails at once). */
    final long faultTimeoutNs;
    /** Most bytes a connection keeps copied for a resume. */
    final int replayMax;
    /** Copied bytes a connection may hold unacknowledged before its endpoint's requests wait ({@link TcpSendGate}). */
    final int replayWindow;
    private final long connIdBase = KernelRandom.nextLong() | 1;
    private long connIdSeq;
    private final List<TcpConnection> resuming = new ArrayList<>();
    /** Accepted connections that ended, remembered for at least this long (see {@link TcpRetiredIds}). */
    private static final long RETAIN_MIN_NS = 60_000_000_000L;
    private final TcpRetiredIds retired;
    private long resumes;

    private final List<TcpConnection> conns = new ArrayList<>();
    private long switches;
    private TcpChannel[] slots = new TcpChannel[16];
    private int[] slotGen = new int[16];
    private final List<TcpConnection> draining = new ArrayList<>();
    /** Channels whose queued ACK ({@link TcpChannel#ackWaiting}) goes at the next progress call if nothing took it. */
    private TcpChannel[] lateAcks = new TcpChannel[8];
    private int lateAckCount;
    private int handshaking;
    private static final System.Logger LOG = System.getLogger("weft.uct.tcp");
    private long rejected;
    private long malformed;

    TcpInterface(final TcpTransport transport, final UctWorker worker, final Device device, final int ip,
                 final InterfaceParams params) {
        super(transport, worker, device, params, new TcpEndpoint[0]);
        this.ip = ip;
        final Config cfg = params.config();
        this.segSize = (int) Math.min(TcpFrame.MAX_AM_ZCOPY, Math.max(256, cfg.get(TcpTransport.SEG_SIZE)));
        this.amMaxShort = TcpTransport.MAX_SHORT;
        this.rxBufSize = (int) Math.min(1 << 30, Math.max(TcpFrame.HEADER + TcpFrame.MAX_AM_PAYLOAD + 64,
            cfg.get(TcpTransport.RX_BUF)));
        this.txBufSize = (int) Math.min(1 << 30, Math.max(4L * (segSize + 64), cfg.get(TcpTransport.TX_BUF)));
        this.spliceThresh = Math.max(1, cfg.get(TcpTransport.SPLICE_THRESH));
        this.spliceMax = cfg.get(TcpTransport.SPLICE_MAX);
        this.splicePipe = (int) Math.min(1 << 30, Math.max(4096, cfg.get(TcpTransport.SPLICE_PIPE)));
        this.sockets = new TcpSocketOptions(cfg, arena);
        this.handshakeTimeoutNs = cfg.get(TcpTransport.HANDSHAKE_TIMEOUT);
        this.maxHandshakes = Math.max(1, cfg.get(TcpTransport.MAX_HANDSHAKES));
        this.faultTimeoutNs = Math.max(0, cfg.get(TcpTransport.FAULT_TIMEOUT));
        this.replayMax = (int) Math.min(1 << 30, Math.max(64 * 1024, cfg.get(TcpTransport.REPLAY_MAX)));
        this.replayWindow = TcpSendGate.window(cfg.get(TcpTransport.REPLAY_WINDOW), replayMax);
        // a connector comes back within its fault timeout of noticing the break (a handshake later at most)
        this.retired = new TcpRetiredIds(Math.max(RETAIN_MIN_NS,
            2 * (faultTimeoutNs + sockets.userTimeoutNs() + handshakeTimeoutNs)), System::nanoTime);
        final String secret = cfg.get(TcpTransport.JOB_SECRET);
        this.jobSecret = secret == null || secret.isEmpty() ? null : secret;
        if (jobSecret == null) {
            token = new byte[TcpAddress.TOKEN_LEN];
            KernelRandom.nextBytes(token);
            secretDigest = TcpHandshake.digest(token);
            acceptDigest = TcpHandshake.digest(TcpFrame.ACCEPT_CONTEXT, token);
        } else {
            token = null;
            secretDigest = TcpHandshake.digest(jobSecret.getBytes(StandardCharsets.UTF_8));
            acceptDigest = TcpHandshake.digest(TcpFrame.ACCEPT_CONTEXT, jobSecret.getBytes(StandardCharsets.UTF_8));
        }
        // a shared socket keeps tx room for the replies it owes: only with buffers big enough
        this.shareEnabled = cfg.get(TcpTransport.SHARED_SOCKET)
            && txBufSize >= 2 * TcpSendGate.REPLY_RESERVE + 2 * (segSize + 64);
        this.scratch = arena.allocate(16, 8);
        this.events = new EventSet(MAX_EVENTS);
        int fd = -1;
        try {
            fd = (int) LibC.check(LibC.socket(LibC.AF_INET, LibC.SOCK_STREAM | LibC.SOCK_NONBLOCK
                | LibC.SOCK_CLOEXEC, 0), "socket");
            final int lfd = fd;
            try (Arena a = Arena.ofConfined()) {
                LibC.check(LibC.bind(lfd, TcpSocketOptions.sockaddr(a, ip, 0), (int) LibC.SOCKADDR_IN_SIZE),
                    "bind " + TcpAddress.ipString(ip));
                LibC.check(LibC.listen(lfd, 1024), "listen");
                final MemorySegment sa = a.allocate(LibC.SOCKADDR_IN_SIZE);
                final MemorySegment sl = a.allocateFrom(JAVA_INT, (int) LibC.SOCKADDR_IN_SIZE);
                LibC.check(LibC.getsockname(lfd, sa, sl), "getsockname");
                this.port = sa.get(LibC.SHORT_BE, 2) & 0xFFFF;
            }
            events.add(lfd, LibC.EPOLLIN, LISTEN_DATA);
        } catch (final RuntimeException e) {
            if (fd >= 0) {
                LibC.close(fd);
            }
            events.close();
            arena.close();
            throw new WeftException(Status.IO_ERROR, "tcp: cannot listen on " + device.name() + " ("
                + TcpAddress.ipString(ip) + "): " + e.getMessage(), e);
        }
        this.listenFd = fd;
        this.helloAddress = TcpAddress.iface(ip, port, null); // no token: see TcpFrame
        final long caps = Capability.AM_SHORT | Capability.AM_BCOPY | Capability.AM_ZCOPY | Capability.PENDING
            | Capability.PUT_SHORT | Capability.PUT_SIGNAL | Capability.PUT_BCOPY | Capability.PUT_ZCOPY
            | Capability.GET_BCOPY | Capability.GET_ZCOPY | Capability.ATOMIC32 | Capability.ATOMIC64
            | Capability.ATOMIC_CPU | Capability.CB_SYNC | Capability.CONNECT_TO_IFACE | Capability.EP_CHECK
            | Capability.EP_KEEPALIVE | Capability.ERRHANDLE_PEER_FAILURE | Capability.INTER_NODE
            | Capability.EVENT_RECV;
        final boolean lo = TcpAddress.isLoopback(ip);
        open(new InterfaceAttributes(caps, AtomicOp.ALL_OPS, AtomicOp.ALL_OPS,
            amMaxShort, segSize, TcpFrame.MAX_AM_ZCOPY, TcpFrame.MAX_AM_HEADER, MAX_IOV,
            segSize, segSize, TcpFrame.MAX_RMA, segSize, TcpFrame.MAX_RMA, // a put up to a segment is copied
            lo ? 10_000 : 25_000, 1000, lo ? 2.0e9 : 1.1e9, 0), // measured: ~10 us one-way on loopback
            TcpAddress.device(ip), TcpAddress.iface(ip, port, token));
    }

    EventSet events() {
        return events;
    }

    void register(final TcpChannel ch) {
        int s = -1;
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] == null) {
                s = i;
                break;
            }
        }
        if (s < 0) {
            s = slots.length;
            slots = Arrays.copyOf(slots, s * 2);
            slotGen = Arrays.copyOf(slotGen, s * 2);
        }
        slots[s] = ch;
        ch.slot = s;
        ch.epollData = (long) ++slotGen[s] << 32 | s;
        ch.updateInterest();
    }

    void unregister(final TcpChannel ch) {
        if (ch.slot >= 0 && slots[ch.slot] == ch) {
            slots[ch.slot] = null;
        }
        if (hot == ch) {
            hot = null;
        }
    }

    // ---------------------------------------------------------------- Interface

    @Override
    public boolean isReachable(final byte[] deviceAddress, final byte[] interfaceAddress) {
        if (!TcpAddress.reachable(ip, deviceAddress) || reach(deviceAddress) == TcpRoutes.Reach.UNREACHABLE) {
            return false;
        }
        try {
            final TcpAddress.Iface a = TcpAddress.parseIface(interfaceAddress);
            return a.token() != null || jobSecret != null;
        } catch (final WeftException e) {
            return false;
        }
    }

    @Override
    public boolean isDirect(final byte[] deviceAddress, final byte[] interfaceAddress) {
        return !TcpAddress.reachable(ip, deviceAddress) || reach(deviceAddress) != TcpRoutes.Reach.ROUTED;
    }

    /** Loopback pairs are always direct; otherwise the route table decides. */
    private TcpRoutes.Reach reach(final byte[] deviceAddress) {
        return TcpAddress.isLoopback(ip) ? TcpRoutes.Reach.DIRECT
            : routes.reach(device().name(), TcpAddress.deviceIp(deviceAddress));
    }

    @Override
    public Endpoint connect(final byte[] deviceAddress, final byte[] interfaceAddress) {
        checkOpen();
        if (!TcpAddress.reachable(ip, deviceAddress)) {
            throw new WeftException(Status.UNREACHABLE, "tcp: device " + device().name() + " ("
                + TcpAddress.ipString(ip) + ") cannot reach that device address");
        }
        final TcpAddress.Iface a = TcpAddress.parseIface(interfaceAddress);
        final byte[] digest;
        final byte[] accept;
        if (a.token() != null) {
            digest = TcpHandshake.digest(a.token());
            accept = TcpHandshake.digest(TcpFrame.ACCEPT_CONTEXT, a.token());
        } else if (jobSecret != null) {
            digest = secretDigest;
            accept = acceptDigest;
        } else {
            throw new WeftException(Status.UNREACHABLE, "tcp: the peer expects the job secret (WEFT_JOB_SECRET), "
                + "which is not set here");
        }
        TcpEndpoint ep = null;
        if (shareEnabled) {
            for (final TcpConnection c : conns) {
                if (c.attachableFrom(a.ip(), a.port())) {
                    ep = new TcpEndpoint(this, c, a.ip(), a.port()); // the peer's socket: both ways
                    break;
                }
            }
        }
        if (ep == null) {
            ep = new TcpEndpoint(this, a.ip(), a.port(), digest, accept);
        }
        addEndpoint(ep);
        return ep;
    }

    void endpointClosed(final TcpEndpoint ep) {
        removeEndpoint(ep);
    }

    void addConnection(final TcpConnection c) {
        conns.add(c);
    }

    void removeConnection(final TcpConnection c) {
        conns.remove(c);
    }

    /** Address sent in hellos: this interface's ip:port, without the token. */
    byte[] helloAddress() {
        return helloAddress;
    }

    /**
     * An accepted shared socket from {@code c}'s peer interface checked out. If one of our
     * endpoints to that interface still uses a socket it opened itself, both sides opened one:
     * the socket opened by the smaller interface address (ip, port: the peer applies the same
     * rule) carries both directions, so our endpoint moves to the peer's socket if the peer's
     * address is the smaller, and stays (the peer moves) otherwise.
     */
    void sharedHello(final TcpConnection c) {
        final long self = (ip & 0xFFFFFFFFL) << 16 | port;
        final long peer = (c.peerIp & 0xFFFFFFFFL) << 16 | c.peerPort;
        if (peer >= self) {
            return;
        }
        for (final TcpEndpoint ep : endpoints()) {
            final TcpConnection own = ep.conn;
            if (ep.targetIp == c.peerIp && ep.targetPort == c.peerPort && own.connector && own.requester == ep
                && !ep.move.active() && ep.failStatus() == null) {
                ep.move.begin(c);
                return;
            }
        }
    }

    void countSwitch() {
        switches++;
    }

    /** Endpoints moved to a socket the peer opened (one socket per peer pair). */
    long sharedSwitches() {
        return switches;
    }

    /** Open sockets (opened and accepted). */
    int connections() {
        return conns.size();
    }

    void deliver(final int id, final MemorySegment buf, final long off, final long len) {
        deliver(id, buf, off, len, 0);
    }

    @Override
    public int progress() {
        if (isClosed()) {
            return 0;
        }
        int work = 0;
        if (hasFailures() || !draining.isEmpty() || !resuming.isEmpty()) {
            work += processDeferred();
        }
        if (lateAckCount > 0) {
            flushLateAcks();
        }
        final TcpChannel h = hot;
        if (h != null && (++pollTurn & (EPOLL_EVERY - 1)) != 0 && !h.closed && h.connected && !h.readPaused) {
            final long before = h.bytesReceived;
            h.owner.onReadable();
            if (!h.closed) {
                h.rearmDelayedAck();
            }
            if (h.bytesReceived != before) {
                work++;
            }
        } else {
            work += pollEvents();
        }
        if (isClosed()) {
            return work;
        }
        final TcpEndpoint[] eps = endpoints();
        for (final TcpEndpoint ep : eps) {
            if (ep.hasPending()) {
                work += ep.dispatchPending();
            }
        }
        if (handshaking > 0) {
            expireHandshakes();
        }
        return work;
    }

    /**
     * Also while a connection is open or handshaking (a peer's traffic and its failure arrive on it), or a
     * broken one is being drained or resumed; with none, only the listening socket can see a first contact.
     */
    @Override
    public boolean hasActivity() {
        return super.hasActivity() || !conns.isEmpty() || handshaking > 0 || !draining.isEmpty()
            || !resuming.isEmpty();
    }

    /**
     * {@code ch} queued an ACK frame after a read: it leaves with the next frame written (a ping-pong's
     * reply, a get's next request: one send, not two, the cost that matters on loopback), or at the start of
     * the next progress call if nothing was written by then.
     */
    void flushLater(final TcpChannel ch) {
        if (ch.ackWaiting) {
            return;
        }
        ch.ackWaiting = true;
        if (lateAckCount == lateAcks.length) {
            lateAcks = java.util.Arrays.copyOf(lateAcks, 2 * lateAckCount);
        }
        lateAcks[lateAckCount++] = ch;
    }

    private void flushLateAcks() {
        for (int i = 0; i < lateAckCount; i++) {
            final TcpChannel ch = lateAcks[i];
            lateAcks[i] = null;
            if (ch.ackWaiting && !ch.closed && ch.connected) {
                ch.owner.onWritable(); // writes what is queued; handles a failed write as a writability event does
            }
        }
        lateAckCount = 0;
    }

    /** One epoll round: readiness of every socket and the listener. */
    private int pollEvents() {
        int work = 0;
        final EventSet ev = events;
        final int n = ev.await(0);
        for (int i = 0; i < n && !isClosed(); i++) {
            final long data = ev.readyData(i);
            final int mask = ev.readyMask(i);
            work++;
            if (data == LISTEN_DATA) {
                acceptAll();
                continue;
            }
            final int s = (int) data;
            final TcpChannel ch = s >= 0 && s < slots.length ? slots[s] : null;
            if (ch == null || ch.epollData != data || ch.closed) {
                continue; // closed earlier in this batch
            }
            if ((mask & (LibC.EPOLLERR | LibC.EPOLLHUP)) != 0 && ch.connected) {
                // reset or hung up: what the peer sent before is still readable, and is delivered before a
                // write of ours fails on the dead socket and closes it
                ch.owner.onReadable();
                if (ch.closed || ch.epollData != data) {
                    continue; // closed, or broken (it may have a new socket already)
                }
            }
            if ((mask & (LibC.EPOLLOUT | LibC.EPOLLERR | LibC.EPOLLHUP)) != 0) {
                ch.owner.onWritable();
            }
            if (!ch.closed && ch.epollData == data && (mask & (LibC.EPOLLIN | LibC.EPOLLERR | LibC.EPOLLHUP)) != 0) {
                ch.owner.onReadable();
                if (!ch.closed) {
                    ch.rearmDelayedAck(); // after the handlers answered: off the latency path
                    hot = ch;
                }
            }
        }
        return work;
    }

    private void acceptAll() {
        for (int k = 0; k < 64; k++) {
            final int fd = LibC.accept4(listenFd, MemorySegment.NULL, MemorySegment.NULL,
                LibC.SOCK_NONBLOCK | LibC.SOCK_CLOEXEC);
            if (fd < 0) {
                return; // EAGAIN, or a transient error (ECONNABORTED, EMFILE): epoll reports again
            }
            if (handshaking >= maxHandshakes) {
                LibC.close(fd); // a flood: authenticating connections are bounded
                countRejected();
                continue;
            }
            try {
                sockets.configure(fd);
            } catch (final RuntimeException e) {
                LibC.close(fd); // the peer reset before we could set it up
                continue;
            }
            final TcpConnection c = new TcpConnection(this, fd);
            conns.add(c);
            handshaking++;
            register(c.ch);
        }
    }

    void handshakeDone() {
        handshaking--;
    }

    private void expireHandshakes() {
        final long now = System.nanoTime();
        for (int i = conns.size() - 1; i >= 0; i--) {
            final TcpConnection c = conns.get(i);
            if (!c.helloDone && now - c.createdNs > handshakeTimeoutNs) {
                countRejected();
                c.closeNow();
            }
        }
    }

    void countRejected() {
        rejected++;
        counters().increment(Counter.ERRORS);
        // security relevant: worth a line, never on the data path; a flood logs at 1, 2, 4, 8 ... refusals
        if (Long.bitCount(rejected) == 1) {
            LOG.log(System.Logger.Level.WARNING, "tcp: refused a connection at the handshake (bad magic, wrong "
                + "secret, timeout or too many at once); {0} refused so far", rejected);
        }
    }

    void countMalformed() {
        malformed++;
        counters().increment(Counter.ERRORS);
        if (Long.bitCount(malformed) == 1) { // 1, 2, 4, 8 ...: a hostile peer cannot flood the log
            LOG.log(System.Logger.Level.WARNING, "tcp: closed a connection that sent a malformed frame; {0} so far",
                malformed);
        }
    }

    /** Connections refused at the handshake (bad magic, wrong secret, timeout). */
    long rejectedConnections() {
        return rejected;
    }

    /** Connections closed because a frame was malformed. */
    long malformedConnections() {
        return malformed;
    }

    /** Accepted sockets still waiting for their peer's hello. */
    int handshakingConnections() {
        return handshaking;
    }

    /** Sockets on which this side serves the peer's requests. */
    int serverConnections() {
        int n = 0;
        for (final TcpConnection c : conns) {
            if (c.serving()) {
                n++;
            }
        }
        return n;
    }

    /** A new connection id: random per interface, then counted (never 0). */
    long newConnectionId() {
        return connIdBase + 2 * connIdSeq++;
    }

    void addResuming(final TcpConnection c) {
        resuming.add(c);
    }

    void removeResuming(final TcpConnection c) {
        resuming.remove(c);
    }

    void countResume() {
        resumes++;
    }

    /** Connections that came back on a new socket after theirs broke. */
    long resumes() {
        return resumes;
    }

    /** Connections whose socket is broken and that try to come back. */
    int brokenConnections() {
        return resuming.size();
    }

    /** An accepted connection with id {@code id} ended here (see {@link TcpRetiredIds}). */
    void retire(final long id) {
        retired.add(id);
    }

    /** True if a connection {@code id} from {@code ip:port} was accepted here: it is open, or it ended. */
    boolean knowsConnection(final long id, final int ip, final int port) {
        return id != 0 && (resumeTarget(id, ip, port) != null || retired.contains(id));
    }

    /** {@link #knowsConnection}, or it may have ended here and been forgotten early (see {@link TcpRetiredIds}). */
    boolean mayKnowConnection(final long id, final int ip, final int port) {
        return knowsConnection(id, ip, port) || id != 0 && retired.mayHaveRetired(id);
    }

    /** The accepted connection a resume hello names, or null. */
    TcpConnection resumeTarget(final long id, final int ip, final int port) {
        for (final TcpConnection c : conns) {
            if (!c.connector && !c.closed && c.connId == id && c.peerIp == ip && c.peerPort == port) {
                return c;
            }
        }
        return null;
    }

    /** Where an endpoint whose tx ring is still the first one packs a bcopy AM (segSize bytes, allocated once). */
    MemorySegment packAside() {
        if (packAside == null) {
            packAside = arena.allocate(segSize, 8);
        }
        return packAside;
    }

    /** Tests: the connections of this interface (open or handshaking). */
    List<TcpConnection> connectionsForTest() {
        return List.copyOf(conns);
    }

    /**
     * Tests: breaks every connected socket as a network fault would, and returns how many: shut
     * down both ways ({@code shutdown(SHUT_RDWR)}: what is in flight still arrives), or with
     * {@code reset} dropped at once unread (what is in flight either way is lost and must come again).
     */
    int breakSocketsForTest(final boolean reset) {
        int n = 0;
        for (final TcpConnection c : conns.toArray(new TcpConnection[0])) {
            if (!c.closed && c.ch.fd >= 0 && c.ch.connected) {
                if (reset) {
                    c.ioFailed(Status.CONNECTION_RESET);
                } else {
                    LibC.shutdown(c.ch.fd, LibC.SHUT_RDWR);
                }
                n++;
            }
        }
        return n;
    }

    /** {@code ep} failed: its error handler call is due at the next progress. */
    void deferFailure(final TcpEndpoint ep) {
        failed(ep);
    }

    /** A connection whose write failed: read to its end at the next progress (TcpConnection.writeFailed). */
    void deferDrain(final TcpConnection c) {
        draining.add(c);
    }

    /** {@code c}'s deferred drain is moot (its peer came back on a new socket). */
    void cancelDrain(final TcpConnection c) {
        draining.remove(c);
    }

    private int processDeferred() {
        if (!resuming.isEmpty()) {
            final long now = System.nanoTime();
            for (final TcpConnection c : resuming.toArray(new TcpConnection[0])) {
                c.serviceResume(now);
            }
        }
        if (!draining.isEmpty()) {
            final TcpConnection[] cs = draining.toArray(new TcpConnection[0]);
            draining.clear();
            for (final TcpConnection c : cs) {
                c.finishDrain();
            }
        }
        return reportFailures();
    }

    @Override
    protected void reportFailure(final TcpEndpoint ep) {
        ep.notifyFailure();
    }

    void endpointFailed(final TcpEndpoint ep, final Status st) {
        notifyError(ep, st);
    }

    @Override
    public Status arm() {
        if (isClosed()) {
            return Status.CLOSED;
        }
        if (hasFailures() || !draining.isEmpty() || !resuming.isEmpty()) {
            return Status.BUSY; // a broken connection's attempts run from progress
        }
        for (final TcpEndpoint ep : endpoints()) {
            if (ep.hasPending()) {
                return Status.BUSY;
            }
        }
        // level triggered: events stay reported until progress consumes them
        final int n = LibC.epollWait(events.fd(), scratch.address(), 1, 0);
        return n > 0 ? Status.BUSY : Status.OK;
    }

    @Override
    public int eventFd() {
        return events.fd();
    }

    @Override
    public Status flush(final int flags, final Completion completion) {
        if (isClosed()) {
            return Status.CLOSED;
        }
        final TcpEndpoint[] eps = endpoints();
        final Completion agg = new Completion(st -> {
            if (completion != null) {
                completion.complete(st);
            }
        });
        agg.reset(1);
        Status first = Status.OK;
        for (final TcpEndpoint ep : eps) {
            agg.expect(1);
            final Status st = ep.flush(flags, agg);
            if (st == Status.IN_PROGRESS) {
                continue;
            }
            agg.complete(Status.OK); // this endpoint did not take the completion
            if (st == Status.NO_RESOURCE) {
                return st; // (the aggregate never fires: the caller retries the whole flush)
            }
            if (st.isError() && first == Status.OK && st != Status.CLOSED) {
                first = st;
            }
        }
        if (agg.count() == 1) {
            return first;
        }
        agg.complete(first);
        return Status.IN_PROGRESS;
    }

    @Override
    public Status fence() {
        return Status.OK; // each endpoint is one ordered stream served in order
    }

    @Override
    protected void release() {
        for (final TcpConnection c : conns.toArray(new TcpConnection[0])) {
            c.closeNow();
        }
        draining.clear();
        resuming.clear();
        LibC.close(listenFd);
        events.close();
        arena.close();
    }
}
