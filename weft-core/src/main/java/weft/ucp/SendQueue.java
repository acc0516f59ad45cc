package weft.ucp;

import weft.ucs.Status;

/**
 * An endpoint's ordered send queue (one per endpoint). Requests wait here, in the order they were
 * started, while a lane is out of resources, wireup has not named the peer's endpoint, a connect gate is
 * closed, or the peer asked us to start no new message (FlowControl); each is advanced by the protocol of
 * its kind ({@link SendProtocol#progressSend}). An endpoint whose queue holds work is listed in the
 * worker's {@link PendingEndpoints}.
 *
 * <p>Two ways around the order, both for traffic the peer may be waiting for: while flow control holds
 * the head, requests whose protocol says so ({@link SendProtocol#bypassesFlowStop}) are sent out of the
 * queue behind it; and replies of emulated atomics ({@link #addUrgent}) go to the front, behind earlier
 * replies only.
 */
final class SendQueue {
    /**
     * Most payload bytes one call sends from the queue (the request that crosses it still goes). A peer
     * consuming as fast as we send keeps the lane from filling, and an unbounded loop would then send the
     * whole backlog without the worker reading what the peer sent meanwhile: a FlowControl STOP waited
     * behind megabytes. Small messages are not held back by it (their backlog is bounded by the lane), so
     * a message-rate sender's queue empties in one call and its next sends take the short path again.
     * The rest goes on the next call (the endpoint stays listed in {@link PendingEndpoints}).
     */
    static final long MAX_BYTES_PER_PROGRESS = 256 * 1024;
    private final Endpoint ep;
    private final Worker worker;
    private Request head;
    private Request tail;
    // the peer is flooded with unexpected messages: start no new tag message (FlowControl)
    private boolean flowStopped;
    private boolean flowBlocked; // the last progressSend refused because of flowStopped (not the lane)
    private boolean bypassFull;  // progressBypass stopped on a full lane
    /** Stopped with nothing that may bypass: the worker stops polling this queue until GO or a new control. */
    boolean parked;
    /** Replies queued by {@link #addUrgent} (at the queue's front) and the last of them. */
    private int urgentQueued;
    private Request urgentTail;

    SendQueue(final Endpoint ep) {
        this.ep = ep;
        this.worker = ep.worker;
    }

    boolean isEmpty() {
        return head == null;
    }

    /** True when a new message may go straight to the lane: nothing queued and the peer has not stopped us. */
    boolean isOpen() {
        return head == null && !flowStopped;
    }

    Request head() {
        return head;
    }

    void add(final Request r) {
        r.nextSend = null;
        if (tail == null) {
            head = r;
            worker.sendPending.add(ep);
        } else {
            tail.nextSend = r;
        }
        tail = r;
        if (parked && worker.protocols.of(r.kind).bypassesFlowStop(r)) {
            // may bypass the stopped head
            parked = false;
            worker.sendPending.add(ep);
        }
    }

    /**
     * Puts {@code r} right behind {@code at}, a queued request: a request being sent from the queue hands its
     * second half to the next slot, ahead of what was queued after it ({@link SoftRma}).
     */
    void insertAfter(final Request at, final Request r) {
        r.nextSend = at.nextSend;
        at.nextSend = r;
        if (tail == at) {
            tail = r;
        }
    }

    /**
     * Puts a reply at the queue's front, behind earlier replies only, so that a fence here cannot hold the
     * peer's fence (and the replies keep their order).
     */
    void addUrgent(final Request r) {
        r.urgent = true;
        if (urgentTail == null) {
            r.nextSend = head;
            head = r;
        } else {
            r.nextSend = urgentTail.nextSend;
            urgentTail.nextSend = r;
        }
        if (r.nextSend == null) {
            tail = r;
        }
        urgentTail = r;
        urgentQueued++;
        parked = false; // a reply may bypass a stopped head
        worker.sendPending.add(ep);
    }

    /** True while replies wait at the front: a new reply must queue behind them. */
    boolean hasUrgent() {
        return urgentQueued != 0;
    }

