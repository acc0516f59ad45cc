package weft.uct.tcp;

/**
 * Whether one {@link TcpEndpoint}'s next request may take room on its socket: the sharing rules of a socket both
 * peers' requesters use, and the replay window of a socket whose stream may be resumed.
 *
 * <p><b>Sharing.</b> On a shared socket the peer's server answers on the same socket as its own requester
 * sends, so both sides must be able to queue every reply they owe at any time, or two saturated
 * sides could stop reading each other (deadlock). A requester therefore (1) leaves
 * {@link #REPLY_RESERVE} bytes and {@link #IOV_RESERVE} iovec entries of its tx buffer to the
 * local server's replies, (2) keeps the reply bytes it may cause at the peer below
 * {@link #REPLY_BUDGET}, and (3) sends nothing after a get larger than the peer copies into its
 * tx buffer until that get completes (the peer serves nothing after such a get until the data
 * left, so a request behind it would stop the peer's reading).
 *
 * <p><b>Replay window.</b> Every byte a resumable stream copies (frames, AM payloads) stays in its
 * {@link TcpReplayLog} until the peer acknowledges it. A sender faster than its receiver would otherwise fill the
 * log up to {@code TCP_REPLAY_MAX} (queued zero-copy AMs are copied at queue time), and past that a fault could no
 * longer be ridden through. So once the copies the peer has not acknowledged reach {@code TCP_REPLAY_WINDOW}, new
 * requests get NO_RESOURCE (ucp queues them) until an ACK arrives. No deadlock: the window is larger than
 * {@link TcpConnection#ACK_EVERY}, and the receiver acknowledges every {@code ACK_EVERY} bytes it consumes whether
 * or not a frame asked. Put payloads go by reference and are not counted (their owners keep them until acked).
 */
final class TcpSendGate {
    /** Reply bytes a requester may cause at the peer's server at once (shared sockets). */
    static final int REPLY_BUDGET = 32 * 1024;
    /** Tx bytes a requester leaves to its own side's replies on a shared socket (wrap slack included). */
    static final int REPLY_RESERVE = 2 * REPLY_BUDGET + 2 * (TcpServerConnection.GET_COPY_MAX + 64);
    /** Iovec entries a requester leaves to replies on a shared socket. */
    static final int IOV_RESERVE = 160 + TcpInterface.MAX_IOV + 1;
    /** The smallest replay window: above {@link TcpConnection#ACK_EVERY} plus the largest frame. */
    static final long MIN_WINDOW = 4 * TcpConnection.ACK_EVERY;

    /**
     * The window {@code WEFT_TCP_REPLAY_WINDOW} asks for, kept within [{@link #MIN_WINDOW}, the replay log's
     * largest size], and never below the minimum (the no-deadlock rule of the class comment): with a smaller
     * {@code TCP_REPLAY_MAX} the log forgets its oldest copies first, as it did before the window.
     */
    static int window(final long configured, final int replayMax) {
        return (int) Math.min(Math.max(replayMax, MIN_WINDOW), Math.max(MIN_WINDOW, configured));
    }

    private final TcpEndpoint ep;
    /** The socket requests go to is shared: the sharing rules apply. */
    boolean shared;

    TcpSendGate(final TcpEndpoint ep) {
        this.ep = ep;
    }

    /** Room for a pending request to be dispatched (a frame of a segment with its iovecs, a waiter, an op slot). */
    boolean hasRoom() {
        final TcpChannel ch = ep.ch;
        if (shared && (ep.ops.bigGets != 0 || !replyRoom(64)) || !windowOpen(ch)) {
            return false;
        }
        final int reserve = shared ? REPLY_RESERVE : 0;
        return ch.txFree() > ep.iface.segSize + 64 + reserve && ch.iovFree() > 16 + (shared ? IOV_RESERVE : 0)
            && ep.ops.issued - ep.ops.done < TcpOpRing.CAP && ep.waits.size() < TcpWaiters.CAP;
    }

    /**
     * Reserves tx room for a request frame of {@code len} bytes that may cause {@code replyBytes} of reply at the
     * peer ({@link TcpChannel#reserve}); -1 if the rules say not now.
     */
    int reserve(final int len, final int replyBytes) {
        final TcpChannel ch = ep.ch;
        if (!windowOpen(ch)) {
            return -1;
        }
        return shared ? open(len, replyBytes) ? ch.reserve(len) : -1 : ch.reserve(len);
    }

    /** Whether a frame of {@code len} bytes causing {@code replyBytes} of reply may go now (before its packing). */
    boolean mayQueue(final int len, final int replyBytes) {
        final TcpChannel ch = ep.ch;
        return windowOpen(ch) && (shared ? open(len, replyBytes) : ch.iovFree() > 0);
    }

    private boolean open(final int len, final int replyBytes) {
        final TcpChannel ch = ep.ch;
        return ep.ops.bigGets == 0 && ch.txFree() >= len + REPLY_RESERVE && ch.iovFree() >= IOV_RESERVE
            && replyRoom(replyBytes);
    }

    /** True if the peer can owe {@code bytes} more reply bytes within the budget. */
    private boolean replyRoom(final int bytes) {
        return ep.ops.replyBytes + 16 * (ep.putSeq - ep.ackedSeq) + 8 * (ep.kaSent - ep.kaAcked) + bytes
            <= REPLY_BUDGET;
    }

    /** The copies the peer has not acknowledged are below the window (always, on a stream that is not logged). */
    private boolean windowOpen(final TcpChannel ch) {
        final TcpReplayLog log = ch.log;
        return log == null || log.copiedUnacked() < ep.iface.replayWindow;
    }
}
