package weft.ucp;

import weft.ucs.Status;

import java.util.ArrayList;

/**
 * Requests whose pieces wait for room on a full lane (rendezvous gets at the receiver, rendezvous puts at
 * the sender), one list per worker, retried by progress through the protocol of each request's kind
 * ({@link SendProtocol#resume}).
 */
final class PendingPieces {
    private final Worker worker;
    private final ArrayList<Request> list = new ArrayList<>();

    PendingPieces(final Worker worker) {
        this.worker = worker;
    }

    void add(final Request r) {
        list.add(r);
    }

    boolean isEmpty() {
        return list.isEmpty();
    }

    /** Issues what the lanes take now; returns how many requests finished issuing. */
    int progress() {
        int work = 0;
        for (int i = 0; i < list.size(); ) {
            final Request r = list.get(i);
            if (worker.protocols.of(r.kind).resume(r)) {
                list.remove(i);
                work++;
            } else {
                i++;
            }
        }
        return work;
    }

    /** The endpoint failed: its waiting requests drop their own reference on their pieces. */
    void fail(final Endpoint ep, final Status st) {
        for (int i = list.size() - 1; i >= 0; i--) {
            if (list.get(i).ep == ep) {
                // drop the receive's own reference on its gets: it completes (with st) when the gets
                // already issued have failed too, so a request is never completed twice or recycled early
                list.remove(i).completion.complete(st);
            }
        }
    }

    /** True while a request of {@code ep} waits here. */
    boolean has(final Endpoint ep) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).ep == ep) {
                return true;
            }
        }
        return false;
    }
}
