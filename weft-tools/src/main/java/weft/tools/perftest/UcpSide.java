package weft.tools.perftest;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.MemoryMap;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One side of a protocol-layer perftest: its worker (on the run's context), the endpoint to the
 * peer worker, the message buffers and, for two-sided tests, the test's {@link UcpMessaging}; for
 * one-sided tests the memory the peer accesses ({@link #region}, mapped with
 * {@code Context.memMap}) and the key to the peer's ({@link #peerKey}). The setup message carries
 * the worker address and the packed remote key. Closing it closes the key, the worker (and with it
 * the endpoint), the mapping, then frees the buffers.
 */
final class UcpSide implements ControlChannel.SetupSide {
    final PerfParams params;
    final Worker worker;
    final long size;
    /** Null for one-sided tests. */
    final UcpMessaging messaging;
    private final Arena arena = Arena.ofShared();
    /** Source of every send (filled with {@link UcpMessaging#pattern}). */
    final MemorySegment send;
    /** Destination of every receive (also the empty end-of-stream message's). */
    final MemorySegment recv;
    /** One-sided tests: this side's memory that the peer puts to, gets from, or updates; else null. */
    final MemoryMap region;
    Endpoint ep;
    /** One-sided tests: the peer's {@link #region}; else null. */
    Rkey peerKey;
    /** Start address of the peer's region. */
    long peerBase;

    UcpSide(final Context context, final PerfParams params) {
        this.params = params;
        this.size = params.messageSize();
        final PerfTestKind test = params.test();
        final boolean rma = test.isUcpRma();
        if (rma && test.isAtomic() && size != 4 && size != 8) {
            arena.close();
            throw new PerfException(test.testName() + " needs a message size of 4 or 8 bytes, got " + size);
        }
        if (rma && !test.isAtomic() && size < 1) {
            arena.close();
            throw new PerfException(test.testName() + " needs a message size of at least 1 byte");
        }
        if (rma && params.iov()) {
            arena.close();
            throw new PerfException("-D iov is supported by the tag tests only, not by " + test.testName());
        }
        final UcpMessaging m;
        try {
            m = rma ? null : UcpMessaging.of(params);
        } catch (final PerfException e) {
            arena.close();
            throw e;
        }
        this.messaging = m;
        this.send = arena.allocate(Math.max(size, 8), 64);
        this.recv = arena.allocate(Math.max(size, 8), 64);
        UcpMessaging.fill(send, size);
        MemoryMap map = null;
        try {
            if (rma) {
                map = context.memMap(Math.max(size, 8), 0);
                if (test.command() == PerfTestKind.Command.GET) {
                    UcpMessaging.fill(map.segment(), size); // what the peer's gets must read
                }
            }
            this.worker = context.newWorker();
        } catch (final WeftException e) {
            if (map != null) {
                map.close();
            }
            arena.close();
            throw new PerfException("cannot create a worker or map memory: " + e.getMessage(), e);
        }
        this.region = map;
        if (messaging != null) {
            messaging.bind(worker, send, recv, size);
        }
    }

    /** What the peer needs: this worker's address, then the packed key of {@link #region} (if any). */
    @Override
    public byte[] setupMessage() {
        final byte[] a = worker.address();
        final byte[] k = region == null ? new byte[0] : region.packRkey();
        return ByteBuffer.allocate(8 + a.length + k.length).putInt(a.length).put(a).putInt(k.length).put(k).array();
    }

    /**
     * Connects to the peer worker whose address is {@code peerAddress}. Both sides call this: the
     * two endpoints pair up during wireup.
     *
     * @param watchdog told when the endpoint fails, so that the waits end with the reason
     */
    void connect(final byte[] peerSetup, final Watchdog watchdog) {
        final byte[] address;
        final byte[] key;
        try {
            final ByteBuffer b = ByteBuffer.wrap(peerSetup);
            address = new byte[b.getInt()];
            b.get(address);
            key = new byte[b.getInt()];
            b.get(key);
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " trailing bytes");
            }
        } catch (final RuntimeException e) {
            throw new PerfException("malformed setup message from the peer (" + peerSetup.length + " bytes): " + e, e);
        }
        try {
            ep = worker.connect(address);
        } catch (final WeftException e) {
            throw new PerfException("cannot connect to the peer worker: " + e.getMessage()
                + " (choose transports that connect the two processes with WEFT_TLS or -x)", e);
        }
        ep.onError((e, st) -> watchdog.onError(null, st));
        if (region != null) {
            if (key.length == 0) {
                throw new PerfException("the peer sent no remote key for a one-sided test");
            }
            try {
                peerKey = ep.unpackRkey(key);
            } catch (final WeftException e) {
                throw new PerfException("cannot unpack the peer's remote key: " + e.getMessage(), e);
            }
            peerBase = peerKey.base();
        }
    }

    /** The worker's resources and their counters, the endpoint's lanes and thresholds, one line each. */
    String describe() {
        return "resources " + worker.resources() + counters() + "\n" + (ep == null ? "" : ep.describe())
            + (peerKey == null ? "" : "\nremote key " + peerKey.describe());
    }

    /** One line per resource with its non-zero interface counters (e.g. no_resource: the peer set the pace). */
    private String counters() {
        final StringBuilder sb = new StringBuilder();
        worker.interfaceCounters().forEach((name, counters) -> {
            final String line = counters.toString(); // the non-zero ones
            if (!line.isEmpty()) {
                sb.append("\ncounters ").append(name).append(": ").append(line);
            }
        });
        return sb.toString();
    }

    @Override
    public void close() {
        try {
            if (peerKey != null) {
                peerKey.close();
            }
            worker.close();
        } finally {
            try {
                if (region != null) {
                    region.close();
                }
            } finally {
                arena.close();
            }
        }
    }
}
