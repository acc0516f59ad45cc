package weft.tools.perftest;

import weft.ucp.Request;

/**
 * The server's part of a two-sided protocol-layer test: progresses its worker, keeps receives
 * posted (one in ping-pong tests; in bandwidth tests up to the messaging's window, as ucx_perftest's
 * receiver does), answers each ping-pong message, and in bandwidth tests sends the end-of-stream
 * message once every message has arrived. Allocation free.
 */
final class UcpResponder implements UcpResponding {
    private static final String RECEIVING = "receiving";
    private static final String REPLYING = "replying";

    private final UcpSide side;
    private final UcpMessaging messaging;
    private final boolean pingPong;
    /** Messages the initiator sends in all (warm-up + measured). */
    private final long total;
    private final UcpOutstanding replies = new UcpOutstanding(16);
    private boolean posted;
    private Request fin;
    private boolean finDone;
    private long received;

    UcpResponder(final UcpSide side, final long total) {
        this.side = side;
        this.messaging = side.messaging;
        this.pingPong = side.params.test().type() == PerfTestKind.Type.PINGPONG;
        this.total = total;
    }

    @Override
    public int poll() {
        int work = side.worker.progress();
        if (replies.count() > 0) {
            replies.reap(REPLYING);
        }
        return work + (pingPong ? answer() : absorb());
    }

    /** Posts the next receive if one is due; false when every message has been received. */
    private boolean ensurePosted() {
        if (!posted) {
            if (received >= total) {
                return false;
            }
            messaging.postReceive(side.worker, side.ep, side.recv, side.size);
            posted = true;
        }
        return true;
    }

    private int answer() {
        if (!ensurePosted() || replies.isFull() || !messaging.receiveDone(RECEIVING)) {
            return 0;
        }
        posted = false;
        received++;
        replies.add(messaging.send(side.ep, side.send, side.size), REPLYING);
        ensurePosted(); // before the next message arrives: it then matches at once
        return 1;
    }

    private int absorb() {
        int n = 0;
        while (true) {
            // keep the window of receives posted (one for streams and active messages)
            while (messaging.posted() < messaging.window() && received + messaging.posted() < total) {
                messaging.postReceive(side.worker, side.ep, side.recv, side.size);
            }
            final int done = messaging.posted() > 0 ? messaging.receivesDone(RECEIVING) : 0;
            if (done == 0) {
                break;
            }
            received += done;
            n += done;
        }
        if (received >= total && !finDone) {
            if (fin == null) {
                fin = messaging.sendFin(side.ep, side.send);
            }
            if (fin.isCompleted()) {
                UcpOutstanding.finish(fin, "sending the end-of-stream message");
                finDone = true;
                n++;
            }
        }
        return n;
    }

    @Override
    public boolean finished() {
        return pingPong ? received >= total && replies.count() == 0 : finDone;
    }

    @Override
    public String handled() {
        return "server handled " + received + " of " + total + " messages";
    }

    @Override
    public void verify() {
        if (messaging.checked() < total) {
            throw new PerfException("the server checked the bytes of " + messaging.checked() + " of " + total
                + " messages");
        }
    }

    @Override
    public void abandon() {
        messaging.abandonReceive();
        posted = false;
        if (fin != null && !finDone) {
            fin.release();
        }
        replies.releaseAll();
    }
}
