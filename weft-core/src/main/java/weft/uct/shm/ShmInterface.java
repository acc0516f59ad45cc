package weft.uct.shm;

import weft.ucs.KeepaliveRamp;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.memory.SharedMemory;
import weft.ucs.queue.FifoConsumer;
import weft.ucs.queue.FifoDescriptor;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.ucs.sys.ProcessLiveness;
import weft.uct.AbstractInterface;
import weft.uct.AmHandler;
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
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;

import static weft.ucs.queue.FifoDescriptor.ELEMENT_DESC_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_HEADER_LENGTH;
import static weft.ucs.queue.FifoDescriptor.FLAG_DESC;

/**
 * An shm interface: owns a receive FIFO and a pool of receive descriptors in two memory files
 * that its peers map, a wakeup socket, and its endpoints. Single threaded (the worker's thread).
 *
 * <p>Receive descriptors: one is bound to each FIFO cell (its index sits in the cell header), so
 * a bcopy sender copies straight into receiver memory. A handler that keeps a descriptor
 * (IN_PROGRESS) gets the cell rebound to a spare one; when no spare is left the FIFO is not read
 * further until {@link #releaseDescriptor} returns one, and senders see NO_RESOURCE: memory is
 * bounded and nothing is lost.
 */
final class ShmInterface extends AbstractInterface<ShmEndpoint> implements FifoConsumer.Handler {
    private static final AtomicLong IDS = new AtomicLong();
    private static final int AM_HEADER = 8;

    final ShmMemoryDomain md;
    private final Arena arena = Arena.ofShared();

    private final SharedMemory fifoMemory;
    private final SharedMemory descMemory;
    private final FifoConsumer consumer;
    private final MemorySegment fifo;
    private final MemorySegment descPool;
    final int segSize;
    final int maxShort;
    /** Bounce buffer for a bcopy put near the end of a region, where the packed length decides the range. */
    final MemorySegment bounce;
    private final int descStride;
    private final int descCount;
    private final int maxPoll;
    private final int[] freeDescs;
    private int freeCount;
    private final boolean[] kept;
    /** Descriptor bound to each cell: the consumer's own copy, never read back from shared memory. */
    private final int[] cellDesc;
    private final long cellMask;
    private long readIndexAtLastKeepalive = -1;

    private final WakeupSocket wakeup;
    /** Unbound datagram socket this interface signals armed peers from. */
    final int signalFd;
    /** One byte to send as a wakeup signal. */
    final MemorySegment signalByte;
    /** Scratch buffer for liveness reads. */
    final MemorySegment statBuffer;

    /** When peers' liveness is checked: soon after an endpoint appears, then every interval. */
    private final KeepaliveRamp keepaliveRamp;
    private int progressCalls;
    /** Some endpoint may have pending requests (set when one is queued; cleared by a dispatch that empties them). */
    private boolean maybePending;

