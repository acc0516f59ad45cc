package mpi;

import weft.ucp.Worker;

import java.util.ArrayList;
import java.util.List;

/**
 * A request-based window operation in flight ({@link Win#rPut}, {@link Win#rGet}): the ucp requests of its
 * target blocks, all issued when the call returned (so a later flush or unlock covers every one), and for an
 * rGet into a non-contiguous origin the unpacking of the received bytes, done once all are in. Completes with
 * the first error of any block (a refused key or range at the target), else OK.
 */
final class WinRequest extends InFlight {
    private final Worker worker;
    private final List<weft.ucp.Request> blocks = new ArrayList<>();
    /** Runs once every block arrived (an rGet's unpack), else null. */
    private Runnable whenDone;
    /** Null until completed. */
    private weft.ucs.Status result;

    WinRequest(final Worker worker) {
        this.worker = worker;
    }

    void add(final weft.ucp.Request r) {
        blocks.add(r);
    }

    void whenDone(final Runnable r) {
        whenDone = r;
    }

    @Override
    boolean isCompleted() {
        if (result != null) {
            return true;
        }
        for (final weft.ucp.Request r : blocks) {
            if (!r.isCompleted()) {
                return false;
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
        if (!st.isError() && whenDone != null) {
            whenDone.run();
        }
        whenDone = null;
        result = st;
        return true;
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

    /** A freed rGet still lands in the origin buffer: one that must be unpacked is waited for first. */
    @Override
    void release() {
        if (result == null && whenDone != null) {
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
