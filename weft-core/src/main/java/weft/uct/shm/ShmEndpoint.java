package weft.uct.shm;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.queue.FifoDescriptor;
import weft.ucs.queue.FifoProducer;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;
import weft.ucs.sys.ProcessLiveness;
import weft.uct.Completion;
import weft.uct.Interface;
import weft.uct.MappedEndpoint;
import weft.uct.MemoryAtomics;
import weft.uct.Packer;
import weft.uct.PendingRequest;
import weft.uct.RemoteKey;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static weft.ucs.queue.FifoDescriptor.ELEMENT_HEADER_LENGTH;
import static weft.ucs.queue.FifoDescriptor.FLAG_DESC;
import static weft.ucs.queue.FifoDescriptor.FLAG_INLINE;

/**
 * An endpoint to a peer shm interface: writes into the peer's FIFO (and its receive descriptors)
 * through a mapping of them, and does put, get and atomics directly on mapped peer memory.
 * Single threaded. Send paths allocate nothing and make no system call (except the one wakeup
 * datagram when the peer sleeps).
 *
 * <p>Ordering: while requests are pending, new sends answer NO_RESOURCE so that nothing overtakes
 * them. A dead peer (its pid gone or restarted) or a closed peer interface fails the endpoint
 * with CONNECTION_RESET: pending requests are dispatched once more so that they see it, and the
 * interface's error handler is told from progress.
 */
final class ShmEndpoint extends MappedEndpoint {
    private static final System.Logger LOG = System.getLogger("weft.uct.shm");

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED
        .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final int AM_ID_MASK = ~(Interface.AM_ID_COUNT - 1);

    private final ShmInterface iface;
    /** The interface's memory domain, kept here: one dependent load less on every put, get and atomic. */
    private final ShmMemoryDomain md;
    private final Counters counters;
    private final ShmMemoryDomain.Attachment fifoAttachment;
    private final ShmMemoryDomain.Attachment descAttachment;
    private final MemorySegment fifo;
    private final FifoProducer producer;
    private final MemorySegment descPool;
    private final int descCount;
    private final int descStride;
    private final int bcopyCapacity;
    private final int maxShort;
    private final long peerStartTime;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wakeupAddress;
    private final MemorySegment statPath;
    /** Null while healthy; CLOSED after close; the error after a failure. */
    private Status failure;
    private boolean dispatching;

    ShmEndpoint(final ShmInterface iface, final ShmAddress.Iface peer, final ShmMemoryDomain.Attachment fifoAttachment,
                final ShmMemoryDomain.Attachment descAttachment) {
        this.iface = iface;
        this.md = iface.md;
        this.counters = iface.counters();
        this.fifoAttachment = fifoAttachment;
        this.descAttachment = descAttachment;
        this.fifo = fifoAttachment.segment();
        try {
            this.producer = new FifoProducer(fifo);
        } catch (final IllegalArgumentException e) {
            arena.close();
            throw new WeftException(Status.INVALID_ADDRESS, "shm: peer FIFO is unusable: " + e.getMessage());
        }
        if (FifoDescriptor.ownerPid(fifo) != peer.pid()) {
            arena.close();
            throw new WeftException(Status.INVALID_ADDRESS, "shm: peer FIFO belongs to another process");
        }
        this.descPool = descAttachment.segment();
        this.descCount = peer.descCount();
        this.descStride = peer.descStride();
        this.bcopyCapacity = Math.min(peer.segSize(), iface.segSize);
        this.maxShort = Math.min(iface.maxShort, producer.elementSize() - ELEMENT_HEADER_LENGTH - 8);
        this.peerStartTime = peer.startTime();
        this.wakeupAddress = WakeupSocket.sockaddr(arena, peer.wakeupName());
        this.statPath = ProcessLiveness.statPath(arena, peer.pid());
    }

    @Override
    public Interface iface() {
        return iface;
    }

    Status failure() {
        return failure;
    }

    // ---- flow control ----

