package mpi;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A collective algorithm as a list of rounds: each round posts its messages together, and once they have all
 * completed runs its local steps (combining, copying) before the next round starts. Built up front by the
 * algorithm, then either run to the end at once (blocking collectives) or advanced whenever its request is
 * tested or waited for (non-blocking collectives), so no thread of the library's own is needed.
 *
 * <p>Buffers named while building are the ones the round will use: an algorithm that swaps two scratch
 * buffers swaps them while building, and each round captures the right one.
 *
 * <p>A schedule holds its rounds as flat arrays of reusable entries, and the common local steps (combining two
 * buffers, unpacking the result, finishing a span) as data rather than lambdas, so a blocking collective that
 * gives its schedule back ({@link #recycle}) to its communicator builds the next one without allocating.
 */
final class Schedule {
    /** A local step of a round. */
    @FunctionalInterface
    interface Step {
        void run() throws MPIException;
    }

    /** One message of a round; entries are reused by the next collective. */
    private static final class Transfer {
        boolean send;
        int peer;
        /** Typed (span != null) or raw bytes (seg, off, len). */
        Span span;
        int count;
        Datatype type;
        MemorySegment seg;
        long off;
        long len;
        int sub;

        void set(final boolean isSend, final int rank, final Span s, final int n, final Datatype t,
                 final MemorySegment m, final long o, final long l, final int subTag) {
            send = isSend;
            peer = rank;
            span = s;
            count = n;
            type = t;
            seg = m;
            off = o;
            len = l;
            sub = subTag;
        }
    }

    /** One local step; the common ones are data, so they need no object per call. */
    private static final class Action {
        static final int CUSTOM = 0;
        /** {@code into = from op into}, {@code count} elements of {@code type}. */
        static final int COMBINE = 1;
        /** Unpacks {@code count} elements from {@code from} into {@code span}, then finishes the span. */
        static final int UNPACK = 2;
        /** Finishes {@code span} (copies back what a mapped buffer holds). */
        static final int FINISH = 3;

        int kind;
        Step step;
        Op op;
        MemorySegment from;
        MemorySegment into;
        long intoOff;
        int count;
        Datatype type;
        Span span;

        void run() throws MPIException {
            switch (kind) {
                case COMBINE -> op.apply(from, 0, into, intoOff, count, type);
                case UNPACK -> {
                    TypeCursor.unpack(from, 0, span, count, type);
                    span.finish();
                }
                case FINISH -> span.finish();
                default -> step.run();
            }
        }

        void clear() {
            step = null;
            op = null;
            from = null;
            into = null;
            type = null;
            span = null;
        }
    }

    private static final VarHandle SPARE;

    static {
        try {
            SPARE = MethodHandles.lookup().findVarHandle(PointToPoint.class, "spareSchedule", Schedule.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Coll coll;
    /** Pooled scratch buffers taken while building, given back when the schedule completes. */
    private MemorySegment[] taken = new MemorySegment[2];
    private int takenCount;
    private Transfer[] transfers = new Transfer[4];
    private int transferCount;
    private Action[] actions = new Action[2];
    private int actionCount;
    /** Per round, the end (exclusive) of its transfers and of its actions; the last round is being built. */
    private int[] transfersEnd = new int[4];
    private int[] actionsEnd = new int[4];
    private int roundCount;
    private int current;
    /** The current round's messages, once posted (postedCount >= 0). */
    private InFlight[] posted = new InFlight[2];
    private int postedCount = -1;
    private boolean done;
    /** {@link #rawSpan}'s recent spans. */
    private final Span[] rawSpans = new Span[8];
    private int nextRawSpan;

    private Schedule(final Comm comm) {
        this.coll = new Coll(comm);
        roundCount = 1;
    }

    /**
     * A schedule for a collective on {@code comm}: the one the communicator's last blocking collective gave back,
     * or a new one. MPI lets one thread at a time run a collective on a communicator; the exchange keeps even a
     * program that breaks that rule from sharing a schedule.
     */
    static Schedule of(final Comm comm) {
        final Schedule s = (Schedule) SPARE.getAndSet((PointToPoint) comm, (Schedule) null);
        if (s == null) {
            return new Schedule(comm);
        }
        s.coll.start(comm);
        return s;
    }

    /** Gives a completed schedule back to its communicator for its next collective, keeping no user buffer. */
    void recycle() {
        if (!done) {
            return; // a failed or unfinished schedule may still have messages in flight: left to the collector
        }
        for (int i = 0; i < transferCount; i++) {
            transfers[i].set(false, 0, null, 0, null, null, 0, 0, 0);
        }
        for (int i = 0; i < actionCount; i++) {
            actions[i].clear();
        }
        transferCount = 0;
        actionCount = 0;
        transfersEnd[0] = 0;
        actionsEnd[0] = 0;
        roundCount = 1;
        current = 0;
        postedCount = -1;
        done = false;
        SPARE.setRelease((PointToPoint) coll.comm, this);
    }

    int rank() {
        return coll.rank;
    }

    int size() {
        return coll.size;
    }

    // ------------------------------------------------------------------ building

    /**
     * A scratch buffer of at least {@code bytes} from the session's pool, back in the pool when the schedule
     * ends (the whole pooled buffer: transfers and steps name their lengths).
     */
    MemorySegment scratch(final long bytes) {
        final MemorySegment whole = coll.comm.session.scratch.take(bytes);
        if (takenCount == taken.length) {
            taken = java.util.Arrays.copyOf(taken, takenCount * 2);
        }
        taken[takenCount++] = whole;
        return whole;
    }

    /** {@code count} elements of {@code type} packed into a pooled scratch buffer. */
    MemorySegment packed(final Span span, final int count, final Datatype type) {
        final MemorySegment m = scratch(count * type.size);
        TypeCursor.pack(span, count, type, m, 0);
        return m;
    }

    /** Adds a send of raw bytes to the current round. */
    Schedule send(final int dest, final MemorySegment seg, final long off, final long len) {
        transfer().set(true, dest, null, 0, null, seg, off, len, 0);
        return this;
    }

    /** Adds a receive of exactly {@code len} raw bytes to the current round. */
    Schedule recv(final int source, final MemorySegment seg, final long off, final long len) {
        transfer().set(false, source, null, 0, null, seg, off, len, 0);
        return this;
    }

    /** Adds a typed send to the current round. */
    Schedule send(final int dest, final Span span, final int count, final Datatype type) {
        return send(dest, span, count, type, 0);
    }

    /** Adds a typed receive to the current round. */
    Schedule recv(final int source, final Span span, final int count, final Datatype type) {
        return recv(source, span, count, type, 0);
    }

    /** Adds a typed send with a sub-tag (several messages between the same ranks in one collective). */
    Schedule send(final int dest, final Span span, final int count, final Datatype type, final int sub) {
        transfer().set(true, dest, span, count, type, null, 0, 0, sub);
        return this;
    }

    /** Adds a typed receive with a sub-tag. */
    Schedule recv(final int source, final Span span, final int count, final Datatype type, final int sub) {
        transfer().set(false, source, span, count, type, null, 0, 0, sub);
        return this;
    }

    /** Adds a local step, run once the current round's messages completed. */
    Schedule then(final Step step) {
        action(Action.CUSTOM).step = step;
        return this;
    }

    /** Adds {@code into[intoOff..] = from op into[intoOff..]} for {@code count} packed elements of {@code type}. */
    Schedule combine(final Op op, final MemorySegment from, final MemorySegment into, final long intoOff,
                     final int count, final Datatype type) {
        final Action a = action(Action.COMBINE);
        a.op = op;
        a.from = from;
        a.into = into;
        a.intoOff = intoOff;
        a.count = count;
        a.type = type;
        return this;
    }

    /** Adds the unpacking of {@code count} packed elements from {@code from} into {@code to}, then its finish. */
    Schedule unpack(final MemorySegment from, final Span to, final int count, final Datatype type) {
        final Action a = action(Action.UNPACK);
        a.from = from;
        a.span = to;
        a.count = count;
        a.type = type;
        return this;
    }

    /** Adds {@code span.finish()} (a mapped buffer gets its data back). */
    Schedule finish(final Span span) {
        action(Action.FINISH).span = span;
        return this;
    }

    /** Closes the current round: what is added next waits for it. */
    Schedule next() {
        final int last = roundCount - 1;
        final int transfersStart = last == 0 ? 0 : transfersEnd[last - 1];
        final int actionsStart = last == 0 ? 0 : actionsEnd[last - 1];
        if (transferCount > transfersStart || actionCount > actionsStart) {
            if (roundCount == transfersEnd.length) {
                transfersEnd = java.util.Arrays.copyOf(transfersEnd, roundCount * 2);
                actionsEnd = java.util.Arrays.copyOf(actionsEnd, roundCount * 2);
            }
            roundCount++;
        }
        transfersEnd[roundCount - 1] = transferCount;
        actionsEnd[roundCount - 1] = actionCount;
        return this;
    }

    private Transfer transfer() {
        transfers = room(transfers, transferCount);
        if (transfers[transferCount] == null) {
            transfers[transferCount] = new Transfer();
        }
        transfersEnd[roundCount - 1] = transferCount + 1;
        return transfers[transferCount++];
    }

    private Action action(final int kind) {
        actions = room(actions, actionCount);
        if (actions[actionCount] == null) {
            actions[actionCount] = new Action();
        }
        actionsEnd[roundCount - 1] = actionCount + 1;
        final Action a = actions[actionCount++];
        a.kind = kind;
        return a;
    }

    /** {@code a}, or a copy twice as long when it has no room for an entry at {@code n}. */
    private static <T> T[] room(final T[] a, final int n) {
        return n < a.length ? a : java.util.Arrays.copyOf(a, a.length * 2);
    }

    // ------------------------------------------------------------------ running

    /** Runs the whole schedule (a blocking collective). */
    void run() throws MPIException {
        final weft.ucp.Worker w = coll.comm.session.worker;
        long next = System.nanoTime() + Messaging.WATCH_NS;
        for (int spins = 0, idle = 0; !advance(); spins++) {
            idle = Progress.step(w, idle);
            if ((spins & 1023) == 0 && System.nanoTime() > next) {
                next = System.nanoTime() + Messaging.WATCH_NS;
                watchPeers();
            }
        }
    }

    /** A long wait: fails if a rank this round waits for has died (see {@link Messaging#awaitFrom}). */
    private void watchPeers() throws MPIException {
        final int first = current == 0 ? 0 : transfersEnd[current - 1];
        for (int i = 0; i < postedCount; i++) {
            final Transfer t = transfers[first + i];
            if (!t.send && posted[i] != null && !posted[i].isCompleted()) {
                Messaging.checkAlive(coll.comm, t.peer, posted[i]);
            }
        }
    }

    /**
     * Moves the schedule on as far as completed messages allow, without progressing the worker.
     *
     * @return true once every round has completed
     */
    boolean advance() throws MPIException {
        while (!done) {
            final int first = current == 0 ? 0 : transfersEnd[current - 1];
            if (postedCount < 0) {
                final int n = transfersEnd[current] - first;
                if (n > posted.length) {
                    posted = new InFlight[Math.max(n, posted.length * 2)];
                }
                postedCount = n;
                for (int i = 0; i < n; i++) {
                    posted[i] = post(transfers[first + i]);
                }
            }
            for (int i = 0; i < postedCount; i++) {
                final InFlight q = posted[i];
                if (q != null && !q.isCompleted()) {
                    return false;
                }
            }
            final int n = postedCount;
            postedCount = -1;
            final int round = current;
            final boolean last = ++current == roundCount;
            Coll.awaitAll(posted, n);
            for (int i = round == 0 ? 0 : actionsEnd[round - 1]; i < actionsEnd[round]; i++) {
                actions[i].run();
            }
            if (last) {
                done = true;
                for (int i = 0; i < takenCount; i++) {
                    coll.comm.session.scratch.give(taken[i]);
                    taken[i] = null;
                }
                takenCount = 0;
            }
        }
        return true;
    }

    /**
     * A span over {@code (seg, off)} for the active-message matcher, which takes spans. Over a pooled scratch
     * buffer, one of the last few made: the next collectives receive into the same buffers, so no new one per
     * message (a span over a user's memory is not kept).
     */
    private Span rawSpan(final MemorySegment seg, final long off) {
        for (final Span sp : rawSpans) {
            if (sp != null && sp.segment == seg && sp.origin == off) {
                return sp;
            }
        }
        final Span sp = Span.at(seg, off);
        if (!isScratch(seg)) {
            return sp;
        }
        rawSpans[nextRawSpan] = sp;
        nextRawSpan = (nextRawSpan + 1) % rawSpans.length;
        return sp;
    }

    /** One of this schedule's pooled scratch buffers, or an empty segment (a barrier's messages). */
    private boolean isScratch(final MemorySegment seg) {
        if (seg.byteSize() == 0) {
            return true;
        }
        for (int i = 0; i < takenCount; i++) {
            if (taken[i] == seg) {
                return true;
            }
        }
        return false;
    }

    private InFlight post(final Transfer t) {
        if (t.span != null) {
            return t.send ? coll.isend(t.peer, t.span, t.count, t.type, t.sub)
                : coll.irecv(t.peer, t.span, t.count, t.type, t.sub);
        }
        if (!t.send && coll.comm.session.am != null) {
            return coll.irecv(t.peer, rawSpan(t.seg, t.off), Math.toIntExact(t.len), MPI.BYTE, 0);
        }
        return t.send ? coll.isend(t.peer, t.seg, t.off, t.len) : coll.irecv(t.peer, t.seg, t.off, t.len);
    }
}
