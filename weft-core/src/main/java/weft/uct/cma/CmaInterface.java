package weft.uct.cma;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.AbstractInterface;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Device;
import weft.uct.Endpoint;
import weft.uct.InterfaceAttributes;
import weft.uct.InterfaceParams;
import weft.uct.IoVector;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A cma interface: zero-copy put/get into same-node processes with
 * {@code process_vm_writev/readv}. Small transfers (at most {@code CMA_SEG_SIZE}) run in the call
 * when nothing is queued; larger ones go to a FIFO ring of preallocated {@link CmaOp}s and move one
 * segment per {@link #progress()}, so a huge transfer never freezes progress. The ring is strictly
 * FIFO, which gives fence and flush for free: a flush is a marker slot that completes when it
 * reaches the head.
 *
 * <p>Addresses: device = boot id (16 bytes) + pid namespace inode (u64); interface = pid (u32) +
 * process start time (u64, clock ticks), so that a reused pid is not mistaken for the peer.
 *
 * <p>The iovec arrays handed to the kernel live in one native segment of this interface:
 * <pre>
 *  0                         16 * MAX_IOV            16 * (MAX_IOV + 1)
 *  +-------------------------+-----------------------+
 *  | local iovec[MAX_IOV]    | remote iovec[1]       |   iovec = {u64 base; u64 len}
 *  +-------------------------+-----------------------+
 * </pre>
 * Single threaded, like every interface.
 */
final class CmaInterface extends AbstractInterface<CmaEndpoint> {
    static final int MAX_IOV = 16;
    static final int DEVICE_ADDRESS_LENGTH = 16 + 8 + 8;
    static final int IFACE_ADDRESS_LENGTH = 4 + 8;
    private static final long IOVEC_SIZE = 16;
    private static final long REMOTE_IOV_OFFSET = IOVEC_SIZE * MAX_IOV;

    final long segSize;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment iovs;
    private final long localIov;
    private final long remoteIov;
    private final CmaOp[] ring;
    private final int mask;
    private final CmaOp inlineOp = new CmaOp(MAX_IOV);
    private long head;
    private long tail;
    private final byte[] deviceAddress;
    /** Some endpoint may have pending requests (set when one is queued; cleared by a dispatch that empties them). */
    private boolean maybePending;

    CmaInterface(final CmaTransport transport, final UctWorker worker, final Device device,
                 final InterfaceParams params) {
        super(transport, worker, device, params, new CmaEndpoint[0]);
        this.segSize = Math.max(1, params.config().get(CmaTransport.SEG_SIZE));
        final int queueLen = params.config().get(CmaTransport.TX_QUEUE_LEN);
        ring = new CmaOp[queueLen];
        for (int i = 0; i < queueLen; i++) {
            ring[i] = new CmaOp(MAX_IOV);
        }
        mask = queueLen - 1;
        iovs = arena.allocate(IOVEC_SIZE * (MAX_IOV + 1), 64);
        localIov = iovs.address();
        remoteIov = iovs.address() + REMOTE_IOV_OFFSET;
        deviceAddress = transport.deviceAddress();
        final byte[] ifaceAddress = ByteBuffer.allocate(IFACE_ADDRESS_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(transport.pid()).putLong(transport.startTime()).array();
        final long caps = Capability.PUT_ZCOPY | Capability.GET_ZCOPY | Capability.PENDING
            | Capability.CONNECT_TO_IFACE | Capability.EP_CHECK | Capability.ERRHANDLE_PEER_FAILURE;
        // no AM and no bcopy: amMaxIov carries the zcopy iov limit (the SPI has one iov field)
        open(new InterfaceAttributes(caps, 0, 0,
            0, 0, 0, 0, MAX_IOV,
            0, 0, Long.MAX_VALUE, 0, Long.MAX_VALUE,
            80, 1000, 11.0e9, 0), deviceAddress, ifaceAddress);
    }

    // ---- data path ----

    /**
     * Validates and starts a put or get. Returns OK (done inline), IN_PROGRESS (queued),
     * NO_RESOURCE (ring full) or an error; on error nothing was touched.
     */
    Status submit(final CmaEndpoint ep, final int kind, final IoVector iov, final long remoteAddress,
                  final RemoteKey rkey, final Completion completion) {
        if (ep.closed) {
            return Status.CLOSED;
        }
        if (ep.failure != null) {
            return ep.failure;
        }
        if (!(rkey instanceof CmaMemoryDomain.Key k) || k.pid != ep.peerPid || k.isClosed()) {
            counters().increment(Counter.ERRORS);
            return Status.INVALID_RKEY;
        }
        final int n = iov.count();
        if (n > MAX_IOV) {
            return Status.INVALID_PARAM;
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            if (!iov.segment(i).isNative()) {
                return Status.INVALID_PARAM; // the kernel needs a real address
            }
            total += iov.length(i);
        }
        if (!k.contains(remoteAddress, total)) {
            counters().increment(Counter.ERRORS);
            return Status.OUT_OF_RANGE;
        }
        if (total == 0) {
            return Status.OK;
        }
        if (total <= segSize && head == tail) {
            count(kind, total);
            fill(inlineOp, ep, kind, iov, remoteAddress, total, null);
            return runInline(inlineOp);
        }
        if (tail - head == ring.length) {
            counters().increment(Counter.NO_RESOURCE);
            return Status.NO_RESOURCE;
        }
        count(kind, total);
        fill(ring[(int) tail & mask], ep, kind, iov, remoteAddress, total, completion);
        tail++;
        ep.outstanding++;
        return Status.IN_PROGRESS;
    }

    private void count(final int kind, final long bytes) {
        if (kind == CmaOp.PUT) {
            counters().increment(Counter.PUTS);
            counters().add(Counter.TX_BYTES, bytes);
        } else {
            counters().increment(Counter.GETS);
            counters().add(Counter.RX_BYTES, bytes);
        }
    }

    private static void fill(final CmaOp op, final CmaEndpoint ep, final int kind, final IoVector iov,
                             final long remoteAddress, final long total, final Completion completion) {
        op.kind = kind;
        op.ep = ep;
        op.completion = completion;
        op.remote = remoteAddress;
        op.total = total;
        op.done = 0;
        op.entry = 0;
        op.entryOffset = 0;
        int m = 0;
        for (int i = 0; i < iov.count(); i++) {
            final long len = iov.length(i);
            if (len > 0) { // zero-length entries would stall the resume cursor
                op.address[m] = iov.segment(i).address() + iov.offset(i);
                op.length[m] = len;
                m++;
            }
        }
        op.iovCount = m;
    }

    private Status runInline(final CmaOp op) {
        int idle = 0;
        while (op.done < op.total) {
            final long r = transferChunk(op);
            if (r < 0) {
                final Status st = failure(op.ep, (int) -r);
                op.clear();
                return st;
            }
            if (r == 0 && ++idle > 3) {
                op.clear();
                counters().increment(Counter.ERRORS);
                return Status.INVALID_ADDRESS;
            }
        }
        op.clear();
        return Status.OK;
    }

    /**
     * Moves up to one segment of {@code op} with one system call.
     *
     * @return bytes moved (the op's cursor advanced), 0 when the call should be retried, or -errno
     */
    private long transferChunk(final CmaOp op) {
        final long want = Math.min(segSize, op.total - op.done);
        int n = 0;
        long acc = 0;
        int e = op.entry;
        long eo = op.entryOffset;
        while (acc < want) {
            final long take = Math.min(op.length[e] - eo, want - acc);
            iovs.set(JAVA_LONG, n * IOVEC_SIZE, op.address[e] + eo);
            iovs.set(JAVA_LONG, n * IOVEC_SIZE + 8, take);
            n++;
            acc += take;
            eo += take;
            if (eo == op.length[e]) {
                e++;
                eo = 0;
            }
        }
        iovs.set(JAVA_LONG, REMOTE_IOV_OFFSET, op.remote + op.done);
        iovs.set(JAVA_LONG, REMOTE_IOV_OFFSET + 8, want);
        final int pid = op.ep.peerPid;
        final long r = op.kind == CmaOp.PUT
            ? LibC.processVmWritev(pid, localIov, n, remoteIov, 1)
            : LibC.processVmReadv(pid, localIov, n, remoteIov, 1);
        if (r > 0) {
            op.advance(r); // a partial transfer resumes where the kernel stopped
            return r;
        }
        return r == -LibC.EINTR || r == -LibC.EAGAIN ? 0 : r;
    }

    /** Maps a failed transfer's errno to a status; a vanished peer also fails its endpoint. */
    private Status failure(final CmaEndpoint ep, final int errno) {
        counters().increment(Counter.ERRORS);
        return switch (errno) {
            case LibC.ESRCH -> {
                failEndpoint(ep, Status.CONNECTION_RESET);
                yield Status.CONNECTION_RESET;
            }
            case LibC.EFAULT -> Status.INVALID_ADDRESS; // peer memory not mapped (freed or never there)
            case LibC.EPERM, LibC.EACCES -> Status.UNREACHABLE; // not allowed to attach to this peer
            case LibC.ENOMEM -> Status.NO_MEMORY;
            case LibC.EINVAL -> Status.INVALID_PARAM;
            default -> Status.IO_ERROR;
        };
    }

    /** Marks {@code ep} failed; the error handler hears about it from the next progress. */
    void failEndpoint(final CmaEndpoint ep, final Status status) {
        if (ep.failure == null) {
            ep.failure = status;
            failed(ep);
        }
    }

    /** Queues a flush marker. */
    Status enqueueFlush(final CmaEndpoint ep, final Completion completion) {
        if (tail - head == ring.length) {
            counters().increment(Counter.NO_RESOURCE);
            return Status.NO_RESOURCE;
        }
        final CmaOp op = ring[(int) tail & mask];
        op.kind = CmaOp.FLUSH;
        op.ep = ep;
        op.completion = completion;
        tail++;
        return Status.IN_PROGRESS;
    }

    boolean hasRoom() {
        return tail - head < ring.length;
    }

    /** Completes every queued operation (and flush marker) of {@code ep} with {@code status} now. */
    void cancel(final CmaEndpoint ep, final Status status) {
        for (long i = head; i < tail; i++) {
            final CmaOp op = ring[(int) i & mask];
            if (op.kind != CmaOp.NONE && op.ep == ep) {
                final Completion c = op.completion;
                if (op.kind != CmaOp.FLUSH) {
                    ep.outstanding--;
                }
                op.clear(); // the slot stays in the ring as a hole; progress skips it
                if (c != null) {
                    c.complete(status);
                }
            }
        }
    }

    // ---- progress ----

    @Override
    public int progress() {
        if (isClosed()) {
            return 0;
        }
        int work = 0;
        if (hasFailures()) {
            work += reportFailures();
        }
        if (head != tail) {
            work += progressRing();
        }
        if (maybePending && hasRoom()) {
            work += dispatchPending();
        }
        return work;
    }

    /** An endpoint queued a pending request: progress dispatches until none is left. */
    void pendingAdded() {
        maybePending = true;
    }

    /** Retires holes and flush markers at the head, then moves one segment of the first transfer. */
    private int progressRing() {
        int work = 0;
        while (head != tail) {
            final CmaOp op = ring[(int) head & mask];
            if (op.kind == CmaOp.NONE) {
                head++;
                continue;
            }
            if (op.kind == CmaOp.FLUSH) {
                final CmaEndpoint ep = op.ep;
                final Completion c = op.completion;
                op.clear();
                head++;
                work++;
                c.complete(ep != null && ep.failure != null ? ep.failure : Status.OK);
                continue;
            }
            if (op.ep.failure != null) {
                finishHead(op, op.ep.failure);
                work++;
                continue;
            }
            final long r = transferChunk(op);
            if (r < 0) {
                finishHead(op, failure(op.ep, (int) -r));
            } else if (op.done == op.total) {
                finishHead(op, Status.OK);
            }
            return work + 1;
        }
        return work;
    }

    private void finishHead(final CmaOp op, final Status status) {
        final Completion c = op.completion;
        op.ep.outstanding--;
        op.clear();
        head++; // before the callback: it may post again
        if (c != null) {
            c.complete(status);
        }
    }

    private int dispatchPending() {
        maybePending = false; // set again below, or by an endpoint that queues while we dispatch
        int work = 0;
        for (final CmaEndpoint ep : endpoints()) {
            if (hasRoom()) {
                final int n = ep.dispatchPending();
                if (n > 0) {
                    counters().add(Counter.PENDING_DISPATCHED, n);
                    work += n;
                }
            }
            if (ep.hasPending()) {
                maybePending = true;
            }
        }
        return work;
    }

    @Override
    protected void reportFailure(final CmaEndpoint ep) {
        if (!ep.closed) {
            notifyError(ep, ep.failure);
        }
    }

    // ---- addresses and connection ----

    @Override
    public boolean isReachable(final byte[] devAddr, final byte[] ifAddr) {
        // same boot (same kernel) and same pid namespace, so that the pid means the same process; same
        // network namespace too, as shm requires: Weft's node is one (kernel, pid ns, net ns), so that
        // hosts emulated with network namespaces reach each other over tcp only, like real hosts
        return devAddr != null && ifAddr != null && devAddr.length == DEVICE_ADDRESS_LENGTH
            && ifAddr.length == IFACE_ADDRESS_LENGTH && Arrays.equals(devAddr, deviceAddress)
            && ByteBuffer.wrap(ifAddr).order(ByteOrder.LITTLE_ENDIAN).getInt() > 0;
    }

    @Override
    public Endpoint connect(final byte[] devAddr, final byte[] ifAddr) {
        checkOpen();
        if (!isReachable(devAddr, ifAddr)) {
            throw new WeftException(Status.UNREACHABLE,
                "cma: peer is on another node or in another pid namespace (or the address is malformed)");
        }
        final ByteBuffer b = ByteBuffer.wrap(ifAddr).order(ByteOrder.LITTLE_ENDIAN);
        final CmaEndpoint ep = new CmaEndpoint(this, b.getInt(), b.getLong());
        addEndpoint(ep);
        return ep;
    }

    void endpointClosed(final CmaEndpoint ep) {
        removeEndpoint(ep);
    }

    // ---- the rest of the interface contract ----

    /** Nothing arrives unannounced on cma: BUSY while local work is queued, else OK. */
    @Override
    public Status arm() {
        return head != tail || hasFailures() ? Status.BUSY : Status.OK;
    }

    @Override
    public int eventFd() {
        return -1;
    }

    @Override
    public Status flush(final int flags, final Completion completion) {
        if (isClosed()) {
            return Status.CLOSED;
        }
        if ((flags & FLUSH_CANCEL) != 0) {
            for (final CmaEndpoint ep : endpoints()) {
                cancel(ep, Status.CANCELED);
            }
            return Status.OK;
        }
        for (final CmaEndpoint ep : endpoints()) {
            if (ep.hasPending()) {
                return Status.NO_RESOURCE;
            }
        }
        if (head == tail) {
            return Status.OK;
        }
        return completion == null ? Status.IN_PROGRESS : enqueueFlush(null, completion);
    }

    /** The ring executes in order, and inline transfers run only when it is empty. */
    @Override
    public Status fence() {
        return isClosed() ? Status.CLOSED : Status.OK;
    }

    /** Slots in use (queued transfers, flush markers and holes), for tests. */
    int queued() {
        return (int) (tail - head);
    }

    @Override
    protected void release() {
        head = tail = 0;
        arena.close();
    }
}