    ShmInterface(final ShmTransport transport, final UctWorker worker, final Device device,
                 final ShmMemoryDomain md, final InterfaceParams params) {
        super(transport, worker, device, params, new ShmEndpoint[0]);
        this.md = md;
        final Config cfg = params.config();
        final int fifoSize = cfg.get(ShmTransport.FIFO_SIZE);
        final long elemSize = cfg.get(ShmTransport.FIFO_ELEM_SIZE);
        final long seg = cfg.get(ShmTransport.SEG_SIZE);
        final int rxDescs = cfg.get(ShmTransport.RX_DESCS);
        maxPoll = cfg.get(ShmTransport.FIFO_MAX_POLL);
        final long keepaliveNs = cfg.get(ShmTransport.KEEPALIVE_INTERVAL);
        if (elemSize < 32 || elemSize > 65536 || (elemSize & 7) != 0) {
            throw new WeftException(Status.INVALID_PARAM, "shm: SHM_FIFO_ELEM_SIZE must be a multiple of 8 in [32, 64k]");
        }
        if (seg < 1 || seg > (1 << 30)) {
            throw new WeftException(Status.INVALID_PARAM, "shm: SHM_SEG_SIZE must be in [1, 1g]");
        }
        if (rxDescs < 0 || maxPoll < 1) {
            throw new WeftException(Status.INVALID_PARAM, "shm: SHM_RX_DESCS must be >= 0 and SHM_FIFO_MAX_POLL >= 1");
        }
        final double releaseFactor = cfg.get(ShmTransport.FIFO_RELEASE_FACTOR);
        if (!(releaseFactor > 0 && releaseFactor <= 1)) {
            throw new WeftException(Status.INVALID_PARAM, "shm: SHM_FIFO_RELEASE_FACTOR must be in (0, 1], not "
                + releaseFactor);
        }
        final int releaseEvery = (int) Math.max(1, fifoSize * releaseFactor);
        segSize = (int) seg;
        maxShort = (int) elemSize - ELEMENT_HEADER_LENGTH - AM_HEADER;
        descStride = (segSize + 63) & -64;
        bounce = arena.allocate(segSize, 64);
        descCount = fifoSize + rxDescs;

        SharedMemory f = null;
        SharedMemory d = null;
        WakeupSocket w = null;
        int s = -1;
        try {
            f = ShmMemoryDomain.createFile(FifoDescriptor.length(fifoSize, (int) elemSize));
            d = ShmMemoryDomain.createFile((long) descCount * descStride);
            w = new WakeupSocket(ShmMemoryDomain.fileName(ShmMemoryDomain.PID, ShmMemoryDomain.START_TIME,
                IDS.incrementAndGet()) + "-wakeup");
            s = LibC.socket(LibC.AF_UNIX, LibC.SOCK_DGRAM | LibC.SOCK_NONBLOCK | LibC.SOCK_CLOEXEC, 0);
            if (s < 0) {
                throw new WeftException(Status.IO_ERROR, "shm: socket(AF_UNIX): " + LibC.strerror(-s));
            }
        } catch (final RuntimeException e) {
            if (w != null) {
                w.close();
            }
            if (d != null) {
                d.close();
            }
            if (f != null) {
                f.close();
            }
            arena.close();
            throw e;
        }
        fifoMemory = f;
        descMemory = d;
        wakeup = w;
        signalFd = s;
        fifo = f.segment();
        descPool = d.segment();
        consumer = new FifoConsumer(fifo, fifoSize, (int) elemSize, ShmMemoryDomain.PID, releaseEvery);
        cellDesc = new int[fifoSize];
        cellMask = fifoSize - 1;
        freeDescs = new int[descCount];
        kept = new boolean[descCount];
        freeCount = bindDescriptors(fifo, consumer, cellDesc, freeDescs);
        signalByte = arena.allocate(1);
        statBuffer = ProcessLiveness.newBuffer(arena);
        final byte[] ifaceAddress = new ShmAddress.Iface(ShmMemoryDomain.PID, ShmMemoryDomain.START_TIME, f.fd(),
            ShmMemoryDomain.fileId(f), f.size(), d.fd(), ShmMemoryDomain.fileId(d), d.size(), descCount, descStride,
            segSize, w.name()).encode();

        final long caps = Capability.AM_SHORT | Capability.AM_BCOPY | Capability.PUT_SHORT | Capability.PUT_BCOPY
            | Capability.PUT_SIGNAL | Capability.PUT_ZCOPY | Capability.GET_SHORT | Capability.GET_BCOPY
            | Capability.GET_ZCOPY | Capability.ATOMIC32
            | Capability.ATOMIC64 | Capability.ATOMIC_CPU | Capability.PENDING | Capability.CB_SYNC
            | Capability.CONNECT_TO_IFACE | Capability.EP_CHECK | Capability.ERRHANDLE_PEER_FAILURE
            | Capability.EVENT_RECV;
        keepaliveRamp = new KeepaliveRamp(keepaliveNs, System.nanoTime());
        open(new InterfaceAttributes(caps, AtomicOp.ALL_OPS, AtomicOp.ALL_OPS,
            maxShort, segSize, 0, 0, 1,
            Integer.MAX_VALUE, segSize, Long.MAX_VALUE, segSize, Long.MAX_VALUE,
            80, 10, 15360.0 * (1 << 20), 10), ShmAddress.DEVICE_ADDRESS, ifaceAddress);
    }

