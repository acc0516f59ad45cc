package weft.tools.perftest;

import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.uct.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The client's part of a one-sided protocol-layer test (ucp_put_lat, ucp_put_bw, ucp_get, ucp_add,
 * ucp_fadd, ucp_swap, ucp_cswap) on the peer's mapped memory through weft.ucp's endpoint RMA API:
 * <ul>
 * <li>ucp_put_lat: ping-pong through memory, as ucx_perftest does it: the message's last byte
 *     carries a sequence number; each side polls the last byte of its own region and puts back.</li>
 * <li>ucp_put_bw, ucp_add: non-blocking puts / atomic adds; a flush whenever -O of them are still
 *     in progress, and one at the end (timed) so that everything is complete at the target.</li>
 * <li>ucp_get, ucp_fadd, ucp_swap, ucp_cswap: one blocking operation at a time; each result is
 *     checked (the get's last byte against the peer's pattern, the fetched value against the
 *     counter's expected history), so a wrong result fails the run.</li>
 * </ul>
 * Nothing here allocates per iteration for sizes up to 8 bytes: operations that finish inside
 * the call return a status or {@link Request#done}; others use the worker's pooled requests.
 */
final class UcpRmaInitiator implements PerfLoop {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final String WAITING_REPLY = "waiting for the peer's put";
    private static final String WAITING_RESULT = "waiting for the operation to complete";
    private static final String WAITING_FLUSH = "waiting for a flush";

    private final UcpSide side;
    private final Worker worker;
    private final Endpoint ep;
    private final Rkey rkey;
    private final long remote;
    private final long size;
    private final MemorySegment src;
    /** Where gets and fetching atomics land. */
    private final MemorySegment dst;
    /** This side's mapped region: where the peer's ping-pong puts land. */
    private final MemorySegment region;
    private final UcpProgress progress;
    private final Watchdog watchdog;
    private final PerfTestKind test;
    private final int maxOutstanding;
    private final boolean atomic32;
    private final byte lastPattern;
    /** Operations issued so far (warm-up included): the counter's value at the target. */
    private long seq;
    /** Non-blocking operations issued since the last flush that did not finish inside their call. */
    private int inProgress;

    UcpRmaInitiator(final UcpSide side, final UcpResponding loopback, final Watchdog watchdog) {
        this.side = side;
        this.worker = side.worker;
        this.ep = side.ep;
        this.rkey = side.peerKey;
        this.remote = side.peerBase;
        this.size = side.size;
        this.src = side.send;
        this.dst = side.recv;
        this.region = side.region.segment();
        this.progress = new UcpProgress(worker, loopback, watchdog);
        this.watchdog = watchdog;
        this.test = side.params.test();
        this.maxOutstanding = side.params.maxOutstanding();
        this.atomic32 = test.isAtomic() && size == 4;
        this.lastPattern = UcpMessaging.pattern(size - 1);
    }

    private void progress() {
        progress.progress();
    }

    @Override
    public void runChunk(final long k, final PerfMeter meter) {
        switch (test) {
            case UCP_PUT_LAT -> putLatency(k, meter);
            case UCP_PUT_BW -> putStream(k, meter);
            case UCP_ADD -> addStream(k, meter);
            case UCP_GET -> getOneByOne(k, meter);
            case UCP_FADD, UCP_SWAP, UCP_CSWAP -> fetchOneByOne(k, meter);
            default -> throw new PerfException(test.testName() + " is not a one-sided protocol-layer test");
        }
    }

    /** Everything complete at the target, as ucx_perftest's final flush. */
    @Override
    public void drain() {
        if (inProgress > 0 || test == PerfTestKind.UCP_PUT_BW || test == PerfTestKind.UCP_ADD) {
            flush();
        }
    }

    /** Flushes once, so that the measured phase starts with nothing in flight and a warm flush path. */
    @Override
    public void afterWarmup() {
        flush();
    }

    @Override
    public void checkFailure() {
        watchdog.checkFailure("finishing");
    }

    private void putLatency(final long n, final PerfMeter meter) {
        final long last = size - 1;
        for (long i = 0; i < n; i++) {
            final byte sn = (byte) ++seq;
            src.set(ValueLayout.JAVA_BYTE, last, sn);
            issued(ep.putNbi(src, 0, size, remote, rkey));
            watchdog.begin();
            // acquire: the peer's put (a store into this mapped memory, or the transport's write) is visible
            while ((byte) BYTE.getAcquire(region, last) != sn) {
                progress();
                watchdog.check(WAITING_REPLY);
            }
            meter.tick();
        }
    }

    private void putStream(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            if (issued(ep.putNbi(src, 0, size, remote, rkey)) && ++inProgress >= maxOutstanding) {
                flush();
            }
            seq++;
            meter.tick();
        }
    }

    private void addStream(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            final Status st = atomic32 ? ep.atomicPost32(AtomicOp.ADD, 1, remote, rkey)
                : ep.atomicPost(AtomicOp.ADD, 1L, remote, rkey);
            if (issued(st) && ++inProgress >= maxOutstanding) {
                flush();
            }
            seq++;
            meter.tick();
        }
    }

    private void getOneByOne(final long n, final PerfMeter meter) {
        final long last = size - 1;
        for (long i = 0; i < n; i++) {
            dst.set(ValueLayout.JAVA_BYTE, last, (byte) ~lastPattern); // the get must write it again
            progress.await(ep.get(dst, 0, size, remote, rkey), WAITING_RESULT);
            if (dst.get(ValueLayout.JAVA_BYTE, last) != lastPattern) {
                throw new PerfException("get " + (seq + 1) + " read " + dst.get(ValueLayout.JAVA_BYTE, last)
                    + " as the last byte of the peer's memory, expected " + lastPattern);
            }
            seq++;
            meter.tick();
        }
    }

    private void fetchOneByOne(final long n, final PerfMeter meter) {
        for (long i = 0; i < n; i++) {
            final long before = seq; // the target word's value now: every earlier operation left it at seq
            final long next = before + 1;
            final Request r = switch (test) {
                case UCP_FADD -> atomic32 ? ep.atomicFetch32(AtomicOp.ADD, 1, dst, 0, remote, rkey)
                    : ep.atomicFetch(AtomicOp.ADD, 1L, dst, 0, remote, rkey);
                case UCP_SWAP -> atomic32 ? ep.atomicFetch32(AtomicOp.SWAP, (int) next, dst, 0, remote, rkey)
                    : ep.atomicFetch(AtomicOp.SWAP, next, dst, 0, remote, rkey);
                default -> atomic32 ? ep.atomicCswap32((int) before, (int) next, dst, 0, remote, rkey)
                    : ep.atomicCswap(before, next, dst, 0, remote, rkey);
            };
            progress.await(r, WAITING_RESULT);
            final long old = atomic32 ? dst.get(ValueLayout.JAVA_INT, 0) : dst.get(ValueLayout.JAVA_LONG, 0);
            if (old != (atomic32 ? (int) before : before)) {
                throw wrongFetch(old, before);
            }
            seq = next;
            meter.tick();
        }
    }

    private PerfException wrongFetch(final long old, final long expected) {
        return new PerfException(test.testName() + " " + (seq + 1) + " fetched " + old + ", expected " + expected);
    }

    /** True if the operation is still in progress (complete at the target after a flush). */
    private boolean issued(final Status st) {
        if (st == Status.IN_PROGRESS) {
            return true;
        }
        if (st != Status.OK) {
            throw Initiator.failed(st, test.testName());
        }
        return false;
    }

    private void flush() {
        progress.await(ep.flush(), WAITING_FLUSH);
        inProgress = 0;
    }

    @Override
    public String describe() {
        return side.describe();
    }
}
