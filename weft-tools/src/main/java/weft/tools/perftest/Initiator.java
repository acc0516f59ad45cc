package weft.tools.perftest;

import weft.ucs.Status;
import weft.uct.AmHandler;
import weft.uct.UctWorker;

import java.lang.foreign.MemorySegment;

/**
 * The client's part of a test: the timed loops. Each loop issues one operation per iteration
 * (retrying on NO_RESOURCE after progress), waits as the test requires, and records the time of
 * the iteration in the {@link PerfMeter}. Nothing here allocates once the loops run: the
 * operations, handlers and completions are preallocated, waits spin on fields.
 */
final class Initiator implements PerfLoop {
    private static final String SENDING = "sending";
    private static final String WAITING_REPLY = "waiting for the peer's reply";
    private static final String WAITING_COMPLETION = "waiting for completions";
    private static final String WAITING_CREDIT = "waiting for flow-control credits";

    private final PerfSide side;
    private final UctWorker worker;
    /** In loopback, the responder runs inside this side's waits; else null. */
    private final Responder loopback;
    private final Watchdog watchdog;
    private final PerfTestKind test;
    private final int maxOutstanding;
    private final long window;
    private long seq;
    private long replies;
    private long acked;

    Initiator(final PerfSide side, final UctWorker worker, final Responder loopback, final Watchdog watchdog) {
        this.side = side;
        this.worker = worker;
        this.loopback = loopback;
        this.watchdog = watchdog;
        this.test = side.params.test();
        this.maxOutstanding = side.params.maxOutstanding();
        this.window = side.params.window();
        side.iface.setAmHandler(PerfSide.AM_REPLY, new ReplyHandler());
        side.iface.setAmHandler(PerfSide.AM_CREDIT, new CreditHandler());
    }

    private final class ReplyHandler implements AmHandler {
        @Override
        public Status onReceive(final MemorySegment data, final long offset, final long length, final int flags) {
            replies++;
            return Status.OK;
        }
    }

    private final class CreditHandler implements AmHandler {
        @Override
        public Status onReceive(final MemorySegment data, final long offset, final long length, final int flags) {
            final long n = PerfSide.header(data, offset);
            if (n > acked) {
                acked = n;
            }
            return Status.OK;
        }
    }

    /** The measuring side's interface and its counters. */
    @Override
    public String describe() {
        return "counters " + side.iface.transport().name() + "/" + side.iface.device().name() + ": "
            + side.iface.counters();
    }

    /** One round of progress: the worker's interfaces, and the loopback responder. */
    private void progress() {
        worker.progress();
        if (loopback != null) {
            loopback.poll();
        }
    }

    @Override
    public void runChunk(final long k, final PerfMeter meter) {
        switch (test) {
            case AM_LAT -> pingPongAm(k, meter);
            case PUT_LAT -> pingPongPut(k, meter);
            case ADD_LAT -> pingPongAdd(k, meter);
            case GET -> streamGet(k, meter);
            case FADD, SWAP, CSWAP -> fetchOneByOne(k, meter);
            case AM_BW -> streamAm(k, meter);
            case PUT_BW -> streamPut(k, meter);
            case ADD_MR -> streamAdd(k, meter);
        }
    }

    @Override
    public void checkFailure() {
        watchdog.checkFailure("finishing");
    }

    private void pingPongAm(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            final long s = ++seq;
            watchdog.begin();
            Status st;
            while ((st = side.sendAm(PerfSide.AM_DATA, s)) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            watchdog.begin();
            while (replies < s) {
                progress();
                watchdog.check(WAITING_REPLY);
            }
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void pingPongPut(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            final byte sn = (byte) ++seq;
            side.setLastSendByte(sn);
            watchdog.begin();
            Status st;
            while ((st = side.put()) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            watchdog.begin();
            while (side.lastRecvByte() != sn) {
                progress();
                watchdog.check(WAITING_REPLY);
            }
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void pingPongAdd(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            final long s = ++seq;
            final long expect = side.atomic32 ? (int) s : s;
            watchdog.begin();
            Status st;
            while ((st = side.atomicAdd()) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            watchdog.begin();
            while (side.recvWord() != expect) {
                progress();
                watchdog.check(WAITING_REPLY);
            }
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void streamGet(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            waitOutstandingBelow(maxOutstanding);
            Status st;
            while ((st = side.get()) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void fetchOneByOne(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            final long s = ++seq;
            watchdog.begin();
            Status st;
            while ((st = side.atomicFetch(s)) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            waitOutstandingBelow(1);
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void streamAm(final long n, final PerfMeter meter) {
        final boolean zcopy = side.params.layout() == PerfParams.Layout.ZCOPY;
        for (long i = 0; i < n; i++) {
            final long s = ++seq;
            watchdog.begin();
            while (s - acked > window) {
                progress();
                watchdog.check(WAITING_CREDIT);
            }
            if (zcopy) {
                waitOutstandingBelow(maxOutstanding);
            }
            watchdog.begin();
            Status st;
            while ((st = side.sendAm(PerfSide.AM_DATA, s)) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void streamPut(final long n, final PerfMeter meter) {
        final boolean zcopy = side.params.layout() == PerfParams.Layout.ZCOPY;
        for (long i = 0; i < n; i++) {
            if (zcopy) {
                waitOutstandingBelow(maxOutstanding);
            }
            watchdog.begin();
            Status st;
            while ((st = side.put()) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void streamAdd(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            watchdog.begin();
            Status st;
            while ((st = side.atomicAdd()) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(SENDING);
            }
            checkIssued(st);
            if (meter != null) {
                meter.tick();
            }
        }
    }

    private void waitOutstandingBelow(final int limit) {
        if (side.inflight.count() >= limit) { // else nothing to wait for (always so on shm and self)
            waitCompletions(limit);
        }
        if (side.inflight.status() != Status.OK) {
            throw failed(side.inflight.status(), "completing an operation");
        }
    }

    private void waitCompletions(final int limit) {
        watchdog.begin();
        while (side.inflight.count() >= limit) {
            progress();
            watchdog.check(WAITING_COMPLETION);
        }
    }

    /** Waits until everything issued has completed at the target (and am_bw is fully credited). */
    @Override
    public void drain() {
        if (test.type() != PerfTestKind.Type.STREAM) {
            return;
        }
        waitOutstandingBelow(1);
        if (test.command() != PerfTestKind.Command.AM) {
            watchdog.begin();
            Status st;
            while ((st = side.flush()) == Status.NO_RESOURCE) {
                progress();
                watchdog.check(WAITING_COMPLETION);
            }
            checkIssued(st);
            waitOutstandingBelow(1);
        } else {
            watchdog.begin();
            while (acked < seq) {
                progress();
                watchdog.check(WAITING_CREDIT);
            }
        }
    }

    private void checkIssued(final Status st) {
        if (st != Status.OK && st != Status.IN_PROGRESS) {
            throw failed(st, test.testName());
        }
    }

    /** The exception for an operation that failed (slow path). */
    static PerfException failed(final Status st, final String what) {
        return new PerfException(what + " failed: " + st.description() + " (" + st + ")");
    }

    /** Keeps progressing (so outstanding replies still go out) while {@code condition} waits. */
    void progressOnce() {
        progress();
    }
}