    /**
     * Binds cell i to descriptor i and lists the spare descriptors in {@code free}; returns their count. Out of
     * the constructor: with Weft's early compile thresholds its loops (512 spare descriptors by default) would
     * otherwise have the whole constructor compiled by C2 for one call (370 ms of a perftest's start-up).
     */
    private static int bindDescriptors(final MemorySegment fifo, final FifoConsumer consumer, final int[] cellDesc,
                                       final int[] free) {
        for (int i = 0; i < cellDesc.length; i++) {
            cellDesc[i] = i;
            fifo.set(ValueLayout.JAVA_INT, consumer.elementOffset(i) + ELEMENT_DESC_OFFSET, i);
        }
        int n = 0;
        for (int i = cellDesc.length; i < free.length; i++) {
            free[n++] = i;
        }
        return n;
    }

    // ---- receive ----

    @Override
    public boolean onElement(final MemorySegment f, final long e, final long h) {
        final int flags = FifoDescriptor.flagsOf(h);
        final int id = FifoDescriptor.amIdOf(h) & (AM_ID_COUNT - 1);
        final int length = FifoDescriptor.lengthOf(h);
        if ((flags & FLAG_DESC) != 0) {
            if (freeCount == 0) {
                return false; // no spare descriptor to rebind if the handler keeps this one: wait for releases
            }
            final int cell = (int) (consumer.readIndex() & cellMask);
            final int d = cellDesc[cell];
            if (length < 0 || length > segSize) {
                counters().increment(Counter.ERRORS);
                return true;
            }
            if (deliver(id, descPool, (long) d * descStride, length, AmHandler.FLAG_DESC) == Status.IN_PROGRESS) {
                kept[d] = true;
                final int fresh = freeDescs[--freeCount];
                cellDesc[cell] = fresh;
                // the rebinding is published to senders by the consumer's release store of the tail
                f.set(ValueLayout.JAVA_INT, e + ELEMENT_DESC_OFFSET, fresh);
            } else if (f.get(ValueLayout.JAVA_INT, e + ELEMENT_DESC_OFFSET) != d) {
                // restore it if a misbehaving sender overwrote it; only then: a store here would take the
                // cell's cache line from the sender that reuses it next lap
                f.set(ValueLayout.JAVA_INT, e + ELEMENT_DESC_OFFSET, d);
            }
        } else {
            if (length < AM_HEADER || length > maxShort + AM_HEADER) {
                counters().increment(Counter.ERRORS);
                return true;
            }
            deliver(id, f, e + ELEMENT_HEADER_LENGTH, length, 0);
        }
        return true;
    }

    @Override
    public void releaseDescriptor(final MemorySegment data, final long offset) {
        if (data == null || data.address() != descPool.address() || offset < 0 || offset % descStride != 0
            || offset / descStride >= descCount || !kept[(int) (offset / descStride)]) {
            throw new WeftException(Status.INVALID_PARAM, "shm: not a descriptor kept from this interface (offset "
                + offset + ")");
        }
        final int d = (int) (offset / descStride);
        kept[d] = false;
        freeDescs[freeCount++] = d;
    }

    // ---- progress ----

    @Override
    public int progress() {
        if (isClosed()) {
            return 0;
        }
        int work = consumer.poll(this, maxPoll);
        if (maybePending) {
            work += dispatchPending();
        }
        if ((++progressCalls & 127) == 0) {
            keepalive();
        }
        if (hasFailures()) {
            work += reportFailures();
        }
        return work;
    }

    /** An endpoint queued a pending request: progress dispatches until none is left. */
    void pendingAdded() {
        maybePending = true;
    }

    private int dispatchPending() {
        maybePending = false; // set again below, or by an endpoint that queues while we dispatch
        int work = 0;
        for (final ShmEndpoint ep : endpoints()) {
            if (ep.hasPending()) {
                work += ep.dispatchPending();
                if (ep.hasPending()) {
                    maybePending = true;
                }
            }
        }
        return work;
    }

    /** Checks peers' liveness when due (every {@link ShmTransport#KEEPALIVE_INTERVAL}, sooner for new peers). */
    private void keepalive() {
        if (!keepaliveRamp.due(System.nanoTime())) {
            return;
        }
        for (final ShmEndpoint ep : endpoints()) {
            ep.check();
        }
        final long readIndex = consumer.readIndex();
        if (readIndex == readIndexAtLastKeepalive && consumer.skipAbandoned(ShmInterface::isAlive)) {
            counters().increment(Counter.ERRORS); // a sender died in the middle of a send
        }
        readIndexAtLastKeepalive = readIndex;
    }

