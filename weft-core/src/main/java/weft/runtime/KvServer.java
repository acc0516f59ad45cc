package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The launcher's side of the bootstrap: a key-value service for the PEs of one job (the PMI
 * model). Each PE connects once, authenticates with the job secret ({@link KvProtocol}), commits
 * its key-value pairs, meets the others in fences and reads their values.
 *
 * <p>It is bootstrap, not the data path: blocking {@code java.net} sockets and one thread per PE
 * are fine. Failures are sticky and reported to every PE that waits: a PE whose connection drops
 * before it finalized fails the job ("rank 3 disconnected ... it exited or died"), and a fence
 * that does not complete within the timeout names the ranks that never connected and those that
 * did not reach the fence. {@link #abort} tells every PE to exit (the launcher calls it when a PE
 * crashed).
 */
public final class KvServer implements AutoCloseable {
    private static final int HANDSHAKE_TIMEOUT_MS = 10_000;

    private final int size;
    private final String secret;
    private final long fenceTimeoutNs;
    private final Consumer<String> log;
    private final ServerSocket server;
    private final Thread acceptor;

    // All below guarded by 'this'.
    private final List<Map<String, byte[]>> store;
    private final Session[] sessions;
    private final boolean[] everConnected;
    private final boolean[] finalized;
    private final boolean[] arrived;
    private final List<Socket> sockets = new ArrayList<>();
    private int arrivedCount;
    private long generation;
    private String failure;
    private String abortReason;
    private int abortStatus;
    private Integer exitStatus;
    private final boolean[] exiting;
    /** How long a global exit waits for the other PEs to disconnect before it lets its caller go. */
    static final long EXIT_WAIT_NS = TimeUnit.SECONDS.toNanos(10);
    private boolean closed;

