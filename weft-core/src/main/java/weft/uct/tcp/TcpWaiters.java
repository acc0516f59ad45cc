package weft.uct.tcp;

import weft.ucs.Status;
import weft.uct.Completion;

/**
 * A tcp endpoint's completions that wait for the stream to reach a point: "bytes written up to
 * {@code tx}" (zcopy sends), "puts acknowledged up to {@code put}" (putZcopy) and "replies up to
 * op {@code ops}" (flush). The three targets only ever grow, so the waiters complete in FIFO
 * order. The ring starts at {@link TcpOpRing#INIT} entries and doubles up to {@link #CAP}.
 * Single threaded.
 */
final class TcpWaiters {
    /** Most waiters in flight. */
    static final int CAP = 1024;
    static final byte TX = 0;
    static final byte PUT = 1;
    static final byte FLUSH = 2;

    long head;
    long tail;
    private int mask = TcpOpRing.INIT - 1;
    private byte[] kind = new byte[TcpOpRing.INIT];
    private long[] tx = new long[TcpOpRing.INIT];
    private long[] put = new long[TcpOpRing.INIT];
    private long[] ops = new long[TcpOpRing.INIT];
    private Status[] status = new Status[TcpOpRing.INIT];
    private Completion[] comp = new Completion[TcpOpRing.INIT];

    boolean isEmpty() {
        return head == tail;
    }

    int size() {
        return (int) (tail - head);
    }

    /** Adds a waiter (the caller checked {@link #room}). */
    void add(final byte k, final long txTarget, final long putTarget, final long opsTarget, final Completion c) {
        final int i = (int) (tail++ & mask);
        kind[i] = k;
        tx[i] = txTarget;
        put[i] = putTarget;
        ops[i] = opsTarget;
        status[i] = Status.OK;
        comp[i] = c;
    }

    /** True if the oldest waiter's targets are all reached. */
    boolean headDue(final long written, final long acked, final long opsDone) {
        if (head == tail) {
            return false;
        }
        final int i = (int) (head & mask);
        return written >= tx[i] && acked >= put[i] && opsDone >= ops[i];
    }

    boolean headIsFlush() {
        return kind[(int) (head & mask)] == FLUSH;
    }

    Status headStatus() {
        return status[(int) (head & mask)];
    }

    /** Removes the oldest waiter; returns its completion. */
    Completion pop() {
        final int i = (int) (head++ & mask);
        final Completion c = comp[i];
        comp[i] = null;
        return c;
    }

    /** The put with sequence {@code seq} was refused: its waiter completes with {@code st}. */
    void putFailed(final long seq, final Status st) {
        for (long w = head; w < tail; w++) {
            final int i = (int) (w & mask);
            if (kind[i] == PUT && put[i] == seq) {
                status[i] = st;
            }
        }
    }

    /** Every "bytes written" target is reached (the stream they referred to is left behind). */
    void clearTxTargets() {
        for (long w = head; w < tail; w++) {
            tx[(int) (w & mask)] = 0;
        }
    }

    /** Completes every waiter with {@code st}. */
    void drain(final Status st) {
        while (head != tail) {
            final Completion c = pop();
            if (c != null) {
                c.complete(st);
            }
        }
    }

    /** True if one more waiter fits, doubling the ring (up to {@link #CAP}) when it is full. */
    boolean room() {
        final int cap = mask + 1;
        if (tail - head < cap) {
            return true;
        }
        if (cap == CAP) {
            return false;
        }
        kind = RingArrays.doubled(kind, head, tail, 0);
        tx = RingArrays.doubled(tx, head, tail, 0);
        put = RingArrays.doubled(put, head, tail, 0);
        ops = RingArrays.doubled(ops, head, tail, 0);
        status = RingArrays.doubled(status, head, tail, 0);
        comp = RingArrays.doubled(comp, head, tail, 0);
        mask = 2 * cap - 1;
        return true;
    }
}