    private static boolean isAlive(final int pid) {
        return ProcessLiveness.startTime(pid) != ProcessLiveness.DEAD;
    }

    /** Called by an endpoint that failed: its error handler call is due at the next progress. */
    void endpointFailed(final ShmEndpoint ep) {
        failed(ep);
    }

    @Override
    protected void reportFailure(final ShmEndpoint ep) {
        counters().increment(Counter.ERRORS);
        notifyError(ep, ep.failure());
    }

    // ---- wakeup ----

    @Override
    public Status arm() {
        if (isClosed()) {
            return Status.CLOSED;
        }
        wakeup.drain();
        if (hasFailures() || consumer.hasUnread() || consumer.isReady()) {
            return Status.BUSY;
        }
        for (final ShmEndpoint ep : endpoints()) {
            if (ep.hasPending()) {
                return Status.BUSY;
            }
        }
        return consumer.tryArm() ? Status.OK : Status.BUSY;
    }

    @Override
    public int eventFd() {
        return isClosed() ? -1 : wakeup.fd();
    }

    // ---- endpoints ----

    @Override
    public boolean isReachable(final byte[] deviceAddress, final byte[] interfaceAddress) {
        if (!ShmAddress.sameNode(deviceAddress)) {
            return false;
        }
        try {
            final ShmAddress.Iface a = ShmAddress.Iface.decode(interfaceAddress);
            return a.pid() == ShmMemoryDomain.PID ? a.startTime() == ShmMemoryDomain.START_TIME
                : ProcessLiveness.startTime(a.pid()) == a.startTime();
        } catch (final WeftException e) {
            return false;
        }
    }

    @Override
    public Endpoint connect(final byte[] deviceAddress, final byte[] interfaceAddress) {
        checkOpen();
        if (!ShmAddress.sameNode(deviceAddress)) {
            throw new WeftException(Status.UNREACHABLE, "shm: the peer is on another node or pid namespace");
        }
        final ShmAddress.Iface a = ShmAddress.Iface.decode(interfaceAddress);
        if (ProcessLiveness.startTime(a.pid()) != a.startTime()) {
            throw new WeftException(Status.UNREACHABLE, "shm: peer process " + a.pid() + " is gone");
        }
        final ShmMemoryDomain.Attachment f = md.attach(a.pid(), a.startTime(), a.fifoFd(), a.fifoId(), a.fifoLength());
        final ShmMemoryDomain.Attachment d;
        try {
            d = md.attach(a.pid(), a.startTime(), a.descFd(), a.descId(), a.descLength());
        } catch (final RuntimeException e) {
            md.detach(f);
            throw e;
        }
        final ShmEndpoint ep;
        try {
            ep = new ShmEndpoint(this, a, f, d);
        } catch (final RuntimeException e) {
            md.detach(d);
            md.detach(f);
            throw e;
        }
        addEndpoint(ep);
        keepaliveRamp.restart(); // check the new peer soon (see KeepaliveRamp)
        return ep;
    }

    void endpointClosed(final ShmEndpoint ep) {
        removeEndpoint(ep);
    }

    // ---- the rest of the Interface contract ----

    @Override
    public Status flush(final int flags, final Completion completion) {
        if (isClosed()) {
            return Status.CLOSED;
        }
        Status result = Status.OK;
        for (final ShmEndpoint ep : endpoints()) {
            final Status st = ep.flush(flags, completion);
            if (st == Status.NO_RESOURCE) {
                result = st;
            }
        }
        return result;
    }

    @Override
    public Status fence() {
        java.lang.invoke.VarHandle.fullFence();
        return Status.OK;
    }

    /** The receive FIFO (tests). */
    MemorySegment fifoSegment() {
        return fifo;
    }

    /** Spare receive descriptors (tests). */
    int freeDescriptors() {
        return freeCount;
    }

    @Override
    protected void release() {
        FifoDescriptor.markClosed(fifo); // senders stop with CONNECTION_RESET instead of filling it forever
        wakeup.close();
        LibC.close(signalFd);
        descMemory.close();
        fifoMemory.close();
        arena.close();
    }
}
