package weft.uct;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * Base for endpoints: every operation answers UNSUPPORTED until a transport overrides it, and
 * the pending queue is provided. Transports override what their capabilities advertise.
 */
public abstract class AbstractEndpoint implements Endpoint {
    /** Requests waiting for resources, dispatched by the transport's progress. */
    protected final PendingQueue pending = new PendingQueue();

    /** For subclasses: an endpoint with an empty pending queue. */
    public AbstractEndpoint() {
    }

    @Override
    public Status amShort(final int id, final long header, final MemorySegment payload, final long offset,
                          final int length) {
        return Status.UNSUPPORTED;
    }

    @Override
    public long amBcopy(final int id, final Packer packer) {
        return Status.UNSUPPORTED.code();
    }

    @Override
    public Status amZcopy(final int id, final MemorySegment header, final long headerOffset, final int headerLength,
                          final IoVector iov, final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status putShort(final MemorySegment src, final long offset, final int length, final long remoteAddress,
                           final RemoteKey rkey) {
        return Status.UNSUPPORTED;
    }

    @Override
    public long putBcopy(final Packer packer, final long remoteAddress, final RemoteKey rkey) {
        return Status.UNSUPPORTED.code();
    }

    @Override
    public Status putZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                           final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status getBcopy(final Unpacker unpacker, final long length, final long remoteAddress,
                           final RemoteKey rkey, final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status getZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                           final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status atomic64Post(final AtomicOp op, final long value, final long remoteAddress, final RemoteKey rkey) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status atomic32Post(final AtomicOp op, final int value, final long remoteAddress, final RemoteKey rkey) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status atomic64Fetch(final AtomicOp op, final long value, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status atomic32Fetch(final AtomicOp op, final int value, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status atomic64Cswap(final long compare, final long swap, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status atomic32Cswap(final int compare, final int swap, final MemorySegment result,
                                final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                final Completion completion) {
        return Status.UNSUPPORTED;
    }

    @Override
    public Status fence() {
        java.lang.invoke.VarHandle.fullFence();
        return Status.OK;
    }

    /** Queues unless the transport says resources are free now ({@link #hasResources()}). */
    @Override
    public Status pendingAdd(final PendingRequest request) {
        if (pending.isEmpty() && hasResources()) {
            return Status.BUSY;
        }
        pending.add(request);
        pendingAdded();
        return Status.OK;
    }

    /**
     * Called after a request joined the pending queue, so that the interface can note that this endpoint
     * needs dispatching (its progress then skips endpoints while none has pending requests).
     */
    protected void pendingAdded() {
    }

    /** True if an operation issued now would not get NO_RESOURCE. */
    protected abstract boolean hasResources();

    @Override
    public void pendingPurge(final Consumer<PendingRequest> sink) {
        pending.purge(sink);
    }
}
