package weft.tools.perftest;

import weft.ucp.Request;

/**
 * The server's part of a protocol-layer test, driven by polling so that the same code runs in its
 * own process or inside the initiator's waits (loopback): progresses its worker, keeps one receive
 * posted (as ucx_perftest's receiver does), answers each ping-pong message, and in bandwidth tests
 * sends the end-of-stream message once every message has arrived. Allocation free.
 */
final class UcpResponder {
    private static final String RECEIVING = "receiving";
    private static final String REPLYING = "replying";

    private final UcpSide side;
    private final boolean pingPong;
    /** Messages the initiator sends in all (warm-up + measured). */
    private final long total;
    private final UcpOutstanding replies = new UcpOutstanding(16);
    private Request recv;
    private Request fin;
    private boolean finDone;
    private long received;

    UcpResponder(final UcpSide side, final long total) {
        this.side = side;
        this.pingPong = side.params.test().type() == PerfTestKind.Type.PINGPONG;
        this.total = total;
    }

    /**
     * Progresses the responder's worker and does its next steps.
     *
     * @return work done (0 = nothing happened)
     */
    int poll() {
        int work = side.worker.progress();
        if (replies.count() > 0) {
            replies.reap(REPLYING);
        }
        return work + (pingPong ? answer() : absorb());
    }

    private Request postReceive() {
        return side.messaging.receive(side.worker, side.ep, side.recv, side.size);
    }

    private int answer() {
        if (recv == null) {
            if (received >= total) {
                return 0;
            }
            recv = postReceive();
        }
        if (!recv.isCompleted() || replies.isFull()) {
            return 0;
        }
        UcpOutstanding.finish(recv, RECEIVING);
        recv = null;
        received++;
        replies.add(side.messaging.send(side.ep, side.send, side.size), REPLYING);
        if (received < total) {
            recv = postReceive(); // before the next message arrives: it then matches at once
        }
        return 1;
    }

    private int absorb() {
        int n = 0;
        while (true) {
            if (recv == null) {
                if (received >= total) {
                    break;
                }
                recv = postReceive();
            }
            if (!recv.isCompleted()) {
                break;
            }
            UcpOutstanding.finish(recv, RECEIVING);
            recv = null;
            received++;
            n++;
        }
        if (received >= total && !finDone) {
            if (fin == null) {
                fin = side.messaging.sendFin(side.ep, side.send);
            }
            if (fin.isCompleted()) {
                UcpOutstanding.finish(fin, "sending the end-of-stream message");
                finDone = true;
                n++;
            }
        }
        return n;
    }

    /** True when this side has done its share: every reply or the end-of-stream message completed. */
    boolean finished() {
        return pingPong ? received >= total && replies.count() == 0 : finDone;
    }

    long received() {
        return received;
    }

    /** Releases requests a failed or ended run left behind. */
    void abandon() {
        if (recv != null) {
            recv.release();
            recv = null;
        }
        if (fin != null && !finDone) {
            fin.release();
        }
        replies.releaseAll();
    }
}
