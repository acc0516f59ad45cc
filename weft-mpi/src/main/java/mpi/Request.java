package mpi;

import weft.ucp.Worker;

/**
 * A non-blocking operation in flight (MPI_Request): wait for it ({@link #waitFor}, {@link #waitStatus}),
 * poll it ({@link #test}, {@link #testStatus}), or {@link #cancel} a receive. A completed request becomes
 * null ({@link #isNull}); the static {@code wait}/{@code test} families take arrays of requests, skipping
 * null ones.
 *
 * <pre>{@code
 * IntBuffer in = MPI.newIntBuffer(4), out = MPI.newIntBuffer(4);
 * Request r = comm.iRecv(in, 4, MPI.INT, left, 0);
 * Request s = comm.iSend(out, 4, MPI.INT, right, 0);
 * Request.waitAll(new Request[] {r, s});
 * }</pre>
 */
public class Request implements Freeable {
    static final byte SEND = 1;
    static final byte RECV = 2;
    /** A request-based window operation ({@link WinRequest}). */
    static final byte RMA = 3;
    /** A non-blocking file access ({@link FileAsync}). */
    static final byte FILE = 4;

    final Comm comm;
    /** The message in flight (else null). */
    InFlight op;
    byte kind;
    Span span;
    long capacity;
    /** The rank a receive waits for (its liveness is watched during long waits), or ANY_SOURCE. */
    int source = MPI.ANY_SOURCE;
    /** The status of an operation that finished inside its starting call (PROC_NULL) or was collected. */
    Status done;
    /** A non-blocking collective in flight (else null). */
    Schedule schedule;
    /** A receive into packed bytes that are unpacked into {@link #span} once it completes (else null). */
    java.lang.foreign.MemorySegment packed;
    int unpackCount;
    Datatype unpackType;

    Request(final Comm comm) {
        this.comm = comm;
    }

    static Request nullRequest() {
        return new Request(null);
    }

    /** A request that is already complete with {@code status}. */
    static Request completed(final Comm comm, final Status status) {
        final Request r = new Request(comm);
        r.done = status;
        return r;
    }

    void started(final byte k, final InFlight r, final Span s, final long cap) {
        source = MPI.ANY_SOURCE;
        kind = k;
        op = r;
        span = s;
        capacity = cap;
        done = null;
    }

    /**
     * True when this request names no operation: MPI_REQUEST_NULL, or one already waited for (a persistent
     * request stays non-null until freed).
     */
    public boolean isNull() {
        return inactive();
    }

    /** No operation in flight or finished-but-not-collected (null, or a persistent request not started). */
    final boolean inactive() {
        return op == null && done == null && schedule == null;
    }

    /** A request for a non-blocking collective, moved on by its tests and waits. */
    static Request collective(final Comm comm, final Schedule s) throws MPIException {
        final Request r = new Request(comm);
        r.schedule = s;
        r.finished();
        return r;
    }

    /**
     * Waits for the operation to finish. A message's completion makes no {@link Status} here (nobody asks for
     * it: {@link #waitAll} of a window of sends or of contiguous receives allocates nothing per message).
     */
    public final void waitFor() throws MPIException {
        if (done != null || op == null || !(kind == SEND && op instanceof UcpOp || kind == RECV && packed == null)) {
            waitStatus();
            return;
        }
        MPI.check();
        awaitOp();
        final InFlight r = op;
        final Span s = span;
        op = null;
        span = null;
        final weft.ucs.Status st = r.status();
        if (kind == SEND) {
            r.release();
            if (st.isError()) {
                throw comm.fail(sendFailure(st));
            }
            return;
        }
        final long senderTag = r.senderTag();
        final long length = r.length();
        r.release();
        try {
            Messaging.receivedBytes(st, senderTag, length, capacity, s, null);
        } catch (final MPIException e) {
            throw comm.fail(e);
        }
    }

    /** Waits for the operation to finish and returns its status; the request becomes null. */
    public final Status waitStatus() throws MPIException {
        MPI.check();
        if (inactive()) {
            return Status.empty();
        }
        if (op != null) {
            awaitOp();
        } else if (schedule != null) {
            try {
                schedule.run();
                done = Status.empty();
            } catch (final MPIException e) {
                throw comm.fail(e);
            } finally {
                schedule = null;
            }
        }
        return take();
    }

    /** Progresses until the message in flight finished (a failure drops it and goes to the error handler). */
    private void awaitOp() throws MPIException {
        try {
            Messaging.awaitFrom(comm, op, kind == RECV ? source : Messaging.NO_WATCH);
        } catch (final MPIException e) {
            op = null;
            throw comm.fail(e);
        }
    }

