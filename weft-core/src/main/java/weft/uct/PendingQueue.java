package weft.uct;

import weft.ucs.Status;

import java.util.function.Consumer;

/**
 * FIFO of {@link PendingRequest}s for one endpoint: intrusive, single threaded, no allocation.
 * Transports embed one per endpoint and call {@link #dispatch()} from progress when resources
 * free up.
 */
public final class PendingQueue {
    private PendingRequest head;
    private PendingRequest tail;
    private int size;

    /** An empty queue. */
    public PendingQueue() {
    }

    public boolean isEmpty() {
        return head == null;
    }

    public int size() {
        return size;
    }

    /** Appends {@code r}; throws if it is already queued somewhere. */
    public void add(final PendingRequest r) {
        if (r.queued) {
            throw new IllegalStateException("pending request is already queued");
        }
        r.queued = true;
        r.next = null;
        if (tail == null) {
            head = r;
        } else {
            tail.next = r;
        }
        tail = r;
        size++;
    }

    /**
     * Dispatches requests in order until one answers NO_RESOURCE or the queue is empty.
     *
     * @return the number of requests that left the queue
     */
    public int dispatch() {
        int n = 0;
        PendingRequest r;
        while ((r = head) != null) {
            final Status st = r.dispatch();
            if (st == Status.NO_RESOURCE) {
                break;
            }
            if (head == r) { // dispatch may have purged the queue
                removeHead();
            }
            n++;
        }
        return n;
    }

    private void removeHead() {
        final PendingRequest r = head;
        head = r.next;
        if (head == null) {
            tail = null;
        }
        r.next = null;
        r.queued = false;
        size--;
    }

    /** Removes every request, handing each to {@code sink} (may be null). */
    public void purge(final Consumer<PendingRequest> sink) {
        while (head != null) {
            final PendingRequest r = head;
            removeHead();
            if (sink != null) {
                sink.accept(r);
            }
        }
    }
}
