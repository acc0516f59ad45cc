package weft.runtime;

import weft.ucs.BlockedProgress;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The PE side of the {@code weft run} launcher's key-value service ({@link KvServer},
 * {@link KvProtocol}). One TCP connection, requests answered in order; a reader thread takes the
 * answers, so that an ABORT from the launcher (another PE crashed) or the loss of the launcher
 * is noticed even while the program computes: the PE then exits instead of living on as an
 * orphan (unless {@code exitOnAbort} is false, as in tests, where the next call fails instead).
 */
final class TcpBootstrap implements Bootstrap {
    /** Extra wait for a fence answer: the service reports the missing ranks when its own timeout ends. */
    private static final long FENCE_GRACE_NS = TimeUnit.SECONDS.toNanos(5);
    /** Exit status of a PE told by the launcher that the job failed elsewhere. */
    static final int ABORT_EXIT_STATUS = 1;
    /** Local marker (never on the wire): the connection ended while this side was closing. */
    private static final KvProtocol.Frame LOST = new KvProtocol.Frame((byte) 0, new byte[0]);

    private final JobLayout layout;
    /** This node's PEs outnumber its CPUs (see {@link ProgressBackoff}). */
    private final boolean crowded;
    private final int rank;
    private final String address;
    private final long timeoutNs;
    private final boolean exitOnAbort;
    private final Socket socket;
    private final DataOutputStream out;
    private final LinkedBlockingQueue<KvProtocol.Frame> answers = new LinkedBlockingQueue<>();
    private final Map<String, byte[]> pending = new LinkedHashMap<>();
    private final Map<String, byte[]> own = new HashMap<>();
    private final Thread reader;
    private volatile String abortReason;
    private volatile Integer globalStatus;
    private volatile boolean closing;
    private boolean closed;

    private TcpBootstrap(final JobLayout layout, final String address, final long timeoutNs, final boolean exitOnAbort,
                         final Socket socket, final DataInputStream in, final DataOutputStream out) {
        this.layout = layout;
        this.crowded = weft.ucs.Cpus.oversubscribed(layout.localSize());
        this.rank = layout.rank();
        this.address = address;
        this.timeoutNs = timeoutNs;
        this.exitOnAbort = exitOnAbort;
        this.socket = socket;
        this.out = out;
        reader = Thread.ofPlatform().daemon().name("weft-bootstrap-reader").unstarted(() -> readLoop(in));
    }

