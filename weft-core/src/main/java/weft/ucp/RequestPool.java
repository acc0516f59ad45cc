package weft.ucp;

import weft.ucs.Status;

import java.util.Arrays;

/**
 * A worker's requests (one per worker): the pool they are taken from and returned to (a request goes back
 * only once completed and released), the spare request the RMA immediate path lends a lane, and the queue
 * of completed requests whose callbacks and futures run from {@link Worker#progress()}, never from the call
 * that completed them.
 */
final class RequestPool {
    private final Worker worker;
    private Request[] pool = new Request[64];
    /** See {@link #rmaSpare()}. */
    private Request rmaSpare;
    private int poolSize;
    private Request doneHead;
    private Request doneTail;
    private RuntimeException callbackFailure;

    RequestPool(final Worker worker) {
        this.worker = worker;
    }

    Request acquire(final byte kind) {
        final Request r;
        if (poolSize == 0) {
            r = new Request(worker);
        } else {
            r = pool[--poolSize];
            r.generation++; // even: handed out again (a handle released earlier can no longer be told apart)
        }
        r.reset();
        assert r.isPristine() : "a request left the pool with stale state: a step that widened it did not set wide";
        r.kind = kind;
        r.wide = kind != Request.RECV && kind != Request.SEND; // a send widens in TagEager.start
        return r;
    }

    /**
     * The request whose completion {@link Rma#immediate} hands a lane: acquired and armed (our reference +
     * the one piece) once, and kept across operations the lane finishes inside the call.
     */
    Request rmaSpare() {
        Request s = rmaSpare;
        if (s == null) {
            s = acquire(Request.RMA);
            s.completion.reset(2);
            rmaSpare = s;
        }
        return s;
    }

    /** The lane kept the spare's completion: it is now an operation's request. */
    void rmaSpareTaken() {
        rmaSpare = null;
    }

    void recycle(final Request r) {
        if (r.worker != worker) {
            return;
        }
        r.generation++; // odd while pooled: its holder's handle is refused (Request.checkLive)
        if (poolSize == pool.length) {
            pool = Arrays.copyOf(pool, poolSize * 2);
        }
        pool[poolSize++] = r;
    }

    /** Completes {@code r}: callbacks and futures run from progress, never from the caller's call. */
    void complete(final Request r, final Status status) {
        if (r.completed) {
            return;
        }
        final Status st = r.wide && r.data.failed && !status.isError() ? Status.IO_ERROR : status; // a user pack/unpack threw
        r.status = st;
        if (r.id >= 0) {
            worker.inflight.release(r);
        }
        if (r.wide && r.rndv.handles != null) {
            r.ep.rndvCache.release(r);
        }
        if (r.info != null) {
            r.info.set(r.tag, r.length); // before completed: a MULTI worker's waiter reads it once that is set
        }
        r.markCompleted();
        if (r.wide && r.rma.parent != null) {
            final Request p = r.rma.parent;
            r.rma.parent = null;
            p.completion.complete(st);
        }
        if (r.callback != null || r.future != null) {
            queueDone(r);
        } else if (r.released) {
            recycle(r);
        }
    }

    /** Queues a completed request's callback or future for the next {@link #drainDone()}. */
    void queueDone(final Request r) {
        r.queuedDone = true;
        if (doneTail == null) {
            doneHead = r;
        } else {
            doneTail.nextDone = r;
        }
        doneTail = r;
    }

    /** Runs the callbacks and futures of completed requests; returns how many. */
    int drainDone() {
        int n = 0;
        while (doneHead != null) {
            final Request r = doneHead;
            doneHead = r.nextDone;
            if (doneHead == null) {
                doneTail = null;
            }
            r.nextDone = null;
            n++;
            try { // queuedDone stays set meanwhile: a release() inside the callback leaves the recycling to us
                if (r.callback != null) {
                    r.callback.onComplete(r);
                }
                if (r.future != null) {
                    r.future.complete(r);
                }
            } catch (final RuntimeException e) {
                if (callbackFailure == null) {
                    callbackFailure = e; // rethrown by progress() once every completion has run
                } else {
                    callbackFailure.addSuppressed(e);
                }
            }
            r.queuedDone = false;
            if (r.released) { // only once its holder let go: a kept handle keeps showing this operation
                recycle(r);
            }
        }
        return n;
    }

    /** Returns a shared done request for an operation that completed inside its call, if allowed. */
    Request finishImmediate(final Request r) {
        if (r.completed && r.callback == null && r.future == null && !r.queuedDone) {
            final Status st = r.status;
            if (r.info != null) {
                r.info.set(r.tag, r.length);
            }
            recycle(r);
            return Request.done(st);
        }
        return r;
    }

    /** A handler threw: rethrown by {@link #progress()} once the current round is done. */
    void deferFailure(final RuntimeException e) {
        if (callbackFailure == null) {
            callbackFailure = e;
        } else {
            callbackFailure.addSuppressed(e);
        }
    }

    /** Throws what a callback or handler threw during the round just done, once. */
    void rethrowCallbackFailure() {
        final RuntimeException f = callbackFailure;
        if (f != null) {
            callbackFailure = null;
            throw f;
        }
    }

    /** True while completed requests wait for their callbacks. */
    boolean hasDone() {
        return doneHead != null;
    }
}
