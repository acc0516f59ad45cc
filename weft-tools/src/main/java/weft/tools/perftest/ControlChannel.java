package weft.tools.perftest;

import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * The bootstrap connection between perftest server and client: a plain TCP socket (not the
 * data path) carrying framed messages {@code [u32 length][u8 type][payload]}. Every wait has a
 * deadline, and {@link #poll()} lets the data path notice a dead peer (EOF) without blocking.
 */
final class ControlChannel implements AutoCloseable {
    static final byte PARAMS = 1;
    static final byte SETUP = 2;
    static final byte STATUS = 3;
    static final byte DONE = 4;
    static final byte FIN = 5;
    static final byte ERROR = 6;

    private static final int MAX_FRAME = 60 * 1024;

    private final SocketChannel channel;
    private final Selector selector;
    /** Received bytes not yet consumed as frames; direct so that reads allocate nothing. */
    private final ByteBuffer rx = ByteBuffer.allocateDirect(MAX_FRAME + 5);
    private final String peer;

    private ControlChannel(final SocketChannel channel, final String peer) throws IOException {
        this.channel = channel;
        this.peer = peer;
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
        rx.flip(); // empty, in read mode
    }

    /**
     * Listens on {@code port} and accepts one client.
     *
     * @param log where "Waiting for connection..." and the accepted peer are printed
     */
    static ControlChannel accept(final int port, final long timeoutNs, final PrintStream log) {
        try (Listener l = new Listener(port)) {
            return l.accept(timeoutNs, log);
        }
    }

    /**
     * A listening socket that accepts clients one after the other (a server serving several tests in a
     * row keeps it, so that a client never finds the port closed between two tests).
     */
    static final class Listener implements AutoCloseable {
        private final int port;
        private final ServerSocketChannel server;
        private final Selector sel;

        Listener(final int port) {
            this.port = port;
            ServerSocketChannel s = null;
            Selector k = null;
            try {
                s = ServerSocketChannel.open();
                s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                try {
                    s.bind(new InetSocketAddress(port), 1);
                } catch (final BindException e) {
                    throw new PerfException("cannot listen on TCP port " + port + ": " + e.getMessage()
                        + " (is another perftest server running? choose another port with -p)", e);
                }
                s.configureBlocking(false);
                k = Selector.open();
                s.register(k, SelectionKey.OP_ACCEPT);
            } catch (final IOException e) {
                closeQuietly(k, s);
                throw new PerfException("server socket on port " + port + " failed: " + e.getMessage(), e);
            } catch (final RuntimeException e) {
                closeQuietly(k, s);
                throw e;
            }
            this.server = s;
            this.sel = k;
        }

        private static void closeQuietly(final Selector k, final ServerSocketChannel s) {
            try {
                if (k != null) {
                    k.close();
                }
                if (s != null) {
                    s.close();
                }
            } catch (final IOException ignored) {
                // closing after a failed open: the open's error is the one reported
            }
        }

        /**
         * Accepts the next client.
         *
         * @param timeoutNs how long to wait; 0 = until one connects
         */
        ControlChannel accept(final long timeoutNs, final PrintStream log) {
            log.println("Waiting for connection...");
            log.flush();
            final long deadline = System.nanoTime() + timeoutNs;
            try {
                while (true) {
                    final SocketChannel c = server.accept();
                    if (c != null) {
                        final InetSocketAddress a = (InetSocketAddress) c.getRemoteAddress();
                        final String who = a.getAddress().getHostAddress() + ":" + a.getPort();
                        log.println("Accepted connection from " + who);
                        log.flush();
                        return new ControlChannel(c, who);
                    }
                    final long left = timeoutNs == 0 ? TimeUnit.SECONDS.toNanos(1) : deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new PerfException("no client connected to port " + port + " within "
                            + TimeUnit.NANOSECONDS.toSeconds(timeoutNs) + " s");
                    }
                    sel.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    sel.selectedKeys().clear();
                }
            } catch (final IOException e) {
                throw new PerfException("server socket on port " + port + " failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            try {
                sel.close();
                server.close();
            } catch (final IOException e) {
                throw new PerfException("closing the server socket on port " + port + ": " + e.getMessage(), e);
            }
        }
    }

    /** Connects to a server, retrying until it listens or the timeout passes. */
    static ControlChannel connect(final String host, final int port, final long timeoutNs) {
        final long deadline = System.nanoTime() + timeoutNs;
        IOException lastError;
        do {
            try {
                final SocketChannel c = SocketChannel.open();
                try {
                    c.socket().connect(new InetSocketAddress(host, port),
                        (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                    return new ControlChannel(c, host + ":" + port);
                } catch (final IOException e) {
                    c.close();
                    throw e;
                }
            } catch (final java.nio.channels.UnresolvedAddressException e) {
                throw new PerfException("unknown host '" + host + "'", e);
            } catch (final IOException e) {
                lastError = e;
            }
            try {
                Thread.sleep(50);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while connecting to " + host + ":" + port, e);
            }
        } while (System.nanoTime() < deadline);
        throw new PerfException("cannot connect to perftest server " + host + ":" + port + " within "
            + TimeUnit.NANOSECONDS.toSeconds(timeoutNs) + " s: " + lastError.getMessage());
    }

    String peer() {
        return peer;
    }

    /** Sends one frame (setup path: allocates). */
    void send(final byte type, final byte[] payload) {
        final ByteBuffer b = ByteBuffer.allocate(5 + payload.length);
        b.putInt(1 + payload.length).put(type).put(payload).flip();
        try {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (b.hasRemaining()) {
                if (channel.write(b) == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new PerfException("the peer " + peer + " does not read the control connection");
                    }
                    Thread.onSpinWait();
                }
            }
        } catch (final IOException e) {
            throw new PerfException("lost the control connection to " + peer + ": " + e.getMessage(), e);
        }
    }

    /** Sends a frame without payload. */
    void send(final byte type) {
        send(type, new byte[0]);
    }

    /**
     * Reads what has arrived without blocking. Allocation free.
     *
     * @return the type of the next complete frame, or 0 if none is complete yet
     * @throws PerfException if the peer closed the connection (it exited or died)
     */
    int poll() {
        if (frameComplete()) {
            return rx.get(rx.position() + 4);
        }
        try {
            rx.compact();
            final int n;
            try {
                n = channel.read(rx);
            } finally {
                rx.flip();
            }
            if (n < 0) {
                throw new PerfException("the peer " + peer + " closed the control connection (it exited or died)");
            }
        } catch (final IOException e) {
            throw new PerfException("lost the control connection to " + peer + ": " + e.getMessage(), e);
        }
        return frameComplete() ? rx.get(rx.position() + 4) : 0;
    }

    private boolean frameComplete() {
        if (rx.remaining() < 5) {
            return false;
        }
        final int len = rx.getInt(rx.position());
        if (len < 1 || len > MAX_FRAME) {
            throw new PerfException("malformed control message from " + peer + " (length " + len + ")");
        }
        return rx.remaining() >= 4 + len;
    }

    /**
     * Waits for the next frame, which must be of type {@code expected} (an ERROR frame becomes a
     * PerfException with the peer's message).
     *
     * @return its payload
     */
    byte[] receive(final byte expected, final long timeoutNs, final String what) {
        final long deadline = System.nanoTime() + timeoutNs;
        try {
            while (poll() == 0) {
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new PerfException("timed out after " + TimeUnit.NANOSECONDS.toSeconds(timeoutNs)
                        + " s waiting for " + what + " from " + peer);
                }
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                selector.selectedKeys().clear();
            }
        } catch (final IOException e) {
            throw new PerfException("lost the control connection to " + peer + ": " + e.getMessage(), e);
        }
        final int len = rx.getInt();
        final byte type = rx.get();
        final byte[] payload = new byte[len - 1];
        rx.get(payload);
        if (type == ERROR && expected != ERROR) {
            throw new PerfException("the peer " + peer + " failed: " + new String(payload,
                java.nio.charset.StandardCharsets.UTF_8));
        }
        if (type != expected) {
            throw new PerfException("unexpected control message " + type + " from " + peer + " while waiting for "
                + what);
        }
        return payload;
    }

    /** One side of a test as the setup handshake sees it: the message for the peer, and closing it on failure. */
    interface SetupSide extends AutoCloseable {
        /** What the peer needs to connect (addresses, remote key). */
        byte[] setupMessage();

        @Override
        void close();
    }

    /**
     * The setup handshake of both roles: creates this side, sends its setup message, connects it to the
     * peer's, and agrees with the peer that both sides are ready. A failure on either side fails both
     * with the reason (and this side is closed).
     *
     * @param role "server" or "client", prefixed to the error sent to the peer
     */
    <S extends SetupSide> S setUp(final java.util.function.Supplier<S> create,
                                  final java.util.function.BiConsumer<S, byte[]> connect, final String role,
                                  final long timeoutNs) {
        final S side;
        try {
            side = create.get();
        } catch (final PerfException e) {
            sendErrorQuietly(role + ": " + e.getMessage());
            throw e;
        }
        boolean ok = false;
        try {
            send(SETUP, side.setupMessage());
            final byte[] peerSetup = receive(SETUP, timeoutNs, "the peer's setup message");
            try {
                connect.accept(side, peerSetup);
            } catch (final PerfException e) {
                sendErrorQuietly(role + ": " + e.getMessage());
                throw e;
            }
            send(STATUS);
            receive(STATUS, timeoutNs, "the peer's readiness");
            ok = true;
            return side;
        } finally {
            if (!ok) {
                side.close();
            }
        }
    }

    void sendErrorQuietly(final String message) {
        try {
            send(ERROR, message.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (final PerfException ignored) {
            // the peer is gone: the local error is reported anyway
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (final IOException ignored) {
            // closing: nothing left to do with it
        }
        try {
            channel.close();
        } catch (final IOException ignored) {
            // closing: nothing left to do with it
        }
    }
}
