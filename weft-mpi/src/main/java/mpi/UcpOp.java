package mpi;

import weft.ucp.Worker;

import java.lang.foreign.MemorySegment;

/**
 * An {@link InFlight} that is one ucp request (a tag send or receive, or an active-message send), with what must
 * outlive the call that started it (an active message's header or staged copy). Pooled (one pool per thread under
 * THREAD_MULTIPLE, one for the session below it), so the blocking calls that go through it allocate nothing once warm.
 */
final class UcpOp extends InFlight {
    private static final int POOL_MAX = 256;
    /** Released ops, per caller ({@link PerCaller}). */
    static final PerCaller<Pool> POOLS = new PerCaller<>(Pool::new);

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
        final Pool p = POOLS.get();
        return p.size > 0 ? p.ops[--p.size] : new UcpOp();
    }

    /** Released ops, a stack (the last released, whose lines are warm, is taken first). */
    static final class Pool {
        final UcpOp[] ops = new UcpOp[POOL_MAX];
        int size;
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
        final Pool p = POOLS.get();
        if (p.size < POOL_MAX) {
            p.ops[p.size++] = this;
        }
    }

    @Override
    void cancel(final Worker w) {
        if (!request.isCompleted()) {
            w.cancel(request);
        }
    }
}
