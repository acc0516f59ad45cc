package weft.tools.perftest;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Worker;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One side of a protocol-layer perftest: its worker (on the run's context), the endpoint to the
 * peer worker, the message buffers and the test's {@link UcpMessaging}. Closing it closes the
 * worker (and with it the endpoint), then frees the buffers.
 */
final class UcpSide implements AutoCloseable {
    final PerfParams params;
    final Worker worker;
    final long size;
    final UcpMessaging messaging;
    private final Arena arena = Arena.ofShared();
    /** Source of every send. */
    final MemorySegment send;
    /** Destination of every receive (also the empty end-of-stream message's). */
    final MemorySegment recv;
    Endpoint ep;

    UcpSide(final Context context, final PerfParams params) {
        this.params = params;
        this.size = params.messageSize();
        this.messaging = UcpMessaging.of(params.test());
        this.send = arena.allocate(Math.max(size, 8), 64);
        this.recv = arena.allocate(Math.max(size, 8), 64);
        try {
            this.worker = context.newWorker();
        } catch (final WeftException e) {
            arena.close();
            throw new PerfException("cannot create a worker: " + e.getMessage(), e);
        }
    }

    /** What the peer needs to connect: this worker's address. */
    byte[] setupMessage() {
        return worker.address();
    }

    /**
     * Connects to the peer worker whose address is {@code peerAddress}. Both sides call this: the
     * two endpoints pair up during wireup.
     *
     * @param watchdog told when the endpoint fails, so that the waits end with the reason
     */
    void connect(final byte[] peerAddress, final Watchdog watchdog) {
        try {
            ep = worker.connect(peerAddress);
        } catch (final WeftException e) {
            throw new PerfException("cannot connect to the peer worker: " + e.getMessage()
                + " (choose transports that connect the two processes with WEFT_TLS or -x)", e);
        }
        ep.onError((e, st) -> watchdog.onError(null, st));
    }

    /** The endpoint's lanes and thresholds, one line each. */
    String describe() {
        return "resources " + worker.resources() + "\n" + (ep == null ? "" : ep.describe());
    }

    @Override
    public void close() {
        try {
            worker.close();
        } finally {
            arena.close();
        }
    }
}
