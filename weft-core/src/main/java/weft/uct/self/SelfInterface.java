package weft.uct.self;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.AbstractInterface;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Device;
import weft.uct.Endpoint;
import weft.uct.InterfaceAttributes;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The self interface: an endpoint connects only to its own interface; active messages are
 * delivered synchronously, as UCX's self transport does, through a per-depth scratch buffer so
 * that a handler may send again.
 */
final class SelfInterface extends AbstractInterface<SelfEndpoint> {
    private static final AtomicLong IDS = new AtomicLong();
    private static final int PID = LibC.getpid();
    private static final int MAX_DEPTH = 8;
    static final int MAX_SHORT = 4096;
    /** Largest AM zcopy header; header + iov share one segment, so amMaxZcopy = segSize - this. */
    static final int MAX_HEADER = 128;

    final SelfMemoryDomain md;
    private final long id = IDS.incrementAndGet();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment[] scratch = new MemorySegment[MAX_DEPTH];
    final long segSize;
    private int depth;

    SelfInterface(final SelfTransport transport, final UctWorker worker, final Device device,
                  final SelfMemoryDomain md, final InterfaceParams params) {
        super(transport, worker, device, params, new SelfEndpoint[0]);
        this.md = md;
        this.segSize = params.config().get(SelfTransport.SEG_SIZE);
        for (int i = 0; i < MAX_DEPTH; i++) {
            scratch[i] = arena.allocate(Math.max(segSize, MAX_SHORT + 8), 64);
        }
        final long caps = Capability.AM_SHORT | Capability.AM_BCOPY | Capability.AM_ZCOPY | Capability.PENDING
            | Capability.PUT_SHORT | Capability.PUT_SIGNAL | Capability.PUT_BCOPY | Capability.PUT_ZCOPY
            | Capability.GET_SHORT | Capability.GET_BCOPY | Capability.GET_ZCOPY
            | Capability.ATOMIC32 | Capability.ATOMIC64
            | Capability.ATOMIC_CPU | Capability.CONNECT_TO_IFACE | Capability.EP_CHECK;
        open(new InterfaceAttributes(caps, AtomicOp.ALL_OPS, AtomicOp.ALL_OPS,
            MAX_SHORT, segSize, segSize - MAX_HEADER, MAX_HEADER, 16,
            MAX_SHORT, segSize, Long.MAX_VALUE, segSize, Long.MAX_VALUE,
            0, 10, 19360.0 * (1 << 20), 0),
            ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(PID).array(),
            ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(id).array());
    }

    /** The scratch buffer of the next delivery depth, or null (counted as NO_RESOURCE) when handlers nest too deep. */
    MemorySegment enter() {
        if (depth == MAX_DEPTH) {
            counters().increment(Counter.NO_RESOURCE);
            return null;
        }
        return scratch[depth++];
    }

    void leave() {
        depth--;
    }

    /** Delivers a message in {@code buf[0, len)} to the handler of {@code id}: OK, or NO_ELEMENT if it has none. */
    Status deliver(final int id, final MemorySegment buf, final long len) {
        return deliver(id, buf, 0, len, 0) == Status.NO_ELEMENT ? Status.NO_ELEMENT : Status.OK;
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
        addEndpoint(ep);
        return ep;
    }

    void endpointClosed(final SelfEndpoint ep) {
        removeEndpoint(ep);
    }

    @Override
    public int progress() {
        int work = 0;
        for (final SelfEndpoint ep : endpoints()) {
            work += ep.dispatchPending();
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
    protected void reportFailure(final SelfEndpoint ep) {
        // a self endpoint never fails
    }

    @Override
    protected void release() {
        arena.close();
    }
}
