package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;

/**
 * Accepts {@link Worker#connect(InetSocketAddress)} requests on a socket address, made by
 * {@link Worker#listen}. One thread per listener accepts sockets and runs the authenticated handshake
 * (so a slow client never blocks the worker); each authenticated request is queued to the worker and
 * handed to the {@link ConnectionHandler} from {@link Worker#progress()}, which accepts or rejects it.
 * A handshake that stalls is cut off after {@code WEFT_CONNECT_TIMEOUT}.
 *
 * <pre>{@code
 * try (Listener l = worker.listen(new InetSocketAddress(0), req -> served.add(req.accept()))) {
 *     int port = l.address().getPort();   // tell clients
 *     while (running) worker.progress();
 * }
 * }</pre>
 *
 * Closing the listener stops accepting and rejects the requests not decided yet; endpoints already
 * accepted stay open.
 */
public final class Listener implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Listener.class.getName());

    final Worker worker;
    final ConnectionHandler handler;
    private final ServerSocket server;
    private final InetSocketAddress bound;
    private final byte[] key;
    private final byte[] localAddress;
    private final int timeoutMs;
    private final Thread thread;
    private volatile boolean closed;

    Listener(final Worker worker, final InetSocketAddress address, final ConnectionHandler handler) {
        this.worker = worker;
        this.handler = handler;
        this.key = SockaddrHandshake.key(worker.context.config());
        if (!SockaddrHandshake.hasSecret(worker.context.config())) {
            LOG.log(System.Logger.Level.WARNING, "listener on " + address + ": WEFT_JOB_SECRET is not set, so any "
                + "client that reaches the port can connect; set it for a job that other users can reach");
        }
        this.localAddress = worker.address();
        this.timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE,
            worker.context.config().get(SockaddrHandshake.CONNECT_TIMEOUT) / 1_000_000L));
        try {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(address, 128);
        } catch (final IOException e) {
            throw new WeftException(Status.IO_ERROR, "cannot listen on " + address + ": " + e.getMessage(), e);
        }
        this.bound = (InetSocketAddress) server.getLocalSocketAddress();
        this.thread = Thread.ofPlatform().daemon().name("weft-listener-" + bound.getPort()).start(this::run);
    }

    /** The address actually bound (with the port chosen when 0 was asked). */
    public InetSocketAddress address() {
        return bound;
    }

    /** The worker the endpoints are created on. */
    public Worker worker() {
        return worker;
    }

    private void run() {
        while (!closed) {
            final Socket s;
            try {
                s = server.accept();
            } catch (final SocketException e) {
                if (!closed) {
                    LOG.log(System.Logger.Level.WARNING, "listener " + bound + " stopped: " + e);
                }
                return;
            } catch (final IOException e) {
                LOG.log(System.Logger.Level.WARNING, "listener " + bound + ": accept failed: " + e);
                continue;
            }
            handshake(s);
        }
    }

    private void handshake(final Socket s) {
        boolean handedOver = false;
        try {
            s.setSoTimeout(timeoutMs);
            s.setTcpNoDelay(true);
            final SockaddrHandshake.Incoming in = SockaddrHandshake.serve(s, key, localAddress);
            if (in != null && !closed) {
                worker.lifecycle.incoming(new ConnectionRequest(this, s, in, key));
                handedOver = true;
            }
        } catch (final IOException e) {
            LOG.log(System.Logger.Level.WARNING, "listener " + bound + ": handshake with "
                + s.getRemoteSocketAddress() + " failed: " + e);
        } finally {
            if (!handedOver) {
                try {
                    s.close();
                } catch (final IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "closing a refused socket: " + e);
                }
            }
        }
    }

    /** Stops accepting (joins the thread) and rejects the requests not decided yet. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close(); // unblocks accept()
        } catch (final IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the listen socket: " + e);
        }
        try {
            thread.join(timeoutMs + 1000L);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        worker.lifecycle.listenerClosed(this);
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "Listener[" + bound + "]";
    }
}
