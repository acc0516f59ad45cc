package mpi;

import weft.ucp.Worker;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * An {@link InFlight} that is one ucp request (a tag send or receive, or an active-message send), with what must
 * outlive the call that started it (an active message's header or staged copy). Pooled per thread, so the
 * blocking calls that go through it allocate nothing once warm.
 */
final class UcpOp extends InFlight {
    private static final int POOL_MAX = 256;
    private static final ThreadLocal<ArrayDeque<UcpOp>> POOL = ThreadLocal.withInitial(ArrayDeque::new);

    private weft.ucp.Request request;
    /** Memory the request reads until it completes (else null). */
    private Object keep;
    /** The handle's own staging memory ({@link #staging}), kept with it in the pool. */
    private MemorySegment staging;

    private UcpOp() {
    }

    /** A handle on {@code r}, keeping {@code memory} reachable until released. */
    static UcpOp of(final weft.ucp.Request r, final Object memory) {
        return take().start(r, memory);
    }

    /** A pooled handle, not yet started: {@link #staging} may be filled before {@link #start}. */
    static UcpOp take() {
        final UcpOp op = POOL.get().pollFirst();
        return op != null ? op : new UcpOp();
    }

    /** Starts this handle on {@code r}, keeping {@code memory} reachable until released. */
    UcpOp start(final weft.ucp.Request r, final Object memory) {
        request = r;
        keep = memory;
        return this;
    }

    /**
     * At least {@code bytes} of heap memory that belong to this handle until it is released (an active
     * message's header and short payload, which the send reads until it completes); reused by its next use.
     */
    MemorySegment staging(final long bytes) {
        if (staging == null || staging.byteSize() < bytes) {
            staging = MemorySegment.ofArray(new byte[Math.toIntExact(Math.max(bytes, 64))]);
        }
        return staging;
    }

    @Override
    boolean isCompleted() {
        return request.isCompleted();
    }

    @Override
    weft.ucs.Status status() {
        return request.status();
    }

    @Override
    long senderTag() {
        return request.senderTag();
    }

    @Override
    long length() {
        return request.length();
    }

    @Override
    weft.ucs.Status awaitStatus() {
        return request.awaitStatus();
    }

    @Override
    void release() {
        final weft.ucp.Request r = request;
        request = null;
        keep = null;
        if (!r.isCompleted()) {
            staging = null; // the unfinished send still reads it: the next use gets memory of its own
        }
        r.release();
        final ArrayDeque<UcpOp> pool = POOL.get();
        if (pool.size() < POOL_MAX) {
            pool.addFirst(this);
        }
    }

    @Override
    void cancel(final Worker w) {
        if (!request.isCompleted()) {
            w.cancel(request);
        }
    }
}