    /**
     * Connects to the service at {@code hostPort} and authenticates as {@code rank}.
     *
     * @throws WeftException with a clear message on a wrong secret, an unknown host, or no
     *                       service answering within the timeout
     */
    static TcpBootstrap connect(final String hostPort, final String secret, final JobLayout layout,
                                final long timeoutNs, final boolean exitOnAbort) {
        final int rank = layout.rank();
        final int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new WeftException(Status.INVALID_PARAM, "invalid " + LaunchEnv.KV_ADDRESS + "='" + hostPort
                + "': expected host:port");
        }
        final String host = hostPort.substring(0, colon);
        final int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (final NumberFormatException e) {
            throw new WeftException(Status.INVALID_PARAM, "invalid port in " + LaunchEnv.KV_ADDRESS + "='"
                + hostPort + "'");
        }
        final Socket s = open(host, port, timeoutNs);
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNs))));
            final DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            authenticate(in, out, secret, rank, hostPort);
            s.setSoTimeout(0); // from here the reader thread waits, and callers wait with deadlines
            final TcpBootstrap b = new TcpBootstrap(layout, hostPort, timeoutNs, exitOnAbort, s, in, out);
            b.reader.start();
            return b;
        } catch (final IOException e) {
            closeQuietly(s);
            throw new WeftException(Status.IO_ERROR, "bootstrap: lost the launcher's key-value service at "
                + hostPort + " during authentication: " + e.getMessage(), e);
        } catch (final RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    private static Socket open(final String host, final int port, final long timeoutNs) {
        final long deadline = System.nanoTime() + timeoutNs;
        IOException last;
        do {
            final Socket s = new Socket();
            try {
                final InetSocketAddress a = new InetSocketAddress(host, port);
                if (a.isUnresolved()) {
                    throw new UnknownHostException(host);
                }
                s.connect(a, (int) Math.max(1, Math.min(10_000, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
                return s;
            } catch (final UnknownHostException e) {
                closeQuietly(s);
                throw new WeftException(Status.UNREACHABLE, "bootstrap: unknown host '" + host + "' in "
                    + LaunchEnv.KV_ADDRESS, e);
            } catch (final IOException e) {
                closeQuietly(s);
                last = e;
            }
            // The launcher listens before it starts any PE, so a refusal means it is gone or
            // unreachable: retry briefly (a route may still be coming up), then report.
            try {
                Thread.sleep(100);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WeftException(Status.CANCELED, "bootstrap: interrupted while connecting to " + host
                    + ":" + port, e);
            }
        } while (System.nanoTime() < deadline);
        throw new WeftException(Status.UNREACHABLE, "bootstrap: cannot reach the launcher's key-value service at "
            + host + ":" + port + " within " + seconds(timeoutNs) + " s: " + last.getMessage()
            + " (has the launcher exited?)", last);
    }

    private static void authenticate(final DataInputStream in, final DataOutputStream out, final String secret,
                                     final int rank, final String where) throws IOException {
        final KvProtocol.Frame hello = KvProtocol.read(in);
        final ByteBuffer h = hello.buffer();
        if (hello.type() == KvProtocol.ERROR) {
            throw new WeftException(Status.REJECTED, "bootstrap: the key-value service at " + where
                + " refused the connection: " + hello.text());
        }
        if (hello.type() != KvProtocol.HELLO || h.remaining() != 8 + KvProtocol.NONCE_BYTES
            || h.getLong() != KvProtocol.MAGIC) {
            throw new WeftException(Status.REJECTED, "bootstrap: " + where + " is not a Weft key-value service "
                + "(unexpected greeting)");
        }
        final byte[] serverNonce = new byte[KvProtocol.NONCE_BYTES];
        h.get(serverNonce);
        final byte[] clientNonce = KvProtocol.nonce();
        KvProtocol.write(out, KvProtocol.AUTH, ByteBuffer.allocate(4 + KvProtocol.NONCE_BYTES + KvProtocol.MAC_BYTES)
            .putInt(rank).put(clientNonce).put(KvProtocol.mac(secret, "pe", serverNonce, clientNonce, rank)).array());
        final KvProtocol.Frame answer = KvProtocol.read(in);
        if (answer.type() == KvProtocol.ERROR) {
            throw new WeftException(Status.REJECTED, "bootstrap: the key-value service at " + where
                + " refused rank " + rank + ": " + answer.text());
        }
        if (answer.type() != KvProtocol.WELCOME || !MessageDigest.isEqual(answer.payload(),
            KvProtocol.mac(secret, "kv", serverNonce, clientNonce, rank))) {
            throw new WeftException(Status.REJECTED, "bootstrap: the service at " + where + " could not prove it "
                + "knows the job secret: it is not this job's launcher");
        }
    }

    private void readLoop(final DataInputStream in) {
        String lost;
        try {
            while (true) {
                final KvProtocol.Frame f = KvProtocol.read(in);
                if (f.type() == KvProtocol.ABORT) {
                    onAbort("job aborted by the launcher: " + KvProtocol.abortReason(f.payload()),
                        KvProtocol.abortStatus(f.payload(), ABORT_EXIT_STATUS));
                } else if (f.type() == KvProtocol.EXIT) {
                    onExit(f.buffer().getInt());
                } else if (f.type() == KvProtocol.GO) {
                    if (exitOnAbort) {
                        System.exit(globalStatus);
                    }
                } else {
                    answers.add(f);
                }
            }
        } catch (final IOException e) {
            lost = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        if (!closing) {
            onAbort("lost the connection to the launcher's key-value service at " + address + " (" + lost
                + "): the launcher exited or was killed", ABORT_EXIT_STATUS);
        } else {
            answers.add(LOST); // wakes a FINALIZE that will get no answer
        }
    }

    /**
     * Another PE ended the job with {@code status} (global exit): from now on a failure this PE meets is
     * that exit ({@link #globalExitStatus()}); it says EXITING and exits with the status at GO.
     */
    private void onExit(final int status) {
        if (abortReason != null) {
            return;
        }
        globalStatus = status;
        abortReason = "another PE ended the job (global exit, status " + status + ")";
        answers.add(new KvProtocol.Frame(KvProtocol.ABORT, new byte[0])); // wakes a waiting caller
        try {
            synchronized (out) {
                KvProtocol.write(out, KvProtocol.EXITING);
            }
        } catch (final IOException e) {
            // the service is gone: the launcher stops this PE
        }
        closing = true;
    }

    @Override
    public Integer globalExitStatus() {
        return abortReason == null ? null : globalStatus;
    }

    /** The job failed: exits with {@code status} (the job's, when in 1..255; else {@value #ABORT_EXIT_STATUS}). */
    private void onAbort(final String reason, final int status) {
        if (abortReason != null) {
            return;
        }
        // set first: a caller woken below that fails, and the uncaught-exception handler its failure reaches,
        // must exit with the job's status too, not 1 (whichever System.exit comes first decides)
        globalStatus = status > 0 && status < 256 ? status : ABORT_EXIT_STATUS;
        abortReason = reason;
        answers.add(new KvProtocol.Frame(KvProtocol.ABORT, new byte[0])); // wakes a waiting caller
        if (exitOnAbort) {
            System.err.println("weft: rank " + rank + ": " + reason + "; exiting");
            System.err.flush();
            System.exit(status > 0 && status < 256 ? status : ABORT_EXIT_STATUS);
        }
    }

    /** Sends one request and waits for its answer (or an abort) until the deadline. */
    private KvProtocol.Frame call(final byte type, final byte[] payload, final long waitNs, final String what) {
        checkOpen();
        try {
            synchronized (out) {
                KvProtocol.write(out, type, payload);
            }
        } catch (final IOException e) {
            throw failure(what, "cannot send: " + e.getMessage(), e);
        }
        final KvProtocol.Frame f;
        try {
            f = awaitAnswer(waitNs);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WeftException(Status.CANCELED, "bootstrap " + what + " interrupted", e);
        }
        if (f == null) {
            throw new WeftException(Status.TIMED_OUT, "bootstrap " + what + ": no answer from the launcher's "
                + "key-value service at " + address + " within " + seconds(waitNs) + " s (WEFT_BOOTSTRAP_TIMEOUT)");
        }
        if (f.type() == KvProtocol.ABORT) {
            throw failure(what, abortReason, null);
        }
        if (f == LOST) {
            throw failure(what, "the launcher's key-value service closed the connection", null);
        }
        if (f.type() == KvProtocol.ERROR) {
            throw new WeftException(Status.IO_ERROR, "bootstrap " + what + " failed (rank " + rank + "): " + f.text());
        }
        return f;
    }

    /**
     * The next answer, or null after {@code waitNs}. While it waits, this thread's workers progress
     * ({@link BlockedProgress}): a peer may need them to finish what it does before it reaches the same
     * barrier. Polls start at 20 us and back off while nothing happens ({@link ProgressBackoff}).
     */
    private KvProtocol.Frame awaitAnswer(final long waitNs) throws InterruptedException {
        if (!BlockedProgress.any()) {
            return answers.poll(waitNs, TimeUnit.NANOSECONDS);
        }
        final long deadline = System.nanoTime() + waitNs;
        final ProgressBackoff backoff = new ProgressBackoff(crowded);
        while (true) {
            final KvProtocol.Frame f = answers.poll();
            if (f != null) {
                return f;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            if (BlockedProgress.run() > 0) {
                backoff.reset();
                continue;
            }
            final KvProtocol.Frame g = answers.poll(backoff.next(left), TimeUnit.NANOSECONDS);
            if (g != null) {
                return g;
            }
        }
    }

    private WeftException failure(final String what, final String why, final Throwable cause) {
        return new WeftException(Status.CONNECTION_RESET, "bootstrap " + what + " failed (rank " + rank + "): " + why,
            cause);
    }

    private void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "bootstrap is closed");
        }
        if (abortReason != null) {
            throw failure("call", abortReason, null);
        }
    }

    @Override
    public String name() {
        return "launcher";
    }

    @Override
    public JobLayout layout() {
        return layout;
    }

    @Override
    public boolean overwritesKeys() {
        return true;
    }

    @Override
    public void put(final String key, final byte[] value) {
        KvProtocol.keyBytes(key);
        checkOpen();
        final byte[] copy = value.clone();
        pending.put(key, copy);
        own.put(key, copy);
    }

    @Override
    public void commit() {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream d = new DataOutputStream(bytes);
        try {
            d.writeInt(pending.size());
            for (final Map.Entry<String, byte[]> e : pending.entrySet()) {
                final byte[] k = KvProtocol.keyBytes(e.getKey());
                d.writeShort(k.length);
                d.write(k);
                d.writeInt(e.getValue().length);
                d.write(e.getValue());
            }
        } catch (final IOException e) {
            throw new IllegalStateException(e); // in-memory stream
        }
        if (bytes.size() + 1 > KvProtocol.MAX_FRAME) {
            throw new WeftException(Status.INVALID_PARAM, "bootstrap commit of " + bytes.size() + " bytes exceeds "
                + "the limit of " + KvProtocol.MAX_FRAME + " bytes");
        }
        call(KvProtocol.COMMIT, bytes.toByteArray(), timeoutNs, "commit");
        pending.clear();
    }

    @Override
    public void fence() {
        call(KvProtocol.FENCE, new byte[0], timeoutNs + FENCE_GRACE_NS, "fence");
    }

    @Override
    public byte[] get(final int fromRank, final String key) {
        if (fromRank < 0 || fromRank >= layout.size()) {
            throw new WeftException(Status.INVALID_PARAM, "rank " + fromRank + " is outside the job (size "
                + layout.size() + ")");
        }
        if (fromRank == rank) {
            final byte[] v = own.get(key);
            if (v == null) {
                throw missing(fromRank, key);
            }
            return v.clone();
        }
        final KvProtocol.Frame f = call(KvProtocol.GET, KvProtocol.getRequest(fromRank, key), timeoutNs, "get");
        if (f.type() == KvProtocol.MISSING) {
            throw missing(fromRank, key);
        }
        if (f.type() != KvProtocol.VALUE) {
            throw new WeftException(Status.IO_ERROR, "bootstrap get: unexpected answer type " + f.type());
        }
        return f.payload();
    }

    static WeftException missing(final int rank, final String key) {
        return new WeftException(Status.NO_ELEMENT, "rank " + rank + " has no value for key '" + key
            + "' (not put, or not committed before the last fence)");
    }

    /**
     * Leaves without FINALIZE: the service then fails the fences that wait for this rank, and the launcher,
     * seeing this process exit with a non-zero status, stops the others.
     */
    @Override
    public void abort(final int status, final String reason) {
        if (closed || abortReason != null) {
            return;
        }
        closing = true; // the reader's end of stream is expected now: no second abort from it
        abortReason = "this PE aborted the job (status " + status + "): " + reason;
        try {
            synchronized (out) { // the service tells the other PEs to exit with the status before they see us gone
                KvProtocol.write(out, KvProtocol.ABORT, KvProtocol.abort(status, reason));
            }
        } catch (final IOException e) {
            // the service is gone already: the launcher sees this PE's exit status instead
        }
        closeQuietly(socket);
    }

    /**
     * Sends EXIT and waits for the service's OK (so the launcher knows the status before this process is
     * gone), then leaves without FINALIZE; the service has told every other PE to exit with {@code status}.
     */
    @Override
    public void globalExit(final int status, final String reason) {
        if (closed || abortReason != null) {
            return;
        }
        final byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        try {
            call(KvProtocol.EXIT, ByteBuffer.allocate(4 + text.length).putInt(status).put(text).array(),
                Math.min(timeoutNs, KvServer.EXIT_WAIT_NS + TimeUnit.SECONDS.toNanos(5)), "global exit");
        } finally {
            closing = true;
            abortReason = "this PE ended the job (global exit, status " + status + ")";
            closeQuietly(socket);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            if (abortReason == null) {
                closing = true;
                call(KvProtocol.FINALIZE, new byte[0], timeoutNs, "finalize");
            }
        } catch (final WeftException e) {
            // The service is gone (the launcher ended): there is nothing left to leave cleanly.
            if (e.status() != Status.CONNECTION_RESET) {
                throw e;
            }
        } finally {
            closing = true;
            closed = true;
            closeQuietly(socket);
            try {
                reader.join(1000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long seconds(final long ns) {
        return TimeUnit.NANOSECONDS.toSeconds(ns);
    }

    private static void closeQuietly(final Socket s) {
        try {
            s.close();
        } catch (final IOException ignored) {
            // nothing left to do with a socket that fails to close
        }
    }
}