    private KvServer(final int size, final String secret, final long fenceTimeoutNs, final Consumer<String> log,
                     final ServerSocket server) {
        this.size = size;
        this.secret = secret;
        this.fenceTimeoutNs = fenceTimeoutNs;
        this.log = log;
        this.server = server;
        store = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            store.add(new HashMap<>());
        }
        sessions = new Session[size];
        everConnected = new boolean[size];
        finalized = new boolean[size];
        exiting = new boolean[size];
        arrived = new boolean[size];
        acceptor = Thread.ofPlatform().daemon().name("weft-kv-accept").unstarted(this::acceptLoop);
    }

    /**
     * Listens on {@code bind} and serves a job of {@code size} PEs.
     *
     * @param secret         the job secret every PE must prove it knows
     * @param fenceTimeoutNs how long a fence may wait for the last rank before the job fails
     * @param log            receives one-line notices (refused connections, failures)
     * @throws WeftException with a clear message if the port is in use or the address invalid
     */
    public static KvServer start(final int size, final String secret, final InetSocketAddress bind,
                                 final long fenceTimeoutNs, final Consumer<String> log) {
        if (size < 1) {
            throw new WeftException(Status.INVALID_PARAM, "a job needs at least one PE, got " + size);
        }
        if (secret == null || secret.isEmpty()) {
            throw new WeftException(Status.INVALID_PARAM, "the key-value service needs a non-empty job secret");
        }
        final ServerSocket ss;
        try {
            ss = new ServerSocket();
        } catch (final IOException e) {
            throw new WeftException(Status.IO_ERROR, "cannot create the key-value service socket: " + e.getMessage(), e);
        }
        try {
            ss.bind(bind, Math.max(128, size));
        } catch (final BindException e) {
            closeQuietly(ss);
            throw new WeftException(Status.IO_ERROR, "cannot listen on " + describe(bind) + " for the key-value "
                + "service: " + e.getMessage() + (bind.getPort() != 0 ? " (is the port in use? choose another "
                + "with --port, or 0 for any free port)" : ""), e);
        } catch (final IOException | IllegalArgumentException e) {
            closeQuietly(ss);
            throw new WeftException(Status.IO_ERROR, "cannot listen on " + describe(bind) + " for the key-value "
                + "service: " + e.getMessage(), e);
        }
        final KvServer s = new KvServer(size, secret, fenceTimeoutNs, log, ss);
        s.acceptor.start();
        return s;
    }

    private static String describe(final InetSocketAddress a) {
        return (a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":" + a.getPort();
    }

    /** The port the service listens on (useful with port 0). */
    public int port() {
        return server.getLocalPort();
    }

    /** True once {@code rank} has connected and authenticated. */
    public synchronized boolean hasConnected(final int rank) {
        return everConnected[rank];
    }

    /** True once {@code rank} has left the job cleanly. */
    public synchronized boolean hasFinalized(final int rank) {
        return finalized[rank];
    }

    /** The sticky job failure seen by the service, or null. */
    public synchronized String failure() {
        return failure;
    }

    /** {@link #abort(int, String)} with status 1. */
    public void abort(final String reason) {
        abort(1, reason);
    }

    /**
     * Fails the job: every waiting fence returns an error, and every connected PE (and any that
     * connects later) is told to exit with {@code status} (MPI_Abort's code, or the first failed PE's), giving
     * {@code reason}.
     */
    public void abort(final int status, final String reason) {
        final List<Session> targets = new ArrayList<>();
        synchronized (this) {
            if (abortReason != null) {
                return;
            }
            abortReason = reason;
            abortStatus = status;
            if (failure == null) {
                failure = "job aborted: " + reason; // the caller reports the reason itself: not logged
            }
            notifyAll();
            for (int r = 0; r < size; r++) {
                if (sessions[r] != null && !finalized[r]) {
                    targets.add(sessions[r]);
                }
            }
        }
        for (final Session s : targets) {
            s.sendQuietly(KvProtocol.ABORT, KvProtocol.abort(status, reason));
        }
    }

    private void acceptLoop() {
        while (true) {
            final Socket socket;
            try {
                socket = server.accept();
            } catch (final IOException e) {
                return; // closed
            }
            synchronized (this) {
                if (closed) {
                    closeQuietly(socket);
                    return;
                }
                sockets.add(socket);
            }
            Thread.ofPlatform().daemon().name("weft-kv-" + socket.getRemoteSocketAddress())
                .start(() -> serve(socket));
        }
    }

    private void serve(final Socket socket) {
        final String peer = String.valueOf(socket.getRemoteSocketAddress());
        int rank = -1;
        try (socket) {
            socket.setTcpNoDelay(true);
            final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            final Session session = new Session(out);
            socket.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
            rank = handshake(in, session, peer);
            if (rank < 0) {
                return;
            }
            socket.setSoTimeout(0); // a PE may compute for long between requests
            requests(rank, in, session);
        } catch (final SocketTimeoutException e) {
            log.accept("key-value service: " + peer + " did not authenticate within "
                + HANDSHAKE_TIMEOUT_MS / 1000 + " s; dropped");
        } catch (final IOException | RuntimeException e) {
            if (e instanceof RuntimeException) { // a bug here, not the peer's bytes: say what it was
                log.accept("key-value service: internal error serving " + peer + ": " + e);
            }
            if (rank >= 0) {
                lost(rank, e);
            } else if (!isClosed()) {
                log.accept("key-value service: connection from " + peer + " failed during authentication: " + e);
            }
        }
    }

    /** Returns the authenticated rank, or -1 after refusing the peer. */
    private int handshake(final DataInputStream in, final Session session, final String peer) throws IOException {
        final byte[] serverNonce = KvProtocol.nonce();
        session.send(KvProtocol.HELLO, ByteBuffer.allocate(8 + KvProtocol.NONCE_BYTES)
            .putLong(KvProtocol.MAGIC).put(serverNonce).array());
        final KvProtocol.Frame f = KvProtocol.read(in);
        final ByteBuffer b = f.buffer();
        if (f.type() != KvProtocol.AUTH || b.remaining() != 4 + KvProtocol.NONCE_BYTES + KvProtocol.MAC_BYTES) {
            log.accept("key-value service: refused " + peer + ": not a Weft PE (bad first message)");
            session.send(KvProtocol.ERROR, "protocol error: expected an authentication message");
            return -1;
        }
        final int rank = b.getInt();
        final byte[] clientNonce = new byte[KvProtocol.NONCE_BYTES];
        b.get(clientNonce);
        final byte[] mac = new byte[KvProtocol.MAC_BYTES];
        b.get(mac);
        // Constant-time comparison: the mismatch position must not leak through timing.
        if (!MessageDigest.isEqual(mac, KvProtocol.mac(secret, "pe", serverNonce, clientNonce, rank))) {
            // Logged before the answer, so the refusal is on record when the PE learns of it.
            log.accept("key-value service: refused a connection from " + peer + ": wrong job secret");
            session.send(KvProtocol.ERROR, "authentication failed: wrong job secret (WEFT_JOB_SECRET does not "
                + "match the launcher's)");
            return -1;
        }
        final String refusal;
        final String abort;
        final int abortCode;
        synchronized (this) {
            if (rank < 0 || rank >= size) {
                refusal = "rank " + rank + " is outside the job (size " + size + ")";
            } else if (everConnected[rank]) {
                refusal = "rank " + rank + " is already connected (two PEs with the same WEFT_RANK?)";
            } else {
                refusal = null;
                everConnected[rank] = true;
                sessions[rank] = session;
            }
            abort = abortReason;
            abortCode = abortStatus;
        }
        if (refusal != null) {
            log.accept("key-value service: refused " + peer + ": " + refusal);
            session.send(KvProtocol.ERROR, refusal);
            return -1;
        }
        session.send(KvProtocol.WELCOME, KvProtocol.mac(secret, "kv", serverNonce, clientNonce, rank));
        if (abort != null) {
            session.sendQuietly(KvProtocol.ABORT, KvProtocol.abort(abortCode, abort));
        }
        return rank;
    }

    private void requests(final int rank, final DataInputStream in, final Session session) throws IOException {
        while (true) {
            final KvProtocol.Frame f;
            try {
                f = KvProtocol.read(in);
            } catch (final EOFException e) {
                lost(rank, e);
                return;
            }
            try {
                switch (f.type()) {
                    case KvProtocol.COMMIT -> {
                        commit(rank, f.buffer());
                        session.send(KvProtocol.OK);
                    }
                    case KvProtocol.FENCE -> {
                        final String err = fence(rank);
                        if (err == null) {
                            session.send(KvProtocol.OK);
                        } else {
                            session.send(KvProtocol.ERROR, err);
                        }
                    }
                    case KvProtocol.GET -> get(f.buffer(), session);
                    case KvProtocol.EXIT -> {
                        globalExit(rank, f.payload());
                        session.send(KvProtocol.OK);
                    }
                    case KvProtocol.ABORT -> {
                        abort(KvProtocol.abortStatus(f.payload(), 1), "rank " + rank + " aborted the job: "
                            + KvProtocol.abortReason(f.payload()));
                        return;
                    }
                    case KvProtocol.EXITING -> {
                        synchronized (this) {
                            exiting[rank] = true;
                            notifyAll();
                        }
                    }
                    case KvProtocol.FINALIZE -> {
                        synchronized (this) {
                            finalized[rank] = true;
                        }
                        session.send(KvProtocol.OK);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown request type " + f.type());
                }
            } catch (final BufferUnderflowException | IllegalArgumentException e) {
                session.send(KvProtocol.ERROR, "malformed request from rank " + rank + ": " + e.getMessage());
                throw new IOException("malformed request: " + e.getMessage(), e);
            }
        }
    }

    /**
     * A PE ends the job with a status of its choosing: every other PE is told to exit with it, and
     * {@link #globalExitStatus()} reports it to the launcher (which exits with it, 0 included). Two phases:
     * EXIT to every other PE, which answers EXITING once it knows (from then on a failure it meets is the
     * global exit, not an error of its own); when all did (at most {@link #EXIT_WAIT_NS}), GO to them and
     * OK to the caller, and everybody exits. So no PE sees another gone before it knows why.
     */
    private void globalExit(final int rank, final byte[] payload) throws IOException {
        final int status = ByteBuffer.wrap(payload).getInt();
        final List<Session> targets = new ArrayList<>();
        synchronized (this) {
            if (exitStatus != null) {
                return; // a second PE's global exit: the first decides
            }
            exitStatus = status;
            finalized[rank] = true; // it leaves on purpose: its disconnection is no failure
            for (int r = 0; r < size; r++) {
                if (r != rank && sessions[r] != null && !finalized[r]) {
                    targets.add(sessions[r]);
                }
            }
        }
        for (final Session s : targets) {
            s.sendQuietly(KvProtocol.EXIT, payload);
        }
        awaitExiting(rank);
        for (final Session s : targets) {
            s.sendQuietly(KvProtocol.GO, new byte[0]);
        }
    }

    private void awaitExiting(final int rank) throws IOException {
        final long deadline = System.nanoTime() + EXIT_WAIT_NS;
        synchronized (this) {
            for (int r = 0; r < size; r++) {
                while (r != rank && sessions[r] != null && !finalized[r] && !exiting[r] && !closed) {
                    final long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    try {
                        wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
                    } catch (final InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted", e);
                    }
                }
            }
        }
    }

    /** The status a PE ended the job with ({@code shmem_global_exit}), or null if none did. */
    public synchronized Integer globalExitStatus() {
        return exitStatus;
    }

    private void commit(final int rank, final ByteBuffer b) {
        final int n = b.getInt();
        if (n < 0) {
            throw new IllegalArgumentException("negative count");
        }
        final Map<String, byte[]> batch = new HashMap<>();
        for (int i = 0; i < n; i++) {
            final String key = KvProtocol.readKey(b);
            final int vlen = b.getInt();
            if (vlen < 0 || vlen > b.remaining()) {
                throw new IllegalArgumentException("bad value length " + vlen);
            }
            final byte[] v = new byte[vlen];
            b.get(v);
            batch.put(key, v);
        }
        synchronized (this) {
            store.get(rank).putAll(batch);
        }
    }

    /** How many keys the store holds over all ranks (tests: the store must not grow with repeated calls). */
    synchronized int keyCount() {
        int n = 0;
        for (final Map<String, byte[]> m : store) {
            n += m.size();
        }
        return n;
    }

    private void get(final ByteBuffer b, final Session session) throws IOException {
        final int rank = b.getInt();
        final String key = KvProtocol.readKey(b);
        if (rank < 0 || rank >= size) {
            session.send(KvProtocol.ERROR, "rank " + rank + " is outside the job (size " + size + ")");
            return;
        }
        final byte[] v;
        synchronized (this) {
            v = store.get(rank).get(key);
        }
        if (v == null) {
            session.send(KvProtocol.MISSING);
        } else {
            session.send(KvProtocol.VALUE, v);
        }
    }

    /** Waits until every rank entered this fence; returns null, or the job failure. */
    private synchronized String fence(final int rank) {
        if (failure != null) {
            return failure;
        }
        if (arrived[rank]) {
            return "rank " + rank + " entered a fence twice";
        }
        arrived[rank] = true;
        final long myGeneration = generation;
        if (++arrivedCount == size) {
            nextGeneration();
            return null;
        }
        final long deadline = System.nanoTime() + fenceTimeoutNs;
        while (generation == myGeneration && failure == null) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail(describeTimeout());
                break;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("the key-value service was interrupted");
            }
        }
        return generation != myGeneration ? null : failure;
    }

    private void nextGeneration() {
        java.util.Arrays.fill(arrived, false);
        arrivedCount = 0;
        generation++;
        notifyAll();
    }

    private String describeTimeout() {
        final List<Integer> never = new ArrayList<>();
        final List<Integer> absent = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (!everConnected[r]) {
                never.add(r);
            } else if (!arrived[r]) {
                absent.add(r);
            }
        }
        final StringBuilder sb = new StringBuilder("fence timed out after ")
            .append(TimeUnit.NANOSECONDS.toMillis(fenceTimeoutNs) / 1000.0).append(" s (WEFT_BOOTSTRAP_TIMEOUT):");
        if (!never.isEmpty()) {
            sb.append(" rank(s) ").append(never).append(" never connected to the bootstrap service");
        }
        if (!absent.isEmpty()) {
            sb.append(never.isEmpty() ? "" : ";").append(" rank(s) ").append(absent)
                .append(" connected but did not reach the fence");
        }
        return sb.toString();
    }

    private synchronized void fail(final String why) {
        if (failure == null) {
            failure = why;
            log.accept("key-value service: " + why);
        }
        notifyAll();
    }

    private void lost(final int rank, final Exception e) {
        synchronized (this) {
            if (exitStatus != null) {
                sessions[rank] = null; // after a global exit every PE leaves without finalizing
                notifyAll();
                return;
            }
            if (finalized[rank] || closed) {
                return;
            }
            sessions[rank] = null;
            fail("rank " + rank + " disconnected from the bootstrap service without finalizing (it exited or "
                + "died" + (e instanceof EOFException || e.getMessage() == null ? ")" : ": " + e.getMessage() + ")"));
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    /** Stops listening and drops every connection. */
    @Override
    public void close() {
        final List<Socket> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(sockets);
            notifyAll();
        }
        closeQuietly(server);
        for (final Socket s : toClose) {
            closeQuietly(s);
        }
        try {
            acceptor.join(TimeUnit.SECONDS.toMillis(5));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(final AutoCloseable c) {
        try {
            c.close();
        } catch (final Exception ignored) {
            // closing on shutdown or after an error that is already being reported
        }
    }

    /** The sending half of one PE's connection; writes come from its thread and from abort. */
    private static final class Session {
        private final DataOutputStream out;

        Session(final DataOutputStream out) {
            this.out = out;
        }

        synchronized void send(final byte type, final byte[] payload) throws IOException {
            KvProtocol.write(out, type, payload);
        }

        synchronized void send(final byte type) throws IOException {
            KvProtocol.write(out, type);
        }

        synchronized void send(final byte type, final String text) throws IOException {
            KvProtocol.writeText(out, type, text);
        }

        void sendQuietly(final byte type, final byte[] payload) {
            try {
                send(type, payload);
            } catch (final IOException ignored) {
                // the PE is gone already: nothing to tell it
            }
        }

        void sendQuietly(final byte type, final String text) {
            try {
                send(type, text);
            } catch (final IOException ignored) {
                // the PE is gone already: nothing to tell it
            }
        }
    }
}
