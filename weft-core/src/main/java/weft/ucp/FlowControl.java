package weft.ucp;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Backpressure for unexpected messages: a worker holds at most about {@code WEFT_UNEXPECTED_BUDGET}
 * bytes of messages nobody has asked for yet.
 *
 * <p>Receiver side: when the unexpected pool grows past the budget, the worker sends STOP to every
 * wired peer endpoint; when receives have drained it to half the budget, GO. Sender side: a stopped
 * endpoint starts no new eager or rendezvous tag message — sends wait in the endpoint's ordered send
 * queue (the caller gets a pending request, exactly as when a lane returns NO_RESOURCE), while control
 * traffic (acks, clear-to-send, rendezvous data the peer asked for) still flows so that the receiver
 * can always finish what it started. A fragmented message already started is finished first (its
 * fragments must arrive back to back).
 *
 * <p>What the receiver may hold is therefore bounded by the budget plus what was already in flight
 * when STOP arrived, which the transports themselves bound (shm FIFO cells and the sender's GET-based
 * eager pool, tcp socket and send buffers), plus what the sender sends before it reads the STOP. A
 * receiver that stops progressing altogether is handled by the transports: their queues fill, sends
 * return NO_RESOURCE and wait in the send queue; nothing is dropped.
 *
 * <p>Why STOP/GO and not per-message credits: an eager short message names only its tag (the header
 * of the fastest path), so the receiver cannot tell which peer to credit without adding bytes and
 * work to every message; STOP/GO costs nothing until a receiver is actually flooded, and the
 * ping-pong fast path pays one boolean test.
 *
 * <p>Liveness: STOP is sent only while no receive is posted, and a receive posted while stopped
 * that finds nothing buffered sends GO (see {@link #wanted()}). A receive therefore always gets its
 * message even when it is queued at the sender behind more than the budget of messages nobody
 * receives (those are then accepted over the budget), and messages that are never received cannot
 * stall a worker whose application keeps receiving. The budget bounds what a worker holds while its
 * application is not waiting for a message.
 *
 * <p>Two things keep the STOP prompt. It goes ahead of the endpoint's send queue
 * ({@link Endpoint#sendReply}; STOP and GO keep their order, behind earlier replies only): queued at the
 * tail it waited behind all this worker had queued for the peer while the lane back was full, and behind
 * the EAGER_GET_DONE replies of messages read after it, which go to the front; each reply gave the sender
 * a slot back, so it sent again. And the sender reads it between bounded batches of its queue
 * ({@link SendQueue#MAX_BYTES_PER_PROGRESS}): a receiver that drains as fast as the sender sends never fills
 * the lane, so an unbounded loop sent the whole backlog before the STOP was read (9 MB against a
 * 1 MiB budget was seen).
 *
 * <p>Wire: {@link AmId#FLOW}, a {@link weft.ucp.wire.ControlMessage}: the receiving worker's endpoint id,
 * 1 = stop, 0 = go.
 */
final class FlowControl {
    static final long STOP = 1;
    static final long GO = 0;

    private final Worker worker;
    private final long high;
    private final long low;
    private boolean stopped;
    private long stops;

    FlowControl(final Worker worker) {
        this.worker = worker;
        this.high = worker.unexpected.budget();
        this.low = high / 2;
    }

    /**
     * After a message was queued as unexpected. No STOP while a receive is posted: the message it
     * waits for may be queued at a sender behind the ones arriving now, and a posted receive whose
     * send was started must complete (MPI's progress rule), so those are accepted over the budget.
     */
    void added() {
        if (!stopped && worker.unexpected.inUse() > high && worker.matcher.expectedCount() == 0) {
            stopped = true;
            stops++;
            broadcast(STOP);
        }
    }

    /** After an unexpected message was consumed by a receive. */
    void released() {
        if (stopped && worker.unexpected.inUse() <= low) {
            stopped = false;
            broadcast(GO);
        }
    }

    /**
     * A receive was posted that no buffered message matches: the application waits for something
     * that may be queued at a sender, so let the peers go on although the budget is exceeded (STOP
     * again once no receive is posted and more unexpected messages arrive).
     */
    void wanted() {
        if (stopped) {
            stopped = false;
            broadcast(GO);
        }
    }

    /** An endpoint learned its peer's id: tell it at once if this worker is flooded. */
    void onWired(final Endpoint ep) {
        if (stopped) {
            ep.sendReply(AmId.FLOW, ep.remoteId, STOP);
        }
    }

    boolean stopped() {
        return stopped;
    }

    /** How many times this worker told its peers to stop (for tests and statistics). */
    long stops() {
        return stops;
    }

    private void broadcast(final long what) {
        final List<Endpoint> eps = worker.epTable.live();
        for (int i = 0; i < eps.size(); i++) {
            final Endpoint ep = eps.get(i);
            if (ep.remoteId >= 0) {
                ep.sendReply(AmId.FLOW, ep.remoteId, what);
            }
        }
    }

    /** AM handler: a peer worker tells one of our endpoints to stop or go on. */
    Status onFlow(final MemorySegment data, final long off, final long len, final int flags) {
        final Endpoint ep = worker.epTable.named(data, off, len, "FLOW");
        if (ep != null) {
            ep.queue.setFlowStopped(weft.ucp.wire.ControlMessage.value(data, off) == STOP);
        }
        return Status.OK;
    }
}
