package weft.tools.perftest;

import weft.ucp.Request;
import weft.ucs.Status;

/**
 * Requests started and not yet seen complete, in a fixed array (no allocation): the bandwidth
 * tests' window of uncompleted sends, and the responder's replies. Completed requests are checked
 * and released by {@link #reap()}.
 */
final class UcpOutstanding {
    private final Request[] requests;
    private int count;

    UcpOutstanding(final int capacity) {
        requests = new Request[capacity];
    }

    int count() {
        return count;
    }

    boolean isFull() {
        return count == requests.length;
    }

    /**
     * Takes {@code r}: released at once if it completed already (after checking its status), else
     * kept until {@link #reap()} sees it complete. The caller keeps room (see {@link #isFull()}).
     */
    void add(final Request r, final String what) {
        if (r.isCompleted()) {
            finish(r, what);
        } else {
            requests[count++] = r;
        }
    }

    /** Releases every completed request; throws if one failed. Returns how many completed. */
    int reap(final String what) {
        int done = 0;
        for (int i = 0; i < count; ) {
            final Request r = requests[i];
            if (r.isCompleted()) {
                requests[i] = requests[--count];
                requests[count] = null;
                finish(r, what);
                done++;
            } else {
                i++;
            }
        }
        return done;
    }

    /** Checks and releases a completed request. */
    static void finish(final Request r, final String what) {
        final Status st = r.status();
        r.release();
        if (st != Status.OK) {
            throw Initiator.failed(st, what);
        }
    }

    /** Releases what is left (the requests return to their pool when they complete). */
    void releaseAll() {
        for (int i = 0; i < count; i++) {
            requests[i].release();
            requests[i] = null;
        }
        count = 0;
    }
}
