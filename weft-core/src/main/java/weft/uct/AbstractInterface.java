package weft.uct;

import weft.ucs.CopyOnWriteArrays;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * What every built-in interface shares: its transport, worker and device, attributes, counters,
 * the AM handler table, its endpoints (a copy-on-write array that progress walks), the endpoints
 * whose failure the error handler hears about at the next progress, and the close sequence.
 *
 * <p>The data path stays in the concrete final class: progress, sends and receives read the
 * {@link #handlers} array and call the final methods here directly, so nothing on a short-message
 * path dispatches through this base.
 *
 * @param <E> the transport's endpoint class
 */
public abstract class AbstractInterface<E extends Endpoint> implements Interface {
    /** AM handlers by id; receive paths read it directly. */
    protected final AmHandler[] handlers = new AmHandler[AM_ID_COUNT];
    private final Transport transport;
    private final UctWorker worker;
    private final Device device;
    private final ErrorHandler errorHandler;
    private final Counters counters = new Counters();
    private final List<E> failed = new ArrayList<>();
    private E[] endpoints;
    private InterfaceAttributes attrs;
    private byte[] deviceAddress;
    private byte[] ifaceAddress;
    private boolean closed;

    /**
     * @param none an empty array of the endpoint class (the endpoint array keeps its type)
     */
    protected AbstractInterface(final Transport transport, final UctWorker worker, final Device device,
                                final InterfaceParams params, final E[] none) {
        this.transport = transport;
        this.worker = worker;
        this.device = device;
        this.errorHandler = params.errorHandler();
        this.endpoints = none;
    }

    /**
     * Sets the attributes and addresses (once, at the end of the subclass's constructor) and attaches to
     * the worker.
     */
    protected final void open(final InterfaceAttributes attributes, final byte[] device, final byte[] iface) {
        this.attrs = attributes;
        this.deviceAddress = device.clone();
        this.ifaceAddress = iface.clone();
        worker.attach(this);
    }

    @Override
    public final Transport transport() {
        return transport;
    }

    @Override
    public final Device device() {
        return device;
    }

    @Override
    public final InterfaceAttributes attributes() {
        return attrs;
    }

    @Override
    public final byte[] deviceAddress() {
        return deviceAddress.clone();
    }

    @Override
    public final byte[] interfaceAddress() {
        return ifaceAddress.clone();
    }

    @Override
    public final Counters counters() {
        return counters;
    }

    @Override
    public final void setAmHandler(final int id, final AmHandler handler) {
        if (id < 0 || id >= AM_ID_COUNT) {
            throw new WeftException(Status.INVALID_PARAM, "AM id " + id + " is outside 0.." + (AM_ID_COUNT - 1));
        }
        handlers[id] = handler;
    }

    /** Transports that never hand out descriptors (FLAG_DESC) have nothing to release. */
    @Override
    public void releaseDescriptor(final MemorySegment data, final long offset) {
        // no descriptors
    }

    /**
     * Counts a received message and hands it to the handler of {@code id}: the handler's answer, or
     * NO_ELEMENT (counted as an error) if none is installed.
     */
    protected final Status deliver(final int id, final MemorySegment data, final long offset, final long length,
                                   final int flags) {
        counters.increment(Counter.RX_MESSAGES);
        counters.add(Counter.RX_BYTES, length);
        final AmHandler h = handlers[id];
        if (h == null) {
            counters.increment(Counter.ERRORS);
            return Status.NO_ELEMENT;
        }
        return h.onReceive(data, offset, length, flags);
    }

    // ---- endpoints ----

    /** The endpoints now (a plain array, replaced on change: iterate it freely). */
    protected final E[] endpoints() {
        return endpoints;
    }

    /** Adds a new endpoint. */
    protected final void addEndpoint(final E ep) {
        endpoints = CopyOnWriteArrays.with(endpoints, ep);
    }

    /** Forgets a closed endpoint (and a failure it has not reported yet); true if it was there. */
    protected final boolean removeEndpoint(final E ep) {
        failed.remove(ep);
        final E[] n = CopyOnWriteArrays.without(endpoints, ep);
        final boolean found = n != endpoints;
        endpoints = n;
        return found;
    }

    // ---- failures ----

    /** {@code ep} failed: the error handler hears about it from the next progress, not from inside a call. */
    protected final void failed(final E ep) {
        failed.add(ep);
    }

    /**
     * Endpoints, or failures not reported yet; a transport that holds connections or queues of its own
     * adds them.
     */
    @Override
    public boolean hasActivity() {
        return endpoints.length > 0 || !failed.isEmpty();
    }

    /** Failures not reported yet. */
    protected final boolean hasFailures() {
        return !failed.isEmpty();
    }

    /** Reports the failures queued by {@link #failed} (each through {@link #reportFailure}); how many. */
    protected final int reportFailures() {
        if (failed.isEmpty()) {
            return 0;
        }
        final List<E> eps = new ArrayList<>(failed);
        failed.clear();
        for (final E ep : eps) {
            reportFailure(ep);
        }
        return eps.size();
    }

    /** Tells the error handler about one failed endpoint (the subclass knows its status). */
    protected abstract void reportFailure(E ep);

    /** Calls the error handler of the interface, if it has one. */
    protected final void notifyError(final Endpoint ep, final Status status) {
        if (errorHandler != null) {
            errorHandler.onError(ep, status);
        }
    }

    // ---- close ----

    /** True once {@link #close} began. */
    public final boolean isClosed() {
        return closed;
    }

    /**
     * @throws WeftException CLOSED if the interface is closed
     */
    protected final void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, transport.name() + " interface is closed");
        }
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (final E ep : endpoints.clone()) {
            ep.close();
        }
        failed.clear();
        release();
        worker.detach(this);
    }

    /** Releases what the transport holds (sockets, files, memory) after its endpoints closed. */
    protected abstract void release();
}
