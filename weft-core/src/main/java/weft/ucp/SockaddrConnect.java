package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.net.InetSocketAddress;
import java.util.ArrayList;

/**
 * One connect to a {@link Listener} by socket address ({@link Worker#connect(InetSocketAddress)}), whose
 * endpoint is returned before the connection exists. The handshake ({@link SockaddrHandshake}) runs on a
 * thread of its own, never on the worker's; {@link Lifecycle} fails the endpoint from progress if it fails
 * (refused: UNREACHABLE; wrong secret: REJECTED; {@code WEFT_CONNECT_TIMEOUT}: TIMED_OUT), else waits for the
 * server's decision on the same socket, and binds the endpoint to the worker that accepted (the listener's
 * or another), as soon as the decision or that worker's wireup arrives.
 *
 * <p>Operations posted on the endpoint before it binds wait here, in order: the user gets a request at
 * once, and the operation itself is started when the endpoint binds, in posting order, behind the connect
 * gate (so they leave once the server accepts); its completion completes the user's request. If the
 * connect fails they complete with its error.
 */
final class SockaddrConnect {
    private static final System.Logger LOG = System.getLogger(SockaddrConnect.class.getName());

    /** Starts an operation posted before binding; {@code done} completes the user's request. */
    @FunctionalInterface
    interface Start {
        Request start(RequestCallback done);
    }

    final Endpoint ep;
    final InetSocketAddress server;
    /** The connection number the handshake sends; the accepting worker's WIREUP request names it. */
    final long sn;
    private final byte[] localAddress;
    private final long clientId;
    private final long deadline;
    private final SockaddrHandshake.Cancel cancel = new SockaddrHandshake.Cancel();
    private Thread thread;
    private volatile SockaddrHandshake.Client result;
    private volatile WeftException error;
    private volatile boolean finished;
    private final ArrayList<Request> waiting = new ArrayList<>();
    private final ArrayList<Start> starts = new ArrayList<>();
    /** The accepting worker's WIREUP request if it came before the handshake ended (its sender's id), else -1. */
    long earlySrc = -1;
    /** The address that early WIREUP request came from. */
    WorkerAddress earlyRemote;

    SockaddrConnect(final Endpoint ep, final InetSocketAddress server, final long clientId) {
        this.ep = ep;
        this.server = server;
        this.localAddress = ep.worker.address();
        this.clientId = clientId;
        this.sn = SockaddrHandshake.nextSn();
        this.deadline = SockaddrHandshake.deadline(ep.worker.context.config());
    }

    /**
     * Runs the handshake on a thread of its own (a daemon that ends with it, joined by {@link #close}); {@code
     * ended} runs on it at the end (to wake the worker).
     */
    void startThread(final Runnable ended) {
        thread = Thread.ofPlatform().daemon().name("weft-connect-" + server).start(() -> {
            run();
            ended.run();
        });
    }

    /** Runs the handshake on the caller's thread (the blocking connect). */
    void run() {
        try {
            result = SockaddrHandshake.connect(server, localAddress, sn, clientId, ep.worker.context.config(),
                deadline, cancel);
        } catch (final WeftException e) {
            error = e;
        } catch (final RuntimeException e) { // an unresolved address, a security manager's refusal
            error = new WeftException(Status.UNREACHABLE, "connect to " + server + ": " + e, e);
        }
        finished = true;
    }

    /** True once the handshake ended: then {@link #error()} or {@link #result()} says how. */
    boolean finished() {
        return finished;
    }

    WeftException error() {
        return error;
    }

    SockaddrHandshake.Client result() {
        return result;
    }

    /** The endpoint bound: starts the waiting operations, in posting order. */
    void bound() {
        final Worker w = ep.worker;
        for (int i = 0; i < waiting.size(); i++) {
            final Request user = waiting.get(i);
            try {
                final Request op = starts.get(i).start(completed -> finish(user, completed));
                if (op.completed && op.callback == null) { // a shared done(status): no callback will come
                    w.complete(user, op.status);
                }
            } catch (final WeftException e) {
                w.complete(user, e.status()); // its arguments were checked when posted: a late refusal
            } catch (final RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "an operation posted on " + ep + " before it connected failed "
                    + "to start: " + e);
                w.complete(user, Status.INVALID_PARAM);
            }
        }
        waiting.clear();
        starts.clear();
    }

    private void finish(final Request user, final Request op) {
        user.length = op.length;
        user.tag = op.tag;
        ep.worker.complete(user, op.status);
        op.release();
    }

    long deadline() {
        return deadline;
    }

    /** An operation posted before binding: queued here; the user's request is returned. */
    Request defer(final RequestCallback callback, final Start start) {
        final Request r = ep.worker.acquire(Request.DEFERRED);
        r.ep = ep;
        r.callback = callback;
        waiting.add(r);
        starts.add(start);
        return r;
    }

    /**
     * Cancels {@code r}, a DEFERRED request, if it still waits in its endpoint's connect: it is never started
     * and completes with CANCELED. False once the endpoint bound (the operation started).
     */
    static boolean cancel(final Request r) {
        final SockaddrConnect c = r.ep.connecting;
        return c != null && c.cancelWaiting(r);
    }

    private boolean cancelWaiting(final Request r) {
        final int i = waiting.indexOf(r);
        if (i < 0) {
            return false;
        }
        waiting.remove(i);
        starts.remove(i);
        ep.worker.complete(r, Status.CANCELED);
        return true;
    }

    /** The connect failed or the endpoint closed before binding: the waiting operations complete with {@code st}. */
    void failWaiting(final Status st) {
        for (final Request r : waiting) {
            ep.worker.complete(r, st);
        }
        waiting.clear();
        starts.clear();
    }

    /** Stops the handshake (its thread ends within a poll interval) and closes the socket. Idempotent. */
    void close() {
        cancel.canceled = true;
        final Thread t = thread;
        if (t != null) {
            try {
                if (!t.join(java.time.Duration.ofSeconds(5))) {
                    LOG.log(System.Logger.Level.WARNING, "the handshake thread of the connect to " + server
                        + " did not stop");
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        final SockaddrHandshake.Client c = result;
        if (c != null) {
            c.close();
        }
    }

    @Override
    public String toString() {
        return "SockaddrConnect[" + server + (finished ? error != null ? ", failed" : ", handshake done" : "") + "]";
    }
}
