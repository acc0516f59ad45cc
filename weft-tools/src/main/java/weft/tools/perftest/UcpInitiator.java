package weft.tools.perftest;

import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Worker;

import java.lang.foreign.MemorySegment;

/**
 * The client's part of a protocol-layer test: the timed loops. Ping-pong tests send, post the
 * receive of the reply and wait for both (as ucx_perftest's UCP ping-pong does); bandwidth tests
 * keep up to -O sends uncompleted and end, in the measured phase, when the responder's
 * end-of-stream message says it has received everything. Nothing here allocates once the loops
 * run: short sends return {@link Request#done}, other requests come from the worker's pool.
 */
final class UcpInitiator implements PerfLoop {
    private static final String SENDING = "sending";
    private static final String WAITING_REPLY = "waiting for the peer's reply";
    private static final String WAITING_COMPLETION = "waiting for send completions";
    private static final String WAITING_FIN = "waiting for the peer to receive everything";

    private final UcpSide side;
    private final Worker worker;
    private final Endpoint ep;
    private final MemorySegment sendBuf;
    private final MemorySegment recvBuf;
    private final long size;
    private final UcpMessaging messaging;
    private final UcpProgress progress;
    private final Watchdog watchdog;
    private final boolean pingPong;
    private final int maxOutstanding;
    private final UcpOutstanding outstanding;

    UcpInitiator(final UcpSide side, final UcpResponding loopback, final Watchdog watchdog) {
        this.side = side;
        this.worker = side.worker;
        this.ep = side.ep;
        this.sendBuf = side.send;
        this.recvBuf = side.recv;
        this.size = side.size;
        this.messaging = side.messaging;
        this.progress = new UcpProgress(worker, loopback, watchdog);
        this.watchdog = watchdog;
        this.pingPong = side.params.test().type() == PerfTestKind.Type.PINGPONG;
        this.maxOutstanding = side.params.maxOutstanding();
        this.outstanding = new UcpOutstanding(maxOutstanding);
    }

    private void progress() {
        progress.progress();
    }

    @Override
    public void runChunk(final long k, final PerfMeter meter) {
        if (pingPong) {
            pingPong(k, meter);
        } else {
            stream(k, meter);
        }
    }

    @Override
    public void checkFailure() {
        watchdog.checkFailure("finishing");
    }

    private void pingPong(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            final Request s = messaging.send(ep, sendBuf, size);
            messaging.postReceive(worker, ep, recvBuf, size);
            watchdog.begin();
            while (!messaging.receiveDone(WAITING_REPLY)) {
                progress();
                watchdog.check(WAITING_REPLY);
            }
            progress.await(s, SENDING);
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void stream(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            if (outstanding.isFull()) {
                waitOutstandingBelow(maxOutstanding);
            }
            outstanding.add(messaging.send(ep, sendBuf, size), SENDING);
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void waitOutstandingBelow(final int limit) {
        watchdog.begin();
        while (outstanding.count() >= limit) {
            progress();
            outstanding.reap(WAITING_COMPLETION);
            if (outstanding.count() >= limit) {
                watchdog.check(WAITING_COMPLETION);
            }
        }
    }

    /** Waits until every send completed and the responder says it received every message. */
    @Override
    public void drain() {
        if (pingPong) {
            return;
        }
        waitOutstandingBelow(1);
        progress.await(messaging.receiveFin(worker, recvBuf), WAITING_FIN);
    }

    @Override
    public String describe() {
        return side.describe();
    }

    @Override
    public void abandon() {
        outstanding.releaseAll();
        messaging.abandonReceive();
    }
}