    @Override
    protected boolean hasResources() {
        return producer.hasRoom();
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    /** Dispatches pending requests if the peer FIFO has room again. */
    int dispatchPending() {
        if (!producer.hasRoom()) {
            return 0;
        }
        dispatching = true;
        final int n;
        try {
            n = pending.dispatch();
        } finally {
            dispatching = false;
        }
        counters.add(Counter.PENDING_DISPATCHED, n);
        return n;
    }

    @Override
    protected void pendingAdded() {
        iface.pendingAdded();
    }

    @Override
    public Status pendingAdd(final PendingRequest request) {
        return failure != null ? failure : super.pendingAdd(request);
    }

    private Status noResource() {
        if (FifoDescriptor.state(fifo) != FifoDescriptor.STATE_OPEN) {
            fail(Status.CONNECTION_RESET, null); // the peer closed its interface
            return failure;
        }
        counters.increment(Counter.NO_RESOURCE);
        return Status.NO_RESOURCE;
    }

    private void signalPeer() {
        WakeupSocket.signal(iface.signalFd, iface.signalByte, wakeupAddress);
        counters.increment(Counter.WAKEUPS_SENT);
    }

    // ---- active messages ----

    @Override
    public Status amShort(final int id, final long header, final MemorySegment payload, final long offset,
                          final int length) {
        if (failure != null) {
            return failure;
        }
        if ((id & AM_ID_MASK) != 0 || length < 0 || length > maxShort || offset < 0
            || offset > payload.byteSize() - length) {
            return Status.INVALID_PARAM;
        }
        if (!pending.isEmpty() && !dispatching) {
            return noResource();
        }
        final long seq = producer.tryReserve();
        if (seq < 0) {
            return noResource();
        }
        return writeShort(seq, id, header, payload, offset, length);
    }

    /**
     * The successful part of {@link #amShort}, a method of its own so that the JIT compiles it from its
     * own profile. Inside amShort it was compiled from amShort's, where a sender that met a full FIFO
     * while warming up (most calls refused) made this path look cold: C2 then left the segment
     * accessors' Unsafe calls out of line (PrintInlining: "low call site frequency").
     */
    private Status writeShort(final long seq, final int id, final long header, final MemorySegment payload,
                              final long offset, final int length) {
        final long e = producer.elementOffset(seq) + ELEMENT_HEADER_LENGTH;
        try {
            fifo.set(LONG_LE, e, header);
            MemorySegment.copy(payload, offset, fifo, e + 8, length);
        } catch (final RuntimeException ex) {
            producer.publishSkip(seq); // never leave a reserved cell unpublished: the consumer would stall
            throw ex;
        }
        producer.publish(seq, FLAG_INLINE, id, length + 8);
        if (producer.reservationSawArmed()) {
            signalPeer();
        }
        counters.increment(Counter.TX_MESSAGES);
        counters.add(Counter.TX_BYTES, length + 8L);
        return Status.OK;
    }

    @Override
    public long amBcopy(final int id, final Packer packer) {
        if (failure != null) {
            return failure.code();
        }
        if ((id & AM_ID_MASK) != 0) {
            return Status.INVALID_PARAM.code();
        }
        if (!pending.isEmpty() && !dispatching) {
            return noResource().code();
        }
        final long seq = producer.tryReserve();
        if (seq < 0) {
            return noResource().code();
        }
        final int d = producer.descriptorIndex(seq);
        if (d < 0 || d >= descCount) {
            producer.publishSkip(seq);
            fail(Status.IO_ERROR); // the peer corrupted its own FIFO
            return Status.IO_ERROR.code();
        }
        final long len;
        try {
            len = packer.pack(descPool, (long) d * descStride, bcopyCapacity);
        } catch (final RuntimeException ex) {
            producer.publishSkip(seq);
            throw ex;
        }
        if (len < 0 || len > bcopyCapacity) {
            producer.publishSkip(seq);
            return Status.INVALID_PARAM.code();
        }
        producer.publish(seq, FLAG_DESC, id, (int) len);
        if (producer.reservationSawArmed()) {
            signalPeer();
        }
        counters.increment(Counter.TX_MESSAGES);
        counters.add(Counter.TX_BYTES, len);
        return len;
    }

    // ---- RMA: direct access to the mapped region of the key ----

    @Override
    protected Status access(final RemoteKey rkey, final long address, final long len) {
        if (failure != null) {
            return failure;
        }
        if (!(rkey instanceof ShmMemoryDomain.Key k) || k.md != md || k.view == null
            || !ShmRegionDescriptor.isLive(k.state)) { // closed here, or unmapped by the owner
            return Status.INVALID_RKEY;
        }
        if (len < 0 || address < k.base() || address - k.base() > k.length() - len) {
            counters.increment(Counter.ERRORS);
            return len < 0 ? Status.INVALID_PARAM : Status.OUT_OF_RANGE;
        }
        return Status.OK;
    }

    @Override
    protected MemorySegment mapped(final RemoteKey rkey) {
        return ((ShmMemoryDomain.Key) rkey).view;
    }

    @Override
    protected Counters counters() {
        return counters;
    }

    @Override
    public Status putShort(final MemorySegment src, final long offset, final int length, final long remoteAddress,
                           final RemoteKey rkey) {
        final Status st = access(rkey, remoteAddress, length);
        if (st != Status.OK) {
            return st;
        }
        MemorySegment.copy(src, offset, mapped(rkey), remoteAddress - rkey.base(), length);
        counters.increment(Counter.PUTS);
        counters.add(Counter.TX_BYTES, length);
        return Status.OK;
    }

    @Override
    public long putBcopy(final Packer packer, final long remoteAddress, final RemoteKey rkey) {
        final Status st = access(rkey, remoteAddress, 0);
        if (st != Status.OK) {
            return st.code();
        }
        final MemorySegment mem = mapped(rkey);
        final long off = remoteAddress - rkey.base();
        final long len;
        if (mem.byteSize() - off >= iface.segSize) {
            // a whole segment fits: the packer writes straight into the peer's region
            len = packer.pack(mem, off, iface.segSize);
            if (len < 0 || len > iface.segSize) {
                return Status.INVALID_PARAM.code();
            }
        } else {
            len = putBcopyNearEnd(packer, mem, remoteAddress, rkey);
            if (len < 0) {
                return len;
            }
        }
        counters.increment(Counter.PUTS);
        counters.add(Counter.TX_BYTES, len);
        return len;
    }

    /** Only the packed length tells whether the put fits: pack aside, check, then copy. */
    private long putBcopyNearEnd(final Packer packer, final MemorySegment mem, final long remoteAddress,
                                 final RemoteKey rkey) {
        final MemorySegment bounce = iface.bounce;
        final long len = packer.pack(bounce, 0, iface.segSize);
        if (len < 0 || len > iface.segSize) {
            return Status.INVALID_PARAM.code();
        }
        final Status r = MemoryAtomics.checkRange(rkey, remoteAddress, len);
        if (r != Status.OK) {
            counters.increment(Counter.ERRORS);
            return r.code();
        }
        MemoryCopy.copy(bounce, 0, mem, remoteAddress - rkey.base(), len);
        return len;
    }

    // ---- ordering, liveness, close ----

    /** Every operation is done when it returns; flush only waits for pending requests. */
    @Override
    public Status flush(final int flags, final Completion completion) {
        if (failure != null) {
            return failure;
        }
        if (!pending.isEmpty()) {
            return Status.NO_RESOURCE;
        }
        VarHandle.fullFence();
        return Status.OK;
    }

    @Override
    public Status fence() {
        VarHandle.fullFence();
        return failure != null ? failure : Status.OK;
    }

    /** Liveness probe: the peer pid still runs with the same start time and its FIFO is open. */
    @Override
    public Status check() {
        if (failure != null) {
            return failure;
        }
        if (ProcessLiveness.startTime(statPath, iface.statBuffer) != peerStartTime) {
            fail(Status.CONNECTION_RESET, "the peer process is gone");
            return failure;
        }
        if (FifoDescriptor.state(fifo) != FifoDescriptor.STATE_OPEN) {
            fail(Status.CONNECTION_RESET, null); // the peer closed its interface: the end of a job, no news
            return failure;
        }
        return Status.OK;
    }

    /** Fails the endpoint: later operations return {@code st}; pending requests see it once. */
    void fail(final Status st) {
        fail(st, "");
    }

    /** As {@link #fail(Status)}, logged (INFO) with {@code why} unless it is null (DEBUG: a peer's close). */
    private void fail(final Status st, final String why) {
        if (failure != null) {
            return;
        }
        failure = st;
        // the error handler tells the user; a job whose PEs exit one after another would print a line per peer
        LOG.log(System.Logger.Level.DEBUG, "shm: endpoint failed: {0}{1}",
            st, why == null || why.isEmpty() ? "" : " (" + why + ")");
        pending.purge(PendingRequest::dispatch);
        iface.endpointFailed(this);
    }

    @Override
    public void close() {
        if (failure == Status.CLOSED) {
            return;
        }
        final boolean wasFailed = failure != null;
        failure = Status.CLOSED;
        if (!wasFailed) {
            pending.purge(PendingRequest::dispatch);
        }
        iface.endpointClosed(this);
        iface.md.detach(descAttachment);
        iface.md.detach(fifoAttachment);
        arena.close();
    }
}
