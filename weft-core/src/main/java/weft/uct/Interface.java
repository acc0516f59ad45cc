package weft.uct;

import weft.ucs.Status;
import weft.ucs.stats.Counters;

import java.lang.foreign.MemorySegment;

/**
 * A communication context on one device for one worker (UCT's iface): receives active messages,
 * creates endpoints to peers, and makes progress. Single threaded: every method is called from
 * the owning worker's thread.
 *
 * <p>Typical use:
 * <pre>{@code
 * Interface iface = transport.openInterface(worker, device, params);
 * iface.setAmHandler(1, (data, off, len, flags) -> { ...; return Status.OK; });
 * Endpoint ep = iface.connect(peerDeviceAddress, peerInterfaceAddress);
 * while (ep.amShort(1, header, payload, 0, 8) == Status.NO_RESOURCE) iface.progress();
 * }</pre>
 */
public interface Interface extends AutoCloseable {
    /** Number of AM ids (0..31). */
    int AM_ID_COUNT = 32;

    /** Flush flag: wait until data left local buffers (the default). */
    int FLUSH_LOCAL = 0;
    /** Flush flag: best-effort cancel of outstanding operations; endpoint ends in error state. */
    int FLUSH_CANCEL = 1;
    /** Flush flag: wait until the updates are visible at the target. */
    int FLUSH_REMOTE = 2;
    /**
     * Flush flag: wait only until every byte of the operations issued before left this process and no
     * source is still referenced (tcp: a zero-copy put's memory until its acknowledgement), so sources
     * are reusable and the delivery needs no more progress here; nothing about the target.
     * Transports that send no later than the call (shared memory, self, cma) treat it as their flush.
     */
    int FLUSH_SENT = 4;

    Transport transport();

    Device device();

    InterfaceAttributes attributes();

    /** This device's address, as peers need it to judge reachability and connect. */
    byte[] deviceAddress();

    /** This interface's address (what {@link #connect} takes on the peer). */
    byte[] interfaceAddress();

    /** True if a peer with these addresses can be reached from this interface. */
    boolean isReachable(byte[] deviceAddress, byte[] interfaceAddress);

    /**
     * For a reachable peer: true if it is on a link of this device, false if a gateway lies between
     * (a network transport whose route to the peer has a next hop). Lane selection prefers direct
     * pairs and uses a routed one only where no direct pair of the transport exists.
     */
    default boolean isDirect(final byte[] deviceAddress, final byte[] interfaceAddress) {
        return true;
    }

    /** Creates an endpoint to the peer interface (connect-to-iface). */
    Endpoint connect(byte[] deviceAddress, byte[] interfaceAddress);

    /** Installs (or with null removes) the handler of AM id {@code id} (0..31). */
    void setAmHandler(int id, AmHandler handler);

    /** Releases a descriptor kept by an {@link AmHandler} that returned IN_PROGRESS. */
    void releaseDescriptor(MemorySegment data, long offset);

    /**
     * Makes progress: receives messages (invoking handlers), completes operations, dispatches
     * pending requests, detects failed peers.
     *
     * @return the amount of work done (0 = idle)
     */
    int progress();

    /**
     * True while this interface holds work whose progress cannot wait: endpoints, open or handshaking
     * connections, queued sends, failures not reported yet (UCT's send-side progress). False when the
     * only thing that can happen is a peer's first contact (a connection, a first message), which a worker
     * with no lane here notices on its sparse idle turn. Asked on the worker's slow tick of an interface with
     * no lane, so it must be cheap: no system call. The default, true, makes the worker progress the
     * interface on every call.
     */
    default boolean hasActivity() {
        return true;
    }

    /**
     * Arms the wakeup: after OK, {@link #eventFd()} becomes readable when a message arrives.
     * BUSY means events are ready now (progress instead of sleeping).
     */
    Status arm();

    /**
     * A file descriptor that becomes readable when the armed interface has events, for
     * poll/epoll ({@code -1} if the transport has no {@link Capability#EVENT_RECV}).
     */
    int eventFd();

    /** Flushes all endpoints (see {@link Endpoint#flush}). */
    Status flush(int flags, Completion completion);

    /** Orders operations on all endpoints: those before complete before those after. */
    Status fence();

    /** Per-interface counters. */
    Counters counters();

    /** Closes endpoints and releases every resource (files, sockets, memory). Idempotent. */
    @Override
    void close();
}