    /** A queued request left: if it was a reply, one fewer waits at the front. */
    void sent(final Request r) {
        if (r.urgent && --urgentQueued == 0) {
            urgentTail = null;
        }
    }

    /**
     * Sends queued requests in order until the queue is empty, a lane is out of resources, or
     * {@link #MAX_BYTES_PER_PROGRESS} bytes left in this call.
     */
    int progress() {
        if (parked) {
            return 0; // stopped by the peer, nothing may bypass: a new send changes neither
        }
        int work = 0;
        long bytes = 0;
        while (head != null && bytes < MAX_BYTES_PER_PROGRESS) {
            final Request r = head;
            final long length = r.length; // read first: a request nobody holds is recycled when it completes
            flowBlocked = false;
            final Status st = progressSend(r);
            if (st == Status.NO_RESOURCE) {
                if (flowStopped) {
                    final boolean headStopped = flowBlocked;
                    work += progressBypass();
                    parked = headStopped && !bypassFull; // nothing to do until GO: do not walk the queue again
                }
                break;
            }
            head = r.nextSend;
            if (head == null) {
                tail = null;
            }
            r.nextSend = null;
            work++;
            bytes += length;
            if (st.isError()) {
                worker.complete(r, st);
            }
        }
        return work;
    }

    /** Advances one queued send, by the protocol of its kind; OK means it no longer needs the queue. */
    private Status progressSend(final Request r) {
        final Status failure = ep.failure();
        if (failure != null) {
            return failure;
        }
        return worker.protocols.of(r.kind).progressSend(ep, r);
    }

    /**
     * While the peer has stopped us (FlowControl) the head of the queue is a new message that must
     * wait; the control messages and asked-for rendezvous data behind it must not, or the peer could
     * never drain. Sends those, in order, out of the queue.
     */
    private int progressBypass() {
        int work = 0;
        bypassFull = false;
        Request prev = head;
        Request r = prev.nextSend;
        while (r != null) {
            final Request next = r.nextSend;
            if (worker.protocols.of(r.kind).bypassesFlowStop(r)) {
                final Status st = progressSend(r);
                if (st == Status.NO_RESOURCE) {
                    bypassFull = true;
                    break; // the lane is full: keep the rest in order
                }
                prev.nextSend = next;
                if (tail == r) {
                    tail = prev;
                }
                r.nextSend = null;
                work++;
                if (st.isError()) {
                    worker.complete(r, st);
                }
            } else {
                prev = r;
            }
            r = next;
        }
        return work;
    }

    /**
     * FlowControl: true while the peer asked us to start no new message (a protocol about to start one then
     * answers NO_RESOURCE); notes that the queue's head is held by the peer, not by a full lane.
     */
    boolean holdNewMessage() {
        if (flowStopped) {
            flowBlocked = true;
            return true;
        }
        return false;
    }

    /** FlowControl: the peer tells us to stop starting messages, or to go on. */
    void setFlowStopped(final boolean stop) {
        flowStopped = stop;
        if (!stop) {
            parked = false;
        }
        if (!stop && head != null) {
            worker.sendPending.add(ep);
        }
    }

    /** Something the queue waited for happened (wireup): the worker polls it again. */
    void wake() {
        if (head != null) {
            worker.sendPending.add(ep);
        }
    }

    /** Removes {@code gate} from the head of the queue (the server accepted); false if it is not there. */
    boolean removeHead(final Request gate) {
        if (head != gate || gate == null) {
            return false;
        }
        head = gate.nextSend;
        if (head == null) {
            tail = null;
        }
        gate.nextSend = null;
        return true;
    }

    /** The endpoint failed: every queued request completes with {@code st}. */
    void abort(final Status st) {
        while (head != null) {
            final Request r = head;
            head = r.nextSend;
            r.nextSend = null;
            if (r.kind == Request.RMA || r.zdata) {
                // pieces may be in flight: drop our reference, the count completes it once they fail too
                r.completion.complete(st);
            } else {
                worker.complete(r, st);
            }
        }
        tail = null;
        urgentQueued = 0;
        urgentTail = null;
        worker.sendPending.remove(ep);
    }
}
