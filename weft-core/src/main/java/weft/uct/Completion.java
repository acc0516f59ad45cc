package weft.uct;

import weft.ucs.Status;

/**
 * Completion of one or more operations that returned {@link Status#IN_PROGRESS}, as UCT's
 * {@code uct_completion_t}: each operation decrements {@link #count()} when it completes; when the
 * count reaches zero the callback runs (from progress), with the first error seen, or OK.
 *
 * <p>Reusable: set the count with {@link #reset(int)} before posting the next batch. One object
 * may be shared by many operations; that is how a caller waits for a batch with no allocation.
 *
 * <pre>{@code
 * Completion c = new Completion(st -> done = true);
 * c.reset(1);
 * if (ep.putZcopy(iov, raddr, rkey, c) != Status.IN_PROGRESS) { ... done now or failed ... }
 * while (!done) iface.progress();
 * }</pre>
 */
public class Completion {
    /** Called when the count reaches zero. */
    @FunctionalInterface
    public interface Callback {
        void onComplete(Status status);
    }

    private final Callback callback;
    private int count;
    private Status status = Status.OK;

    public Completion(final Callback callback) {
        this.callback = callback;
    }

    /** A completion without callback, for polling with {@link #count()}. */
    public Completion() {
        this(null);
    }

    /** Arms for {@code n} operations and clears the status. */
    public final Completion reset(final int n) {
        count = n;
        status = Status.OK;
        return this;
    }

    /** Adds {@code n} more expected operations. */
    public final void expect(final int n) {
        count += n;
    }

    /** Operations still outstanding. */
    public final int count() {
        return count;
    }

    /** True when no operation is outstanding. */
    public final boolean isDone() {
        return count <= 0;
    }

    /** The first error reported, or OK. */
    public final Status status() {
        return status;
    }

    /**
     * Called by transports when one operation finishes with {@code st}. Runs the callback when
     * the count reaches zero.
     */
    public final void complete(final Status st) {
        if (st.isError() && status == Status.OK) {
            status = st;
        }
        if (--count == 0) {
            onComplete(status);
        }
    }

    /** Override, or pass a callback. */
    protected void onComplete(final Status st) {
        if (callback != null) {
            callback.onComplete(st);
        }
    }
}
