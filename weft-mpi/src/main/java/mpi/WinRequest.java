package mpi;

import weft.ucp.Worker;

import java.util.ArrayList;
import java.util.List;

/**
 * A request-based window operation in flight ({@link Win#rPut}, {@link Win#rGet}, {@link Win#rAccumulate}
 * ...): the ucp requests of its current remote operations and the step that follows once they all completed
 * (an rGet's unpack into a non-contiguous origin; the next stage of an accumulate: lock, read, write, flush,
 * unlock), run as the request is tested or waited for. Completes with the first error of any operation (a
 * refused key or range at the target, a dead peer), else OK.
 */
final class WinRequest extends InFlight {
    /** What follows once every operation so far completed: may start more and set the next step. */
    interface Step {
        void run(WinRequest r) throws MPIException;
    }

    /**
     * The request-based operations of one window in flight, stepped together: a wait for one request moves all
     * of them on, because an accumulate waiting for the target's mutex needs the one that holds it to finish.
     * While a group has live requests, every MPI wait steps it too ({@link Progress#step}), so an accumulate
     * holding a target's mutex finishes even while its rank waits in a barrier or a receive.
     */
    static final class Group {
        /** Groups with live requests (guarded by itself). */
        private static final List<Group> ACTIVE = new ArrayList<>();
        /** True while some group has live requests: {@link Progress#step} then steps them. */
        static volatile boolean anyActive;
        private final List<WinRequest> live = new ArrayList<>();
        private boolean stepping;

        /** Steps every group with live requests (from any MPI wait). */
        static void stepActive() {
            final Group[] groups;
            synchronized (ACTIVE) {
                groups = ACTIVE.toArray(new Group[0]);
            }
            for (final Group g : groups) {
                g.stepAll();
            }
        }

        synchronized void add(final WinRequest r) {
            live.removeIf(WinRequest::done);
            live.add(r);
            r.tracked = true;
            synchronized (ACTIVE) {
                if (!ACTIVE.contains(this)) {
                    ACTIVE.add(this);
                    anyActive = true;
                }
            }
        }

        /** Steps every live request as far as its operations allow (not re-entered from a step). */
        synchronized void stepAll() {
            if (stepping) {
                return;
            }
            stepping = true;
            try {
                for (int i = 0; i < live.size(); i++) {
                    live.get(i).step();
                }
            } finally {
                stepping = false;
            }
            live.removeIf(WinRequest::done);
            if (live.isEmpty()) {
                synchronized (ACTIVE) {
                    ACTIVE.remove(this);
                    anyActive = !ACTIVE.isEmpty();
                }
            }
        }

        /** Steps {@code r}, not yet in the group, under the group's lock (another thread may be stepping it). */
        synchronized void stepOne(final WinRequest r) {
            r.step();
        }

        /** Completes every live request: each MPI wait step steps the group while it has live requests. */
        void settle(final Worker w) {
            for (int idle = 0; hasLive(); ) {
                idle = Progress.step(w, idle);
            }
        }

        private synchronized boolean hasLive() {
            live.removeIf(WinRequest::done);
            return !live.isEmpty();
        }
    }

    private final Worker worker;
    private final Group group;
    private final List<weft.ucp.Request> blocks = new ArrayList<>();
    /** Runs once every block so far arrived, else null. */
    private Step next;
    /** Null until completed. */
    private weft.ucs.Status result;
    /** Why a step failed, else null. */
    private Exception failure;
    /** The step asked to be run again only in the next round (a retry: let the window's others move). */
    private boolean later;
    /** In its group: stepped with the others (before that, while its call is starting it, alone). */
    private boolean tracked;

    WinRequest(final Worker worker, final Group group) {
        this.worker = worker;
        this.group = group;
    }

    private boolean done() {
        return result != null;
    }

    void add(final weft.ucp.Request r) {
        blocks.add(r);
    }

    void then(final Step s) {
        next = s;
    }

    /** Runs {@code s} when this request is next stepped, not in the current round (for retries). */
    void thenLater(final Step s) {
        next = s;
        later = true;
    }

    /**
     * Runs steps (this request's and the window's other live ones) as far as the operations allow; true once
     * this one is done. Does not progress the worker.
     */
    @Override
    boolean isCompleted() {
        if (result == null) {
            if (tracked) {
                group.stepAll();
            } else {
                group.stepOne(this);
            }
        }
        return result != null;
    }

    private void step() {
        while (result == null) {
            for (final weft.ucp.Request r : blocks) {
                if (!r.isCompleted()) {
                    return;
                }
            }
            weft.ucs.Status st = weft.ucs.Status.OK;
            for (final weft.ucp.Request r : blocks) {
                if (r.status().isError() && !st.isError()) {
                    st = r.status();
                }
                r.release();
            }
            blocks.clear();
            final Step s = next;
            next = null;
            if (st.isError() || s == null) {
                result = st;
            } else {
                try {
                    s.run(this);
                } catch (final MPIException | RuntimeException e) {
                    failure = e;
                    result = weft.ucs.Status.IO_ERROR;
                }
                if (later) {
                    later = false;
                    return;
                }
            }
        }
    }

    /** Why a step failed (an exception it threw), else null. */
    Exception failure() {
        return failure;
    }

    @Override
    weft.ucs.Status status() {
        return result == null ? weft.ucs.Status.IN_PROGRESS : result;
    }

    @Override
    long senderTag() {
        return 0;
    }

    @Override
    long length() {
        return 0;
    }

    /**
     * An operation with steps to go is waited for first: a freed rGet still lands in its origin buffer, and a
     * freed accumulate still releases the target's accumulate mutex.
     */
    @Override
    void release() {
        if (result == null && next != null) {
            awaitStatus();
        }
        for (final weft.ucp.Request r : blocks) {
            r.release(); // the operation still finishes
        }
        blocks.clear();
    }

    @Override
    void cancel(final Worker w) {
        // an RMA operation cannot be cancelled (MPI_Cancel applies to receives)
    }

    @Override
    weft.ucs.Status awaitStatus() {
        for (int idle = 0; !isCompleted(); ) {
            idle = Progress.step(worker, idle);
        }
        return result;
    }
}
