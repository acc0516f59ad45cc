package weft.ucp;

import weft.ucs.LogLimit;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Packer;
import weft.ucp.wire.ControlMessage;
import weft.ucp.wire.WireupMessage;

import java.lang.foreign.MemorySegment;

/**
 * Control messages of an endpoint (one per worker): short control messages (acks, rendezvous answers,
 * flow control) and WIREUP, sent at once when nothing is queued ahead of them, else queued in order as
 * CONTROL requests that nobody waits for (recycled once sent); replies of emulated atomics, which go ahead
 * of the queue; and the CONNECT gate of a sockaddr endpoint, which holds the queue until the server
 * accepts ({@link Lifecycle} removes it).
 */
final class ControlSend extends SendProtocol {
    private static final System.Logger LOG = System.getLogger(ControlSend.class.getName());

    private final Worker worker;
    private final WireupPacker packer = new WireupPacker();
    /** Control messages (wireup, acks, rendezvous control, keepalive...) dropped as malformed. */
    private long malformed;

    ControlSend(final Worker worker) {
        this.worker = worker;
    }

    /** Drops a control message too short for its fields or naming bytes outside its message; returns OK. */
    Status dropMalformed(final String what, final long len) {
        if (LogLimit.due(++malformed)) {
            LOG.log(System.Logger.Level.WARNING, "dropping a malformed " + what + " message (" + len + " bytes; "
                + malformed + " so far: Worker.controlMalformedCount())");
        }
        return Status.OK;
    }

    /** See {@link Worker#controlMalformedCount()}. */
    long malformed() {
        return malformed;
    }

    @Override
    Status progressSend(final Endpoint ep, final Request r) {
        if (r.kind == Request.CONNECT) {
            return Status.NO_RESOURCE; // Lifecycle removes the gate when the server accepts
        }
        final Status st;
        final ControlState c = r.control;
        if (c.amId == AmId.WIREUP) {
            st = trySendWireup(ep, (byte) c.value, c.header);
        } else {
            ControlMessage.writePayload(ep.ctl, c.value);
            st = ep.amEp.amShort(c.amId, c.header, ep.ctl, 0, ControlMessage.PAYLOAD_LENGTH);
        }
        if (st == Status.OK) {
            ep.queue.sent(r);
            worker.complete(r, st); // released: back to the pool
        }
        return st;
    }

    /** Control traffic never waits behind a message that flow control holds: the peer may need it to drain. */
    @Override
    boolean bypassesFlowStop(final Request r) {
        return r.kind == Request.CONTROL;
    }

    /** Sends a short control message now, or queues it if the lane is busy. */
    void send(final Endpoint ep, final int amId, final long header, final long value) {
        if (ep.failure() != null) {
            return;
        }
        if (ep.queue.isEmpty() && trySend(ep, amId, header, value)) {
            return;
        }
        ep.queue.add(controlRequest(ep, amId, header, value));
    }

    /**
     * A reply the peer may be waiting for behind its own send queue (emulated atomics: a fence there
     * waits for it; GET-based eager slot returns), or a flow-control STOP/GO the peer must see before
     * anything queued later: it goes at once, ahead of the endpoint's queue, or else at the queue's
     * front, behind earlier such replies only ({@link SendQueue#addUrgent}).
     */
    void sendReply(final Endpoint ep, final int amId, final long header, final long value) {
        if (ep.failure() != null || ep.isClosed()) {
            return; // the peer's endpoint fails or closes too: nobody waits for the reply
        }
        if (!ep.queue.hasUrgent() && trySend(ep, amId, header, value)) {
            return;
        }
        ep.queue.addUrgent(controlRequest(ep, amId, header, value));
    }

    private static boolean trySend(final Endpoint ep, final int amId, final long header, final long value) {
        ControlMessage.writePayload(ep.ctl, value);
        return ep.amEp.amShort(amId, header, ep.ctl, 0, ControlMessage.PAYLOAD_LENGTH) == Status.OK;
    }

    /** A queued control message: nobody waits for it, recycled when sent. */
    private Request controlRequest(final Endpoint ep, final int amId, final long header, final long value) {
        final Request r = worker.acquire(Request.CONTROL);
        r.ep = ep;
        r.control.amId = amId;
        r.control.header = header;
        r.control.value = value;
        r.released = true;
        return r;
    }

    /** Sends WIREUP (our worker address with a request); queued when the lane is full. */
    void sendWireup(final Endpoint ep, final byte type, final long dst) {
        final Status st = trySendWireup(ep, type, dst);
        if (st == Status.NO_RESOURCE) {
            // the lane is full (the peer's receive FIFO, filled by many PEs wiring up at once, or this side
            // streaming to the peer): the message waits in the send queue, ahead of anything sent later
            ep.queue.add(controlRequest(ep, AmId.WIREUP, dst, type));
        } else if (st != Status.OK) {
            throw new WeftException(st, "cannot send the wireup message to " + ep.remote + " on " + ep.am.name()
                + ": " + st);
        }
    }

    private Status trySendWireup(final Endpoint ep, final byte type, final long dst) {
        final byte[] addr = type == WireupMessage.REQUEST ? worker.address() : new byte[0];
        packer.wireup(type, ep.id, dst, ep.connSn, addr);
        final long n = ep.amEp.amBcopy(AmId.WIREUP, packer);
        return n < 0 ? Status.ofLength(n) : Status.OK;
    }

    /** Writes WIREUP messages; set before each amBcopy call. */
    private static final class WireupPacker implements Packer {
        private byte wType;
        private long wSrc;
        private long wDst;
        private long wSn;
        private byte[] wAddr;

        void wireup(final byte type, final long src, final long dst, final long sn, final byte[] addr) {
            wType = type;
            wSrc = src;
            wDst = dst;
            wSn = sn;
            wAddr = addr;
        }

        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            if (WireupMessage.LENGTH + wAddr.length > capacity) {
                throw new WeftException(Status.BUFFER_TOO_SMALL, "worker address of " + wAddr.length
                    + " bytes does not fit in one message of " + capacity);
            }
            return WireupMessage.write(d, o, wType, wSrc, wDst, wSn, wAddr);
        }
    }
}