    private static MPIException sendFailure(final weft.ucs.Status st) {
        return new MPIException(Messaging.errorClass(st), "non-blocking send failed: " + st);
    }

    /** True if the operation finished (the request then becomes null). Progresses communication. */
    public final boolean test() throws MPIException {
        return testStatus() != null;
    }

    /** The status if the operation finished (the request then becomes null), else null. */
    public final Status testStatus() throws MPIException {
        MPI.check();
        if (inactive()) {
            return Status.empty();
        }
        if (!poll()) {
            return null;
        }
        return take();
    }

    /** The status if the operation finished, without making the request null; else null. */
    public final Status getStatus() throws MPIException {
        MPI.check();
        if (inactive()) {
            return Status.empty();
        }
        if (!poll()) {
            return null;
        }
        collect();
        return done;
    }

    /**
     * Cancels a receive that has not matched yet: it completes and its status reports
     * {@link Status#isCancelled()}. A send, or a receive that matched, completes normally.
     */
    public final void cancel() throws MPIException {
        MPI.check();
        if (op != null && kind == RECV && !op.isCompleted()) {
            op.cancel(worker());
        }
    }

    /**
     * Lets the operation finish on its own: the request becomes null; the buffer must stay untouched until
     * the operation is known to be done by other means.
     */
    public void free() throws MPIException {
        MPI.check();
        if (schedule != null) {
            throw comm.fail(new MPIException(MPI.ERR_REQUEST, "a non-blocking collective in flight cannot be "
                + "freed (the other ranks wait for its messages): wait for it"));
        }
        if (op != null) {
            op.release();
        }
        op = null;
        done = null;
    }

    // ------------------------------------------------------------------ the wait / test families

    /** Waits until one of the requests finishes; its index, or {@link MPI#UNDEFINED} if all are null. */
    public static int waitAny(final Request[] requests) throws MPIException {
        return waitAnyStatus(requests).getIndex();
    }

    /** {@link #waitAny} returning the status, whose {@link Status#getIndex()} is the request's index. */
    public static Status waitAnyStatus(final Request[] requests) throws MPIException {
        MPI.check();
        final Worker w = MPI.session().worker;
        for (int idle = 0; ; ) {
            boolean any = false;
            for (int i = 0; i < requests.length; i++) {
                final Request r = requests[i];
                if (r == null || r.inactive()) {
                    continue;
                }
                any = true;
                if (r.finished()) {
                    return r.take().withIndex(i);
                }
            }
            if (!any) {
                return Status.empty().withIndex(MPI.UNDEFINED);
            }
            idle = Progress.step(w, idle);
        }
    }

