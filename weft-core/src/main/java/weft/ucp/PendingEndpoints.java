package weft.ucp;

import java.util.ArrayList;

/**
 * The endpoints whose send queues a worker's progress must look at, in the order they joined. Whether an
 * endpoint is listed is a flag on the endpoint, so joining is O(1) on the per-message path (a queue that
 * starts) instead of a search of the list.
 */
final class PendingEndpoints {
    private final ArrayList<Endpoint> list = new ArrayList<>();

    /** Lists {@code ep} unless it is listed already. */
    void add(final Endpoint ep) {
        if (!ep.sendPendingListed) {
            ep.sendPendingListed = true;
            list.add(ep);
        }
    }

    /** Unlists {@code ep} if it is listed (an endpoint that closes; rare). */
    void remove(final Endpoint ep) {
        if (ep.sendPendingListed) {
            ep.sendPendingListed = false;
            list.remove(ep);
        }
    }

    /**
     * Sends what the listed endpoints' queues can send now, in order; unlists the endpoints whose queue
     * emptied or that their peer stopped with nothing that may bypass (FlowControl: until GO).
     */
    int progress() {
        int work = 0;
        for (int i = 0; i < list.size(); ) {
            final Endpoint ep = list.get(i);
            work += ep.queue.progress();
            if (ep.queue.isEmpty() || ep.queue.parked) {
                removeAt(i);
            } else {
                i++;
            }
        }
        return work;
    }

    /** Unlists the {@code i}-th endpoint. */
    void removeAt(final int i) {
        list.remove(i).sendPendingListed = false;
    }

    Endpoint get(final int i) {
        return list.get(i);
    }

    int size() {
        return list.size();
    }

    boolean isEmpty() {
        return list.isEmpty();
    }
}
