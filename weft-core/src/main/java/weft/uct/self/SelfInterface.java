package weft.uct.self;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;
import weft.ucs.sys.LibC;
import weft.uct.AmHandler;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Device;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.InterfaceParams;
import weft.uct.Transport;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The self interface: an endpoint connects only to its own interface; active messages are
 * delivered synchronously, as UCX's self transport does, through a per-depth scratch buffer so
 * that a handler may send again.
 */
final class SelfInterface implements Interface {
    private static final AtomicLong IDS = new AtomicLong();
    private static final int PID = LibC.getpid();
    private static final int MAX_DEPTH = 8;
    static final int MAX_SHORT = 4096;
    /** Largest AM zcopy header; header + iov share one segment, so amMaxZcopy = segSize - this. */
    static final int MAX_HEADER = 128;

    private final SelfTransport transport;
    private final UctWorker worker;
    private final Device device;
    final SelfMemoryDomain md;
    private final long id = IDS.incrementAndGet();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment[] scratch = new MemorySegment[MAX_DEPTH];
    private final AmHandler[] handlers = new AmHandler[AM_ID_COUNT];
    private final Counters counters = new Counters();
    private final List<SelfEndpoint> endpoints = new ArrayList<>();
    private final InterfaceAttributes attrs;
    final long segSize;
    private int depth;
    private boolean closed;

    SelfInterface(final SelfTransport transport, final UctWorker worker, final Device device,
                  final SelfMemoryDomain md, final InterfaceParams params) {
        this.transport = transport;
        this.worker = worker;
        this.device = device;
        this.md = md;
        this.segSize = params.config().get(SelfTransport.SEG_SIZE);
        for (int i = 0; i < MAX_DEPTH; i++) {
            scratch[i] = arena.allocate(Math.max(segSize, MAX_SHORT + 8), 64);
        }
        final long caps = Capability.AM_SHORT | Capability.AM_BCOPY | Capability.AM_ZCOPY | Capability.PENDING
            | Capability.PUT_SHORT | Capability.PUT_BCOPY | Capability.PUT_ZCOPY
            | Capability.GET_BCOPY | Capability.GET_ZCOPY | Capability.ATOMIC32 | Capability.ATOMIC64
            | Capability.ATOMIC_CPU | Capability.CONNECT_TO_IFACE | Capability.EP_CHECK;
        attrs = new InterfaceAttributes(caps, AtomicOp.ALL_OPS, AtomicOp.ALL_OPS,
            MAX_SHORT, segSize, segSize - MAX_HEADER, MAX_HEADER, 16,
            MAX_SHORT, segSize, Long.MAX_VALUE, segSize, Long.MAX_VALUE,
            0, 10, 19360.0 * (1 << 20), 0);
        worker.attach(this);
    }

    MemorySegment enter() {
        if (depth == MAX_DEPTH) {
            return null;
        }
        return scratch[depth++];
    }

    void leave() {
        depth--;
    }

    /** Delivers a message in {@code buf[0, len)} to the handler of {@code id}. */
    Status deliver(final int id, final MemorySegment buf, final long len) {
        final AmHandler h = handlers[id];
        counters.increment(Counter.RX_MESSAGES);
        counters.add(Counter.RX_BYTES, len);
        if (h == null) {
            counters.increment(Counter.ERRORS);
            return Status.NO_ELEMENT;
        }
        h.onReceive(buf, 0, len, 0);
        return Status.OK;
    }

    Counters countersInternal() {
        return counters;
    }

    @Override
    public Transport transport() {
        return transport;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public InterfaceAttributes attributes() {
        return attrs;
    }

    @Override
    public byte[] deviceAddress() {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(PID).array();
    }

    @Override
    public byte[] interfaceAddress() {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(id).array();
    }

    @Override
    public boolean isReachable(final byte[] deviceAddress, final byte[] interfaceAddress) {
        return deviceAddress != null && interfaceAddress != null && deviceAddress.length == 4
            && interfaceAddress.length == 8
            && ByteBuffer.wrap(deviceAddress).order(ByteOrder.LITTLE_ENDIAN).getInt() == PID
            && ByteBuffer.wrap(interfaceAddress).order(ByteOrder.LITTLE_ENDIAN).getLong() == id;
    }

    @Override
    public Endpoint connect(final byte[] deviceAddress, final byte[] interfaceAddress) {
        checkOpen();
        if (!isReachable(deviceAddress, interfaceAddress)) {
            throw new WeftException(Status.UNREACHABLE, "self: an endpoint can only connect to its own interface");
        }
        final SelfEndpoint ep = new SelfEndpoint(this);
        endpoints.add(ep);
        return ep;
    }

    void removeEndpoint(final SelfEndpoint ep) {
        endpoints.remove(ep);
    }

    @Override
    public void setAmHandler(final int id, final AmHandler handler) {
        if (id < 0 || id >= AM_ID_COUNT) {
            throw new WeftException(Status.INVALID_PARAM, "AM id " + id + " is outside 0.." + (AM_ID_COUNT - 1));
        }
        handlers[id] = handler;
    }

    @Override
    public void releaseDescriptor(final MemorySegment data, final long offset) {
        // self never hands out descriptors (FLAG_DESC is never set)
    }

    @Override
    public int progress() {
        int work = 0;
        for (int i = 0; i < endpoints.size(); i++) {
            work += endpoints.get(i).dispatchPending();
        }
        return work;
    }

    @Override
    public Status arm() {
        return Status.OK;
    }

    @Override
    public int eventFd() {
        return -1;
    }

    @Override
    public Status flush(final int flags, final Completion completion) {
        return Status.OK;
    }

    @Override
    public Status fence() {
        java.lang.invoke.VarHandle.fullFence();
        return Status.OK;
    }

    @Override
    public Counters counters() {
        return counters;
    }

    void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "self interface is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (final SelfEndpoint ep : new ArrayList<>(endpoints)) {
            ep.close();
        }
        worker.detach(this);
        arena.close();
    }
}
