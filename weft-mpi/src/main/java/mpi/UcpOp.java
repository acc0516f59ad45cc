package mpi;

import weft.ucp.Worker;

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

    private UcpOp() {
    }

    /** A handle on {@code r}, keeping {@code memory} reachable until released. */
    static UcpOp of(final weft.ucp.Request r, final Object memory) {
        final UcpOp op = POOL.get().pollFirst();
        final UcpOp o = op != null ? op : new UcpOp();
        o.request = r;
        o.keep = memory;
        return o;
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
