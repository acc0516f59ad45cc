package weft.tools.perftest;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The server's part of a one-sided protocol-layer test: progresses its worker (transports without
 * direct access, such as tcp, serve the peer's operations there), answers ucp_put_lat's puts, and
 * at the end checks what the test left in its region: the peer's put data, or the atomic counter
 * at the number of operations. Allocation free while polling.
 */
final class UcpRmaResponder implements UcpResponding {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final UcpSide side;
    private final PerfTestKind test;
    private final MemorySegment region;
    private final long size;
    /** Operations the initiator issues in all (warm-up + measured). */
    private final long total;
    private long answered;

    UcpRmaResponder(final UcpSide side, final long total) {
        this.side = side;
        this.test = side.params.test();
        this.region = side.region.segment();
        this.size = side.size;
        this.total = total;
    }

    @Override
    public int poll() {
        final int work = side.worker.progress();
        return test == PerfTestKind.UCP_PUT_LAT ? work + answer() : work;
    }

    private int answer() {
        final byte expected = (byte) (answered + 1);
        // acquire: the peer's put of the whole message is visible once its last byte is
        if (answered >= total || (byte) BYTE.getAcquire(region, size - 1) != expected) {
            return 0;
        }
        if (size > 1 && region.get(ValueLayout.JAVA_BYTE, 0) != UcpMessaging.pattern(0)) {
            throw new PerfException("put " + (answered + 1) + " arrived corrupted: first byte "
                + region.get(ValueLayout.JAVA_BYTE, 0) + ", expected " + UcpMessaging.pattern(0));
        }
        side.send.set(ValueLayout.JAVA_BYTE, size - 1, expected);
        final Status st = side.ep.putNbi(side.send, 0, size, side.peerBase, side.peerKey);
        if (st != Status.OK && st != Status.IN_PROGRESS) {
            throw Initiator.failed(st, "putting the reply");
        }
        answered++;
        return 1;
    }

    @Override
    public boolean finished() {
        return test != PerfTestKind.UCP_PUT_LAT || answered >= total;
    }

    @Override
    public String handled() {
        return test == PerfTestKind.UCP_PUT_LAT ? "server answered " + answered + " of " + total + " puts"
            : "one-sided test";
    }

    @Override
    public void verify() {
        switch (test.command()) {
            case PUT -> {
                // ucp_put_bw: the whole message; ucp_put_lat: all but the last byte (the sequence number)
                final long n = test == PerfTestKind.UCP_PUT_LAT ? size - 1 : size;
                for (long i = 0; i < n; i++) {
                    final byte b = region.get(ValueLayout.JAVA_BYTE, i);
                    if (b != UcpMessaging.pattern(i)) {
                        throw new PerfException("the peer's puts did not arrive: byte " + i + " of the region is "
                            + b + ", expected " + UcpMessaging.pattern(i));
                    }
                }
            }
            case GET -> {
                // nothing was written here; the initiator checked every get's data
            }
            default -> {
                final long word = size == 4 ? (int) INT.getAcquire(region, 0L) : (long) LONG.getAcquire(region, 0L);
                final long expected = size == 4 ? (int) total : total;
                if (word != expected) {
                    throw new PerfException("after " + total + " " + test.testName() + " operations the target word is "
                        + word + ", expected " + expected);
                }
            }
        }
    }

    @Override
    public void abandon() {
        // nothing outstanding: the replies are non-blocking puts, completed by the worker
    }
}
