package weft.ucp;

import weft.ucs.HmacSha256;
import weft.ucs.LogLimit;
import weft.ucs.Sha256;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.uct.Transports;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The connection handshake between {@link Worker#connect(InetSocketAddress)} and a {@link Listener}:
 * it authenticates both sides with the job secret (never sent: HMAC-SHA256 over a fresh server nonce,
 * so a recorded handshake cannot be replayed) and exchanges the worker addresses. The socket carries
 * nothing else; the endpoints then talk over the lanes chosen from the two addresses. Little endian.
 *
 * <pre>
 *  HELLO    server -> client  [u64 magic "WEFTUCPL"][u16 version][u16 0][u32 0][16 B nonce]            32 B
 *  REQUEST  client -> server  [u64 magic][u16 version][u16 0][u32 address length][u64 connection number]
 *                             [u64 client id][32 B mac_c][client worker address]                64 B + address
 *  REPLY    server -> client  [u8 result][3 B 0][u32 address length][32 B mac_s][server worker address]
 *                                                                                               40 B + address
 *  DECISION server -> client  (later, from the server's handler)
 *           accepted:         [u8 1][3 B 0][u32 address length][32 B mac_d][accepting worker address]
 *                                                                                               40 B + address
 *           rejected:         [u8 2]
 *
 *  key   = SHA-256("weft-ucp-listener-v1:" || WEFT_JOB_SECRET)
 *  mac_c = HMAC-SHA256(key, "C" || nonce || connection number || client id || client address)
 *  mac_s = HMAC-SHA256(key, "S" || nonce || mac_c || server address)
 *  mac_d = HMAC-SHA256(key, "D" || nonce || mac_c || accepting worker address)
 *  result: 0 ok, 1 wrong secret, 2 malformed request (both close the socket)
 * </pre>
 *
 * The connection number (high bit 62 set, unique in this process) names the pair of endpoints in both
 * workers, apart from the numbers of address-based connects. The client id is the application's
 * ({@link Worker#connect(InetSocketAddress, long)}, UCX's worker client id), shown to the server's handler
 * by {@link ConnectionRequest#clientId()}. The server may accept on another worker than the listener's
 * ({@link ConnectionRequest#accept(Worker)}): the decision names the worker the client's endpoint binds to.
 */
final class SockaddrHandshake {
    private static final System.Logger LOG = System.getLogger(SockaddrHandshake.class.getName());
    static final long MAGIC = 0x4C50435554464557L; // "WEFTUCPL" read as LE
    static final int VERSION = 2;
    static final int HELLO = 32;
    static final int REQUEST_FIXED = 64;
    static final int REPLY_FIXED = 40;
    static final int DECISION_FIXED = 40;
    static final int MAX_ADDRESS = 1 << 16;
    static final int NONCE = 16;
    static final int RESULT_OK = 0;
    static final int RESULT_BAD_SECRET = 1;
    static final int RESULT_BAD_REQUEST = 2;
    static final int DECISION_ACCEPT = 1;
    static final int DECISION_REJECT = 2;
    static final long LISTENER_SN = 1L << 62;

    static final ConfigVar<Long> CONNECT_TIMEOUT = ConfigRegistry.register("CONNECT_TIMEOUT", ConfigType.TIME, "10s",
        "How long a connect to a listener may take: the handshake, then the server's accept or reject.");

    private static final AtomicLong NEXT_SN = new AtomicLong();
    /** Connection requests refused by this process's listeners (their warnings are rate-limited). */
    private static final AtomicLong REFUSED = new AtomicLong();

    private SockaddrHandshake() {
    }

    /**
     * A new connection number for a connect to a listener (unique in this process; the accepting worker's
     * WIREUP request carries it back, so the client knows it before its handshake ends).
     */
    static long nextSn() {
        return LISTENER_SN | NEXT_SN.getAndIncrement();
    }

    // ------------------------------------------------------------------ secret

    /** The HMAC key derived from {@code WEFT_JOB_SECRET} (the variable the tcp transport registers). */
    static byte[] key(final Config config) {
        Transports.all(); // make sure the transports registered their variables
        String secret = "";
        for (final ConfigVar<?> v : ConfigRegistry.all()) {
            if (v.name().equals("JOB_SECRET")) {
                final Object o = config.get(v);
                secret = o == null ? "" : o.toString();
            }
        }
        return new Sha256().update("weft-ucp-listener-v1:".getBytes(StandardCharsets.US_ASCII))
            .digest(secret.getBytes(StandardCharsets.UTF_8));
    }

    static boolean hasSecret(final Config config) {
        Transports.all();
        for (final ConfigVar<?> v : ConfigRegistry.all()) {
            if (v.name().equals("JOB_SECRET")) {
                final Object o = config.get(v);
                return o != null && !o.toString().isEmpty();
            }
        }
        return false;
    }

    static byte[] mac(final byte[] key, final byte role, final byte[] nonce, final byte[] middle,
                      final byte[] address) {
        return new HmacSha256(key).update(role).update(nonce).update(middle).update(address).doFinal();
    }

    private static byte[] le128(final long a, final long b) {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(a).putLong(b).array();
    }

    // ------------------------------------------------------------------ server (listener thread)

    /** What the server learned from an authenticated client. */
    record Incoming(WorkerAddress remote, long connSn, long clientId, byte[] nonce, byte[] macC) {
    }

    /**
     * Runs the server side on a blocking socket (read timeout set by the caller).
     *
     * @return the client's address and number, or null if it was refused (the reason is logged and sent)
     */
    static Incoming serve(final Socket s, final byte[] key, final byte[] localAddress) throws IOException {
        final byte[] nonce = new byte[NONCE];
        weft.ucs.sys.KernelRandom.nextBytes(nonce);
        return serve(s.getInputStream(), s.getOutputStream(), s.getRemoteSocketAddress(), key, localAddress, nonce);
    }

    /** The server side over a client's streams, with the given nonce (the fuzz test chooses it). */
    static Incoming serve(final InputStream input, final OutputStream out, final Object peer, final byte[] key,
                          final byte[] localAddress, final byte[] nonce) throws IOException {
        final DataInputStream in = new DataInputStream(input);
        final ByteBuffer hello = le(HELLO).putLong(MAGIC).putShort((short) VERSION).putShort((short) 0).putInt(0)
            .put(nonce);
        out.write(hello.array());
        out.flush();
        final byte[] fixed = new byte[REQUEST_FIXED];
        in.readFully(fixed);
        final ByteBuffer req = ByteBuffer.wrap(fixed).order(ByteOrder.LITTLE_ENDIAN);
        final long magic = req.getLong();
        final int version = req.getShort() & 0xffff;
        req.getShort();
        final int len = req.getInt();
        final long sn = req.getLong();
        final long clientId = req.getLong();
        final byte[] macC = new byte[32];
        req.get(macC);
        if (magic != MAGIC || version != VERSION || len <= 0 || len > MAX_ADDRESS || (sn & LISTENER_SN) == 0) {
            refuse(out, RESULT_BAD_REQUEST);
            if (LogLimit.due(REFUSED.incrementAndGet())) {
                LOG.log(System.Logger.Level.WARNING, "listener: malformed connection request from "
                    + peer + " (magic, version " + version + " or address length " + len + "); " + REFUSED.get()
                    + " refused so far");
            }
            return null;
        }
        final byte[] addr = new byte[len];
        in.readFully(addr);
        if (!MessageDigest.isEqual(macC, mac(key, (byte) 'C', nonce, le128(sn, clientId), addr))) { // constant time
            refuse(out, RESULT_BAD_SECRET);
            if (LogLimit.due(REFUSED.incrementAndGet())) {
                LOG.log(System.Logger.Level.WARNING, "listener: refused a connection from " + peer
                    + ": it does not know the job secret (WEFT_JOB_SECRET); " + REFUSED.get() + " refused so far");
            }
            return null;
        }
        final WorkerAddress remote;
        try {
            remote = WorkerAddress.unpack(addr);
        } catch (final WeftException e) {
            refuse(out, RESULT_BAD_REQUEST);
            if (LogLimit.due(REFUSED.incrementAndGet())) {
                LOG.log(System.Logger.Level.WARNING, "listener: bad worker address from " + peer
                    + ": " + e.getMessage() + "; " + REFUSED.get() + " refused so far");
            }
            return null;
        }
        final byte[] macS = mac(key, (byte) 'S', nonce, macC, localAddress);
        final ByteBuffer reply = le(REPLY_FIXED + localAddress.length).put((byte) RESULT_OK).put((byte) 0)
            .putShort((short) 0).putInt(localAddress.length).put(macS).put(localAddress);
        out.write(reply.array());
        out.flush();
        return new Incoming(remote, sn, clientId, nonce, macC);
    }

    private static void refuse(final OutputStream out, final int result) throws IOException {
        out.write(le(REPLY_FIXED).put((byte) result).array());
        out.flush();
    }

    private static ByteBuffer le(final int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes the decision (with the accepting worker's address, signed, when accepted) and closes the socket
     * (the client sees EOF if the write fails).
     */
    static void sendDecision(final Socket s, final int decision, final byte[] key, final Incoming in,
                             final byte[] acceptingAddress) {
        try (s) {
            if (decision == DECISION_ACCEPT) {
                final byte[] macD = mac(key, (byte) 'D', in.nonce(), in.macC(), acceptingAddress);
                s.getOutputStream().write(le(DECISION_FIXED + acceptingAddress.length).put((byte) decision)
                    .put((byte) 0).putShort((short) 0).putInt(acceptingAddress.length).put(macD).put(acceptingAddress)
                    .array());
            } else {
                s.getOutputStream().write(decision);
            }
            s.getOutputStream().flush();
        } catch (final IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "listener: could not tell " + s.getRemoteSocketAddress()
                + " the decision (it will see the socket close): " + e);
        }
    }

    // ------------------------------------------------------------------ client

    /** A client after a successful handshake, waiting for the server's decision. */
    static final class Client implements AutoCloseable {
        private final SocketChannel ch;
        private final WorkerAddress remote;
        private final long deadline;
        private final InetSocketAddress server;
        private final InetSocketAddress local;
        private final byte[] key;
        private final byte[] nonce;
        private final byte[] macC;
        private final ByteBuffer decision = le(DECISION_FIXED);
        private ByteBuffer decisionAddress;
        private WorkerAddress accepting;

        Client(final SocketChannel ch, final WorkerAddress remote, final long deadline,
               final InetSocketAddress server, final byte[] key, final byte[] nonce, final byte[] macC) {
            this.ch = ch;
            this.remote = remote;
            this.deadline = deadline;
            this.server = server;
            this.key = key;
            this.nonce = nonce;
            this.macC = macC;
            InetSocketAddress l = null;
            try {
                l = (InetSocketAddress) ch.getLocalAddress();
            } catch (final IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "local address of the handshake socket: " + e);
            }
            this.local = l;
        }

        /** This side's address of the handshake connection (null if the socket could not tell). */
        InetSocketAddress local() {
            return local;
        }

        WorkerAddress remote() {
            return remote;
        }

        InetSocketAddress server() {
            return server;
        }

        long deadline() {
            return deadline;
        }

        /**
         * Non-blocking: the decision ({@link #DECISION_ACCEPT}: see {@link #accepting()}, or REJECT), 0 if not
         * all of it came yet, -1 if the socket closed without one or it is malformed or not signed with the key.
         */
        int pollDecision() {
            try {
                if (decisionAddress == null) {
                    if (ch.read(decision) < 0) {
                        return -1;
                    }
                    if (decision.position() == 0) {
                        return 0;
                    }
                    final int d = decision.get(0) & 0xff;
                    if (d != DECISION_ACCEPT) {
                        return d == DECISION_REJECT ? d : -1;
                    }
                    if (decision.hasRemaining()) {
                        return 0;
                    }
                    final int len = decision.getInt(4);
                    if (len <= 0 || len > MAX_ADDRESS) {
                        return -1;
                    }
                    decisionAddress = ByteBuffer.allocate(len);
                }
                if (decisionAddress.hasRemaining()) {
                    if (ch.read(decisionAddress) < 0) {
                        return -1;
                    }
                    if (decisionAddress.hasRemaining()) {
                        return 0;
                    }
                }
                final byte[] macD = new byte[32];
                decision.get(8, macD);
                if (!MessageDigest.isEqual(macD, mac(key, (byte) 'D', nonce, macC, decisionAddress.array()))) {
                    LOG.log(System.Logger.Level.WARNING, "connect to " + server + ": the acceptance is not signed "
                        + "with the job secret (WEFT_JOB_SECRET): refused");
                    return -1;
                }
                accepting = WorkerAddress.unpack(decisionAddress.array());
                return DECISION_ACCEPT;
            } catch (final IOException | WeftException e) {
                LOG.log(System.Logger.Level.DEBUG, "connect to " + server + ": decision: " + e);
                return -1;
            }
        }

        /** After an accepting decision: the address of the worker that accepted (the listener's or another). */
        WorkerAddress accepting() {
            return accepting;
        }

        @Override
        public void close() {
            try {
                ch.close();
            } catch (final IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing the handshake socket: " + e);
            }
        }
    }

    /** Set by another thread to stop a client handshake (it ends within one poll interval). */
    static final class Cancel {
        volatile boolean canceled;
    }

    /** The deadline of a connect started now ({@code WEFT_CONNECT_TIMEOUT}). */
    static long deadline(final Config config) {
        return System.nanoTime() + Math.max(1_000_000L, config.get(CONNECT_TIMEOUT));
    }

    /**
     * Runs the client side (blocking until {@code deadline}; the socket is non-blocking underneath).
     *
     * @throws WeftException UNREACHABLE (nothing listens, or not a weft listener), REJECTED (job secret),
     *     TIMED_OUT, CANCELED (by {@code cancel})
     */
    static Client connect(final InetSocketAddress server, final byte[] localAddress, final long sn,
                          final long clientId, final Config config, final long deadline, final Cancel cancel) {
        final byte[] key = key(config);
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            if (!ch.connect(server)) {
                while (!ch.finishConnect()) {
                    waitOrTimeout(deadline, server, "connecting", cancel);
                }
            }
            final ByteBuffer hello = le(HELLO);
            readFully(ch, hello, deadline, server, cancel);
            hello.flip();
            if (hello.getLong() != MAGIC || (hello.getShort() & 0xffff) != VERSION) {
                throw new WeftException(Status.UNREACHABLE, "connect to " + server + ": not a weft listener "
                    + "(or another version)");
            }
            hello.getShort();
            hello.getInt();
            final byte[] nonce = new byte[NONCE];
            hello.get(nonce);
            final byte[] macC = mac(key, (byte) 'C', nonce, le128(sn, clientId), localAddress);
            final ByteBuffer req = le(REQUEST_FIXED + localAddress.length).putLong(MAGIC).putShort((short) VERSION)
                .putShort((short) 0).putInt(localAddress.length).putLong(sn).putLong(clientId).put(macC)
                .put(localAddress);
            req.flip();
            while (req.hasRemaining()) {
                if (ch.write(req) == 0) {
                    waitOrTimeout(deadline, server, "sending the request", cancel);
                }
            }
            final ByteBuffer rep = le(REPLY_FIXED);
            readFully(ch, rep, deadline, server, cancel);
            rep.flip();
            final int result = rep.get() & 0xff;
            rep.get();
            rep.getShort();
            final int len = rep.getInt();
            final byte[] macS = new byte[32];
            rep.get(macS);
            if (result == RESULT_BAD_SECRET) {
                throw new WeftException(Status.REJECTED, "connect to " + server + ": refused, the job secret "
                    + "(WEFT_JOB_SECRET) differs from the listener's");
            }
            if (result != RESULT_OK || len <= 0 || len > MAX_ADDRESS) {
                throw new WeftException(Status.REJECTED, "connect to " + server + ": the listener refused the "
                    + "request as malformed (result " + result + ")");
            }
            final ByteBuffer addr = ByteBuffer.allocate(len);
            readFully(ch, addr, deadline, server, cancel);
            final byte[] remoteAddr = addr.array();
            if (!MessageDigest.isEqual(macS, mac(key, (byte) 'S', nonce, macC, remoteAddr))) {
                throw new WeftException(Status.REJECTED, "connect to " + server + ": the listener could not prove "
                    + "it knows the job secret (WEFT_JOB_SECRET)");
            }
            final WorkerAddress remote = WorkerAddress.unpack(remoteAddr);
            final Client c = new Client(ch, remote, deadline, server, key, nonce, macC);
            ch = null;
            return c;
        } catch (final IOException e) {
            throw new WeftException(Status.UNREACHABLE, "connect to " + server + ": " + e.getMessage(), e);
        } finally {
            if (ch != null) {
                try {
                    ch.close();
                } catch (final IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "closing the handshake socket: " + e);
                }
            }
        }
    }

    private static void readFully(final SocketChannel ch, final ByteBuffer b, final long deadline,
                                  final InetSocketAddress server, final Cancel cancel) throws IOException {
        while (b.hasRemaining()) {
            final int n = ch.read(b);
            if (n < 0) {
                throw new WeftException(Status.REJECTED, "connect to " + server + ": the listener closed the "
                    + "connection during the handshake");
            }
            if (n == 0) {
                waitOrTimeout(deadline, server, "waiting for the listener", cancel);
            }
        }
    }

    private static void waitOrTimeout(final long deadline, final InetSocketAddress server, final String what,
                                      final Cancel cancel) {
        if (cancel != null && cancel.canceled) {
            throw new WeftException(Status.CANCELED, "connect to " + server + ": canceled " + what);
        }
        if (System.nanoTime() - deadline > 0) {
            throw new WeftException(Status.TIMED_OUT, "connect to " + server + ": timed out " + what);
        }
        LockSupport.parkNanos(50_000); // the handshake is a few round trips: poll gently, bounded
    }
}
