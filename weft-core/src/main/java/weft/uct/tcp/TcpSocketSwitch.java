package weft.uct.tcp;

import weft.ucs.Status;

/**
 * Moves one {@link TcpEndpoint} from the socket it opened to {@code target}, a shared socket the peer
 * interface opened (the peer's address is the smaller: its socket carries both directions).
 * The peer reads its two sockets in whatever order epoll reports them, so a request sent on
 * the new socket could overtake one still in flight on the old one. Hence, without ever
 * refusing an operation:
 * <ol>
 * <li>requests go on as before until the old socket's tx queue is empty (so that every
 * completion waiting for "bytes written" is due: none refers to the old stream after);</li>
 * <li>a KEEPALIVE goes out on the old socket, and later requests are queued on the new
 * socket, which holds its transmission ({@link TcpChannel#held});</li>
 * <li>once that KEEPALIVE's ack and every reply owed on the old socket are in (the peer
 * serves each socket in order: the ack proves that everything before it was served), the
 * new socket transmits and the old one is left (DETACH).</li>
 * </ol>
 * Replies keep their order: those of the old socket all arrive before any request on the
 * new one leaves. An endpoint that sent nothing yet moves at once.
 *
 * <p>Either socket may break meanwhile: it resumes as any other ({@link TcpResume}); the new
 * socket keeps its queue held through the resume ({@link #holds}), and the steps go on once the
 * old socket's acknowledgement and replies arrive.
 */
final class TcpSocketSwitch {
    private final TcpEndpoint ep;
    /** The accepted socket the endpoint moves to, or null. */
    private TcpConnection switchTo;
    /** 0 none, 1 waiting for the old tx queue to drain, 2 new requests held on the new socket. */
    private int switchPhase;
    private long switchKa;
    private long opsAtSwitch;
    private long putAtSwitch;

    TcpSocketSwitch(final TcpEndpoint ep) {
        this.ep = ep;
    }

    /** Starts moving to {@code target} (claimed at once: no other endpoint attaches to it meanwhile). */
    void begin(final TcpConnection target) {
        switchTo = target;
        switchPhase = 1;
        target.requester = ep;
        target.hadRequester = true;
        advance(true);
    }

    /** True while moving. */
    boolean active() {
        return switchTo != null;
    }

    /** True while moving to {@code t} (its socket comes back if it breaks meanwhile, as the old one does). */
    boolean movingTo(final TcpConnection t) {
        return switchTo == t;
    }

    /** True while new requests are held on {@code t}, the socket this endpoint moves to. */
    boolean holds(final TcpConnection t) {
        return switchTo == t && switchPhase == 2;
    }

    /** True while new requests are held on the new socket (phase 2). */
    boolean holding() {
        return switchPhase == 2;
    }

    /** Takes the next step if it is due (progress, or an operation that changed the state). */
    void advance(final boolean fromProgress) {
        final TcpConnection t = switchTo;
        if (t == null) {
            return;
        }
        if (t.closed) {
            targetLost(t, fromProgress);
            return;
        }
        if (switchPhase == 1) {
            if (!ep.sentAny && ep.waits.isEmpty() && ep.ops.isEmpty() && ep.ackedSeq == ep.putSeq
                && !ep.replies.streaming()) {
                final TcpConnection old = ep.conn;
                ep.conn = t;
                ep.ch = t.ch;
                ep.ownTx = 0;
                endSwitch(old);
                return;
            }
            if (!ep.ch.txEmpty() || ep.ops.bigGets != 0) {
                return; // retried when the old socket drained (a large get: when it completed)
            }
            final int off = ep.ch.reserve(TcpFrame.HEADER);
            if (off < 0) {
                return;
            }
            TcpFrame.header(ep.ch.tx, off, TcpFrame.KEEPALIVE, 0, 0, 0);
            switchKa = ++ep.kaSent;
            if (ep.ch.commit(off, TcpFrame.HEADER) < 0) {
                ep.conn.writeFailed(fromProgress);
                return;
            }
            // the old tx queue was empty before the KEEPALIVE: every "bytes written" wait is due
            ep.waits.clearTxTargets();
            opsAtSwitch = ep.ops.issued;
            putAtSwitch = ep.putSeq;
            t.ch.held = true;
            ep.ch = t.ch;
            ep.ownTx = 0;
            ep.sentAny = false;
            ep.gate.shared = t.shared;
            switchPhase = 2;
        }
        if (ep.kaAcked < switchKa || ep.ops.done < opsAtSwitch || ep.ackedSeq < putAtSwitch
            || ep.replies.streaming()) {
            return;
        }
        final TcpConnection old = ep.conn;
        ep.conn = t;
        t.ch.held = false;
        if (t.ch.flushTx() < 0) {
            endSwitch(old);
            t.writeFailed(fromProgress);
            return;
        }
        endSwitch(old);
        ep.completeWaiters();
    }

    private void endSwitch(final TcpConnection old) {
        switchTo = null;
        switchPhase = 0;
        ep.gate.shared = ep.conn.shared;
        ep.iface.countSwitch();
        old.detach(ep);
    }

    /**
     * The socket this endpoint was moving to closed before the switch: stay where it is, or
     * fail if requests were already queued on it.
     */
    void targetLost(final TcpConnection t, final boolean fromProgress) {
        if (switchTo != t) {
            return;
        }
        final boolean queued = switchPhase == 2;
        switchTo = null;
        switchPhase = 0;
        if (queued) {
            ep.ch = ep.conn.ch;
            ep.connectionLost(Status.CONNECTION_RESET, fromProgress);
        } else {
            ep.gate.shared = ep.conn.shared;
        }
    }

    /** The endpoint failed or closed mid-move: what was queued on the new socket goes out, the socket is left. */
    void leave() {
        final TcpConnection t = switchTo;
        if (t != null) {
            switchTo = null;
            if (switchPhase == 2) {
                ep.ch = ep.conn.ch;
                t.ch.held = false; // what was queued there goes out; its replies are dropped
                t.ch.flushTx();
            }
            switchPhase = 0;
            t.detach(ep);
        }
    }
}
