package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Completion;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * An operation in flight, or finished.
 *
 * <p>Rules (the same for every operation):
 * <ul>
 *   <li>An operation started <em>without</em> a callback that completes at once returns
 *   {@link #done(Status)}, a shared immutable request: nothing is allocated and nothing needs releasing.
 *   A tag receive without a {@link TagInfo} is the exception: its request is where the sender's tag and
 *   length are read, so it returns its own (completed) request. Otherwise it returns a request from the
 *   worker's pool: poll {@link #isCompleted()} (progressing the
 *   worker) or {@link #await()}, then {@link #release()} it. Releasing before completion is allowed: the
 *   request returns to the pool when it completes. A request never released is simply garbage
 *   collected (it leaks nothing, it only costs an allocation later).</li>
 *   <li>An operation started <em>with</em> a {@link RequestCallback} always calls it exactly once, from
 *   {@link Worker#progress()}, never from inside the starting call, even when it completed at once.
 *   Release it as any other (inside the callback is fine) to have it reused.</li>
 *   <li>A request goes back to the pool, and may then serve another operation, only once it is completed
 *   <em>and</em> its holder released it: until then the handle shows its own operation, whatever happens
 *   to others (a receive kept after its callback still answers its own status, tag and length, and
 *   {@link Worker#cancel} on it cannot reach another receive). A request never released is garbage
 *   collected (nothing leaks; the pool allocates a new one later).</li>
 *   <li>After {@link #release()} the handle is the pool's: every method of it (and {@link Worker#cancel})
 *   throws {@link IllegalStateException} while it waits in the pool (a generation stamp, odd in the
 *   pool, tells). Once another operation takes it the old handle can no longer be told from the new one,
 *   as with any freed object: do not keep it.</li>
 * </ul>
 *
 * <pre>{@code
 * Request r = ep.sendTag(42, buf);
 * r.await();                     // progresses the worker until done; throws WeftException if it failed
 * r.release();
 *
 * Status st = ep.flush().awaitStatus();  // or take the status as a code
 * }</pre>
 */
public class Request {
    private static final Request[] DONE = new Request[Status.values().length];

    static {
        for (final Status s : Status.values()) {
            DONE[s.ordinal()] = new Request(null, s);
        }
    }

    // kinds (package-private; one class for every operation keeps pooling simple)
    static final byte SEND = 1;
    static final byte RECV = 2;
    static final byte RNDV_SEND = 3;
    static final byte RNDV_RECV = 4;
    static final byte CONTROL = 5;
    static final byte RMA = 6;
    static final byte AM_SEND = 20;       // active message, eager (ActiveMessages)
    static final byte STREAM_SEND = 21;   // stream send (Streams)
    static final byte STREAM_RECV = 22;   // stream receive (Streams)
    static final byte CONNECT = 23; // the gate of a sockaddr endpoint: holds its send queue until accepted
    static final byte CLOSE = 24;   // an endpoint close in FLUSH mode
    static final byte DEFERRED = 25; // an operation posted on an endpoint still connecting (SockaddrConnect)
    /** One more than the largest kind: the size of the worker's table of protocols by kind. */
    static final int KINDS = 26;

    final Worker worker;
    /**
     * Incremented when the request enters the pool and when it leaves it: odd while pooled, so a handle its
     * holder released is refused ({@link #checkLive}) until another operation takes the request.
     */
    int generation;
    byte kind;
    Status status = Status.OK;
    /**
     * Set last when an operation completes, with release semantics ({@link #markCompleted}), and read with
     * acquire semantics by the waits: a MULTI worker's other thread that sees it set also sees the status and
     * the receive's {@link TagInfo}, written before it.
     */
    boolean completed;
    boolean released;
    boolean urgent; // a CONTROL reply queued ahead of the send queue (Endpoint.sendReply)
    /**
     * True once the request may have left the fields of a plain receive or a short eager send (set by kind
     * when acquired, and by every step that takes a receive or send further: datatypes, other protocols,
     * rendezvous, striping, an inflight id, a future): {@link #reset} then restores every field instead of
     * the few those two write.
     */
    boolean wide;
    RequestCallback callback;
    CompletableFuture<Request> future;

    // tag send/receive
    MemorySegment buffer;
    long offset;
    long capacity; // bytes the buffer can take (receive) or bytes to send
    long tag;
    long mask;
    long length;   // received bytes (sender's length on truncation) or bytes sent
    /** Bytes of the message moved so far: written into the receive, sent, or issued (RMA pieces). */
    long moved;
    long sn;       // posting order in the tag matcher
    int bucket = -1;
    TagInfo info;
    Endpoint ep;
    long id = -1;  // inflight id when a peer must name this request (sync ack, rendezvous)
    boolean sync;
    boolean acked;
    boolean localDone;
    boolean zdata; // rendezvous data streamed zero-copy: completes by its completion count

    /** Datatype of the user data ({@link Datatypes}): contiguous buffer/offset, or in {@link #data}. */
    byte dt;

    // intrusive links: expected queue / worker completion queue / endpoint send queue
    Request prev;
    Request next;
    Request nextDone;
    Request nextSend;
    boolean queuedDone;

    // state by protocol: made once per pooled request, reset only when the request went wide
    final RndvState rndv;
    final RmaState rma;
    final StripeState stripes;
    final AmSendState amSend;
    final DatatypeState data;
    final ControlState control;

    /** One zero-copy piece in flight (an RMA piece, a rendezvous or eager zcopy fragment). */
    final weft.uct.IoVector rmaIov = new weft.uct.IoVector(1);
    /** Counts the pieces in flight; at zero the request's protocol goes on. */
    final Completion completion;
    /** The peer's address of the data (RMA target, rendezvous source or destination). */
    long remoteAddress;
    /** Where the protocol stands (the protocol's own stage constants). */
    int sendStage;
    /** Stream receive: complete only when the buffer is full. */
    boolean waitAll;

    private static final java.lang.invoke.VarHandle COMPLETED;

    static {
        try {
            COMPLETED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Request.class, "completed",
                boolean.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Marks the request completed after everything its waiter reads was written (a release store). */
    void markCompleted() {
        COMPLETED.setRelease(this, true);
    }

    /** {@link #completed} read with acquire semantics: what was written before {@link #markCompleted} is seen. */
    boolean completedAcquire() {
        return (boolean) COMPLETED.getAcquire(this);
    }

    /** A finished request shared by every operation that completed at once with {@code status}. */
    public static Request done(final Status status) {
        return DONE[status.ordinal()];
    }

    private Request(final Worker worker, final Status doneStatus) {
        this.worker = worker;
        this.status = doneStatus;
        this.completed = true;
        this.completion = null;
        this.rndv = null;
        this.rma = null;
        this.stripes = null;
        this.amSend = null;
        this.data = null;
        this.control = null;
    }

    Request(final Worker worker) {
        this.worker = worker;
        this.rndv = new RndvState();
        this.rma = new RmaState();
        this.stripes = new StripeState();
        this.amSend = new AmSendState();
        this.data = new DatatypeState();
        this.control = new ControlState();
        this.completion = new Completion() {
            @Override
            protected void onComplete(final Status st) {
                // the count reached zero (zero-copy pieces, gets, puts, flushes): the request's protocol goes on
                worker.protocols.of(kind).onCompletion(Request.this, st);
            }
        };
    }

    /** True when the operation has finished (with success or an error). Does not progress the worker. */
    public final boolean isCompleted() {
        checkLive();
        return completedAcquire();
    }

    /** {@link Status#IN_PROGRESS} until completed, then OK or the error. */
    public final Status status() {
        checkLive();
        return completedAcquire() ? status : Status.IN_PROGRESS;
    }

    /** Throws if this handle was released and the request waits in the pool (see the class comment). */
    final void checkLive() {
        if ((generation & 1) != 0) {
            throw stale();
        }
    }

    private IllegalStateException stale() {
        return new IllegalStateException("request was released (generation " + generation + ", back in its "
            + "worker's pool): a handle must not be used after release(); it will serve another operation");
    }

    /**
     * For a tag receive: the sender's tag (0 in {@link #done(Status)}: a receive given a {@link TagInfo}
     * reports there instead).
     */
    public final long senderTag() {
        checkLive();
        return tag;
    }

    /**
     * For a receive: the sender's length (0 in {@link #done(Status)}: a tag receive given a {@link TagInfo}
     * reports there instead); for a send: the bytes sent.
     */
    public final long length() {
        checkLive();
        return length;
    }

    /**
     * Progresses the owning worker until this request completes (spinning, then yielding) and returns its
     * status; throws if the operation failed, as a Java future's {@code get()} does, so that a failed send
     * is never mistaken for a sent one. {@link #awaitStatus()} is the form for code that wants codes.
     *
     * @return the status: {@link Status#OK}, or another status that is not an error
     * @throws WeftException carrying the status, when the operation failed (the peer died, the endpoint
     *                       was closed, the receive was canceled or truncated ...)
     */
    public final Status await() {
        final Status st = awaitStatus();
        if (st.isError()) {
            throw new WeftException(st, "operation failed: " + st + " (" + this + ")");
        }
        return st;
    }

    /**
     * Progresses the owning worker until this request completes and returns its status, error or not:
     * the status-code form of {@link #await()}.
     */
    public final Status awaitStatus() {
        checkLive();
        if (worker != null) {
            worker.await(this);
        }
        return status;
    }

    /**
     * Returns the request to the worker's pool (now if completed, else when it completes; inside its own
     * callback: when the callback returns). Do not touch the request afterwards: its methods throw
     * {@link IllegalStateException} while it waits in the pool (so does a second release). Safe to call on
     * {@link #done(Status)} requests (no-op).
     */
    public final void release() {
        if (worker == null) {
            return;
        }
        worker.guard.enter(); // the pool belongs to the worker: MULTI threads release concurrently
        try {
            checkLive();
            if (released) {
                return; // released before it completed: it goes to the pool when it does
            }
            released = true;
            if (completed && !queuedDone) {
                // straight to the pool method completions use (compiled early): a delegate only this branch
                // calls was never run when a caller's loop was compiled, so it was called out of line and
                // compiled on its own, mid-run (1-3 ms, twice, inside a short latency run)
                worker.requests.recycle(this);
            }
        } finally {
            worker.guard.exit();
        }
    }

    /**
     * Gives a request that is still held (not released) a completion callback after the call that started it:
     * {@code callback} runs from {@link Worker#progress()} when the request completes, or from the next
     * progress if it already has. For code that learns only after the call whether it needs one (an operation
     * that finished inside the call returns {@link #done(Status)}, which needs none). Allocates nothing.
     *
     * @throws WeftException INVALID_PARAM on a {@link #done(Status)} request or one that has a callback
     */
    public final Request whenComplete(final RequestCallback callback) {
        if (worker == null) {
            throw new WeftException(Status.INVALID_PARAM, "a shared done request takes no callback: it is complete");
        }
        worker.guard.enter();
        try {
            checkLive();
            if (this.callback != null || callback == null) {
                throw new WeftException(Status.INVALID_PARAM, "request already has a callback (or none was given)");
            }
            this.callback = callback;
            wide = true;
            if (completed && !queuedDone) {
                worker.requests.queueDone(this);
            }
            return this;
        } finally {
            worker.guard.exit();
        }
    }

    /**
     * A future completed (from progress) with this request. Convenience for code that is not on a
     * hot path: it allocates. Someone must still progress the worker.
     */
    public final CompletableFuture<Request> toFuture() {
        if (worker == null) {
            return CompletableFuture.completedFuture(this);
        }
        worker.guard.enter(); // the request belongs to the worker: same thread rules as its other calls
        try {
            checkLive();
            if (future == null) {
                future = new CompletableFuture<>();
                wide = true;
                if (completed) {
                    future.complete(this);
                }
            }
            return future;
        } finally {
            worker.guard.exit();
        }
    }

    /**
     * Returns every field to its initial value, for the next operation. Once per pooled operation, so
     * it is written for speed: a request that was only ever a plain receive (the common case, and the
     * whole of a streaming receiver's work) touched only the first group of fields, so only those are
     * stored; one that went further ({@link #wide}) gets every field back. {@link #isPristine()} checks
     * the result in tests.
     */
    void reset() {
        kind = 0;
        status = Status.OK;
        completed = false;
        released = false;
        callback = null;
        buffer = null;
        offset = capacity = tag = mask = length = moved = sn = 0;
        info = null;
        ep = null;
        bucket = -1;
        prev = next = nextDone = null;
        queuedDone = false;
        // what a short eager send that waited in its endpoint's queue writes (also narrow: see TagEager.start)
        sync = localDone = false;
        sendStage = 0;
        nextSend = null;
        if (wide) {
            resetWide();
        }
    }

    /** The fields and groups only sends, rendezvous, datatypes, one-sided operations and active messages use. */
    private void resetWide() {
        wide = false;
        urgent = false;
        future = null;
        id = -1;
        acked = zdata = false;
        dt = Datatypes.CONTIG;
        data.reset();
        control.reset();
        rndv.reset();
        rma.reset();
        stripes.reset();
        amSend.reset();
        rmaIov.clear();
        remoteAddress = 0;
        waitAll = false;
    }

    /** True if every field is at its initial value except {@link #kind} (what {@link #reset} leaves); for tests. */
    boolean isPristine() {
        return !wide && status == Status.OK && !completed && !released && !urgent && callback == null && future == null
            && buffer == null && offset == 0 && capacity == 0 && tag == 0 && mask == 0 && length == 0 && moved == 0
            && sn == 0 && bucket == -1 && info == null && ep == null && id == -1 && !sync && !acked && !localDone
            && !zdata && dt == Datatypes.CONTIG && data.isPristine() && control.isPristine()
            && prev == null && next == null && nextDone == null && nextSend == null
            && !queuedDone && rndv.isPristine() && rma.isPristine() && stripes.isPristine() && amSend.isPristine()
            && rmaIov.count() == 0 && remoteAddress == 0 && sendStage == 0 && !waitAll;
    }

    @Override
    public String toString() {
        return "Request[kind=" + kind + ", status=" + status() + ", tag=0x" + Long.toHexString(tag) + ", length="
            + length + "]";
    }
}