    /** Waits for every request (in order; the first failure is thrown once all were waited for). */
    public static void waitAll(final Request[] requests) throws MPIException {
        MPI.check();
        MPIException first = null;
        for (final Request r : requests) {
            try {
                if (r != null) {
                    r.waitFor(); // no Status array, and no Status for a send
                }
            } catch (final MPIException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Waits for every request; their statuses in order. */
    public static Status[] waitAllStatus(final Request[] requests) throws MPIException {
        MPI.check();
        final Status[] out = new Status[requests.length];
        MPIException first = null;
        for (int i = 0; i < requests.length; i++) {
            try {
                out[i] = requests[i] == null ? Status.empty() : requests[i].waitStatus();
            } catch (final MPIException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
        return out;
    }

    /** Waits until at least one request finishes; the indices of all that finished (null if all are null). */
    public static int[] waitSome(final Request[] requests) throws MPIException {
        return indices(waitSomeStatus(requests));
    }

    /** The indices of statuses of the *Some family (null stays null: every request was null). */
    private static int[] indices(final Status[] s) {
        if (s == null) {
            return null;
        }
        final int[] idx = new int[s.length];
        for (int i = 0; i < s.length; i++) {
            idx[i] = s[i].getIndex();
        }
        return idx;
    }

    /**
     * {@link #waitSome} returning statuses with their indices; null when every request is null
     * (MPI_UNDEFINED outcount).
     */
    public static Status[] waitSomeStatus(final Request[] requests) throws MPIException {
        MPI.check();
        final Worker w = MPI.session().worker;
        for (int idle = 0; ; ) {
            final Status[] s = collectFinished(requests);
            if (s != NONE_FINISHED) {
                return s;
            }
            idle = Progress.step(w, idle);
        }
    }

    /** The index of a finished request, or {@link MPI#UNDEFINED} if none finished or all are null. */
    public static int testAny(final Request[] requests) throws MPIException {
        final Status s = testAnyStatus(requests);
        return s == null ? MPI.UNDEFINED : s.getIndex();
    }

    /** The status of a finished request with its index; null if none finished. */
    public static Status testAnyStatus(final Request[] requests) throws MPIException {
        MPI.check();
        MPI.session().worker.progress();
        boolean any = false;
        for (int i = 0; i < requests.length; i++) {
            final Request r = requests[i];
            if (r != null && !r.inactive()) {
                any = true;
                if (r.finished()) {
                    return r.take().withIndex(i);
                }
            }
        }
        return any ? null : Status.empty().withIndex(MPI.UNDEFINED);
    }

    /** True if every request finished (they then become null); else none is touched. */
    public static boolean testAll(final Request[] requests) throws MPIException {
        return testAllStatus(requests) != null;
    }

    /** Every request's status if all finished, else null. */
    public static Status[] testAllStatus(final Request[] requests) throws MPIException {
        MPI.check();
        MPI.session().worker.progress();
        for (final Request r : requests) {
            if (r != null && !r.inactive() && !r.finished()) {
                return null;
            }
        }
        return waitAllStatus(requests);
    }

    /** The indices of the requests that finished: empty if none, null if every request is null. */
    public static int[] testSome(final Request[] requests) throws MPIException {
        return indices(testSomeStatus(requests));
    }

    /** The statuses (with indices) of the requests that finished: empty if none, null if every request is null. */
    public static Status[] testSomeStatus(final Request[] requests) throws MPIException {
        MPI.check();
        MPI.session().worker.progress();
        final Status[] s = collectFinished(requests);
        return s == NONE_FINISHED ? new Status[0] : s;
    }

    // ------------------------------------------------------------------ internal

    /** {@link #collectFinished}'s answer when requests are active but none finished. */
    private static final Status[] NONE_FINISHED = new Status[0];

    /** The finished requests' statuses; null if every request is null, {@link #NONE_FINISHED} if none finished. */
    private static Status[] collectFinished(final Request[] requests) throws MPIException {
        int n = 0;
        boolean any = false;
        for (final Request r : requests) {
            if (r != null && !r.inactive()) {
                any = true;
                if (r.finished()) {
                    n++;
                }
            }
        }
        if (!any) {
            return null;
        }
        if (n == 0) {
            return NONE_FINISHED;
        }
        final Status[] out = new Status[n];
        int k = 0;
        for (int i = 0; i < requests.length; i++) {
            final Request r = requests[i];
            if (r != null && !r.inactive() && r.finished()) {
                out[k++] = r.take().withIndex(i);
            }
        }
        return out;
    }

    private Worker worker() {
        return MPI.session().worker;
    }

    /** True if finished, without progressing the worker (a collective moves on as far as it can). */
    private boolean finished() throws MPIException {
        if (schedule != null) {
            try {
                if (schedule.advance()) {
                    schedule = null;
                    done = Status.empty();
                }
            } catch (final MPIException e) {
                schedule = null;
                throw comm.fail(e);
            }
        }
        return done != null || op != null && op.isCompleted();
    }

    /** Progresses once and tells whether the operation finished. */
    private boolean poll() throws MPIException {
        if (finished()) {
            return true;
        }
        worker().progress();
        return finished();
    }

    /** Turns a finished op request into {@link #done}. */
    void collect() throws MPIException {
        if (done != null || op == null) {
            return;
        }
        final InFlight r = op;
        op = null;
        if (r instanceof FileAsync.Op f) {
            try {
                done = f.result();
            } catch (final MPIException e) {
                done = new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, e.getErrorClass(), 0, false);
                throw comm.fail(e);
            }
        } else if (kind == RECV) {
            final weft.ucs.Status st = r.status();
            done = Messaging.received(r, capacity);
            if (packed != null) {
                TypeCursor.unpack(packed, 0, span, (int) Math.min(unpackCount, done.bytes() / unpackType.size),
                    unpackType);
                packed = null;
            }
            span.finish();
            if (done.getError() != MPI.SUCCESS) {
                throw comm.fail(Messaging.failure(done, st, "receive"));
            }
        } else {
            final weft.ucs.Status st = r.status();
            r.release();
            done = new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, Messaging.errorClass(st), 0, false);
            if (r instanceof WinRequest w && w.failure() != null) {
                throw comm.fail(w.failure() instanceof MPIException e ? e
                    : new MPIException(MPI.ERR_OTHER, "request-based window operation failed: " + w.failure()));
            }
            if (st.isError()) {
                throw comm.fail(kind == RMA
                    ? new MPIException(WinPeers.errorClass(st), "request-based window operation failed: " + st)
                    : sendFailure(st));
            }
        }
    }

    /** The finished operation's status; the request becomes null (a persistent one: inactive). */
    Status take() throws MPIException {
        try {
            collect();
            return done;
        } finally {
            if (op == null) {
                span = null;
                done = null;
            }
        }
    }
}
