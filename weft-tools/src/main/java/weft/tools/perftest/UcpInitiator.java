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
    /** Iterations per call of a loop method (the same JIT reasoning as {@link Initiator}). */
    private static final long CHUNK = 64;

    private final UcpSide side;
    private final Worker worker;
    private final Endpoint ep;
    private final MemorySegment sendBuf;
    private final MemorySegment recvBuf;
    private final long size;
    private final UcpMessaging messaging;
    /** In loopback, the responder (with its own worker) runs inside this side's waits; else null. */
    private final UcpResponding loopback;
    private final Watchdog watchdog;
    private final PerfTestKind test;
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
        this.loopback = loopback;
        this.watchdog = watchdog;
        this.test = side.params.test();
        this.maxOutstanding = side.params.maxOutstanding();
        this.outstanding = new UcpOutstanding(maxOutstanding);
    }

    private void progress() {
        worker.progress();
        if (loopback != null) {
            loopback.poll();
        }
    }

    @Override
    public PerfResult run(final long n, final PerfMeter meter, final boolean drain) {
        if (meter != null) {
            meter.start(System.nanoTime());
        }
        final boolean pingPong = test.type() == PerfTestKind.Type.PINGPONG;
        for (long left = n; left > 0; left -= CHUNK) {
            final long k = Math.min(left, CHUNK);
            if (pingPong) {
                pingPong(k, meter);
            } else {
                stream(k, meter);
            }
        }
        if (meter == null) {
            return null;
        }
        if (drain && !pingPong) {
            drain();
        }
        final PerfResult r = meter.finish(System.nanoTime());
        watchdog.checkFailure("finishing");
        return r;
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
            watchdog.begin();
            while (!s.isCompleted()) {
                progress();
                watchdog.check(SENDING);
            }
            UcpOutstanding.finish(s, SENDING);
            if (meter != null) {
                meter.record(System.nanoTime());
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
                meter.record(System.nanoTime());
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
    private void drain() {
        waitOutstandingBelow(1);
        final Request fin = messaging.receiveFin(worker, recvBuf);
        watchdog.begin();
        while (!fin.isCompleted()) {
            progress();
            watchdog.check(WAITING_FIN);
        }
        UcpOutstanding.finish(fin, WAITING_FIN);
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
