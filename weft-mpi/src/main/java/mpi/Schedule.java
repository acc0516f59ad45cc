package mpi;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A collective algorithm as a list of rounds: each round posts its messages together, and once they have all
 * completed runs its local steps (combining, copying) before the next round starts. Built up front by the
 * algorithm, then either run to the end at once (blocking collectives) or advanced whenever its request is
 * tested or waited for (non-blocking collectives), so no thread of the library's own is needed.
 *
 * <p>Buffers named while building are the ones the round will use: an algorithm that swaps two scratch
 * buffers swaps them while building, and each round captures the right one.
 */
final class Schedule {
    /** A local step of a round. */
    @FunctionalInterface
    interface Step {
        void run() throws MPIException;
    }

    private record Transfer(boolean send, int peer, Span span, int count, Datatype type, MemorySegment seg,
                            long off, long len, int sub) {
    }

    private static final class Round {
        final List<Transfer> transfers = new ArrayList<>(2);
        final List<Step> steps = new ArrayList<>(1);
    }

    private final Coll coll;
    /** Pooled scratch buffers taken while building, given back when the schedule completes. */
    private final List<MemorySegment> taken = new ArrayList<>(2);
    private final List<Round> rounds = new ArrayList<>();
    private int current;
    private InFlight[] posted;
    private boolean done;

    Schedule(final Comm comm) {
        this.coll = new Coll(comm);
        rounds.add(new Round());
    }

    int rank() {
        return coll.rank;
    }

    int size() {
        return coll.size;
    }

    // ------------------------------------------------------------------ building

    /** A scratch buffer of {@code bytes} from the session's pool, back in the pool when the schedule ends. */
    MemorySegment scratch(final long bytes) {
        final MemorySegment whole = coll.comm.session.scratch.take(bytes);
        taken.add(whole);
        return whole.asSlice(0, bytes);
    }

    /** {@code count} elements of {@code type} packed into a pooled scratch buffer. */
    MemorySegment packed(final Span span, final int count, final Datatype type) {
        final MemorySegment m = scratch(count * type.size);
        TypeCursor.pack(span, count, type, m, 0);
        return m;
    }

    /** Adds a send of raw bytes to the current round. */
    Schedule send(final int dest, final MemorySegment seg, final long off, final long len) {
        last().transfers.add(new Transfer(true, dest, null, 0, null, seg, off, len, 0));
        return this;
    }

    /** Adds a receive of exactly {@code len} raw bytes to the current round. */
    Schedule recv(final int source, final MemorySegment seg, final long off, final long len) {
        last().transfers.add(new Transfer(false, source, null, 0, null, seg, off, len, 0));
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
        last().transfers.add(new Transfer(true, dest, span, count, type, null, 0, 0, sub));
        return this;
    }

    /** Adds a typed receive with a sub-tag. */
    Schedule recv(final int source, final Span span, final int count, final Datatype type, final int sub) {
        last().transfers.add(new Transfer(false, source, span, count, type, null, 0, 0, sub));
        return this;
    }

    /** Adds a local step, run once the current round's messages completed. */
    Schedule then(final Step step) {
        last().steps.add(step);
        return this;
    }

    /** Closes the current round: what is added next waits for it. */
    Schedule next() {
        if (!last().transfers.isEmpty() || !last().steps.isEmpty()) {
            rounds.add(new Round());
        }
        return this;
    }

    private Round last() {
        return rounds.get(rounds.size() - 1);
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
        if (posted == null) {
            return;
        }
        final List<Transfer> ts = rounds.get(current).transfers;
        for (int i = 0; i < posted.length; i++) {
            if (!ts.get(i).send() && posted[i] != null && !posted[i].isCompleted()) {
                Messaging.checkAlive(coll.comm, ts.get(i).peer(), posted[i]);
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
            final Round r = rounds.get(current);
            if (posted == null) {
                posted = new InFlight[r.transfers.size()];
                for (int i = 0; i < posted.length; i++) {
                    posted[i] = post(r.transfers.get(i));
                }
            }
            for (final InFlight q : posted) {
                if (q != null && !q.isCompleted()) {
                    return false;
                }
            }
            final InFlight[] finished = posted;
            posted = null;
            final boolean last = ++current == rounds.size();
            Coll.awaitAll(finished);
            for (final Step s : r.steps) {
                s.run();
            }
            if (last) {
                done = true;
                for (final MemorySegment m : taken) {
                    coll.comm.session.scratch.give(m);
                }
                taken.clear();
            }
        }
        return true;
    }

    private InFlight post(final Transfer t) {
        if (t.span() != null) {
            return t.send() ? coll.isend(t.peer(), t.span(), t.count(), t.type(), t.sub())
                : coll.irecv(t.peer(), t.span(), t.count(), t.type(), t.sub());
        }
        return t.send() ? coll.isend(t.peer(), t.seg(), t.off(), t.len()) : coll.irecv(t.peer(), t.seg(), t.off(),
            t.len());
    }
}
