package weft.uct.tcp;

import weft.ucs.Status;
import weft.uct.Completion;
import weft.uct.IoVector;
import weft.uct.Unpacker;

import java.lang.foreign.MemorySegment;

/**
 * A tcp endpoint's operations that wait for a reply (gets and fetching atomics), in request
 * order: op {@code n} sits in slot {@code n & mask} and its reply is the {@code n}-th of its
 * kind to arrive (the request id only double-checks). The ring starts at {@link #INIT} slots and
 * doubles up to {@link #CAP}; in steady state nothing is allocated (a zcopy get's iov is copied
 * into the slot's own reusable {@link IoVector}).
 *
 * <p>It also keeps the reply credits of the outstanding ops: the reply bytes the peer owes
 * ({@link #replyBytes}) and the gets too large for the peer to copy ({@link #bigGets}), which the
 * endpoint's sharing rules read. Single threaded, package-private fields as in a flyweight.
 */
final class TcpOpRing {
    /** Most ops in flight. */
    static final int CAP = 1024;
    /** First size: an endpoint to a peer it rarely uses costs a few hundred bytes of heap. */
    static final int INIT = 16;
    static final byte GET_BCOPY = 1;
    static final byte GET_ZCOPY = 2;
    static final byte ATOMIC = 3;

    long issued;
    long done;
    int mask = INIT - 1;
    byte[] kind = new byte[INIT];
    Completion[] comp = new Completion[INIT];
    IoVector[] iov = new IoVector[INIT];
    private IoVector[] iovKept = new IoVector[INIT]; // getZcopy's copies of the caller's iovs
    Unpacker[] unpacker = new Unpacker[INIT];
    long[] len = new long[INIT];
    MemorySegment[] result = new MemorySegment[INIT];
    long[] resultOff = new long[INIT];
    byte[] size = new byte[INIT];
    /** Reply bytes of the op; negative for a large get. */
    int[] reply = new int[INIT];
    /** Reply bytes the outstanding ops will cause. */
    long replyBytes;
    /** Outstanding gets larger than the peer copies. */
    int bigGets;

    boolean isEmpty() {
        return done == issued;
    }

    /** Slot of the oldest op (valid when not empty). */
    int head() {
        return (int) (done & mask);
    }

    /**
     * Takes the next slot for an op of {@code kind} whose reply is {@code replyLen} bytes ({@code big}:
     * a get the peer sends from its memory); the caller checked {@link #room}. Returns the slot.
     */
    int issue(final byte k, final int replyLen, final boolean big, final Completion c) {
        final int slot = (int) (issued++ & mask);
        kind[slot] = k;
        reply[slot] = big ? -replyLen : replyLen;
        replyBytes += replyLen;
        if (big) {
            bigGets++;
        }
        comp[slot] = c;
        return slot;
    }

    /** Retires the head op (its reply arrived): frees its slot and credits; returns its completion. */
    Completion retireHead() {
        final int slot = head();
        final Completion c = comp[slot];
        clear(slot);
        int r = reply[slot];
        if (r < 0) {
            bigGets--;
            r = -r;
        }
        replyBytes -= r;
        done++;
        return c;
    }

    private void clear(final int slot) {
        comp[slot] = null;
        iov[slot] = null; // the kept copy is cleared at its next use
        unpacker[slot] = null;
        result[slot] = null;
    }

    /** Completes every outstanding op with {@code st} (the endpoint failed or closed). */
    void drain(final Status st) {
        bigGets = 0;
        replyBytes = 0;
        while (done != issued) {
            final int slot = head();
            final Completion c = comp[slot];
            clear(slot);
            done++;
            if (c != null) {
                c.complete(st);
            }
        }
    }

    /**
     * A copy of {@code src}'s entries in the slot's own reusable iov: the caller may reuse its iov at once
     * (one iov per request for every chunk of a rendezvous) and nothing is allocated in steady state.
     */
    IoVector keepIov(final int slot, final IoVector src) {
        IoVector kept = iovKept[slot];
        if (kept == null) {
            kept = new IoVector(Math.max(1, src.count()));
            iovKept[slot] = kept;
        }
        kept.clear();
        for (int i = 0; i < src.count(); i++) {
            kept.add(src.segment(i), src.offset(i), src.length(i));
        }
        return kept;
    }

    /** True if one more op fits, doubling the ring (up to {@link #CAP}) when it is full. */
    boolean room() {
        final int cap = mask + 1;
        if (issued - done < cap) {
            return true;
        }
        if (cap == CAP) {
            return false;
        }
        kind = RingArrays.doubled(kind, done, issued, 0);
        comp = RingArrays.doubled(comp, done, issued, 0);
        iov = RingArrays.doubled(iov, done, issued, 0);
        iovKept = RingArrays.doubled(iovKept, done, issued, 0);
        unpacker = RingArrays.doubled(unpacker, done, issued, 0);
        len = RingArrays.doubled(len, done, issued, 0);
        result = RingArrays.doubled(result, done, issued, 0);
        resultOff = RingArrays.doubled(resultOff, done, issued, 0);
        size = RingArrays.doubled(size, done, issued, 0);
        reply = RingArrays.doubled(reply, done, issued, 0);
        mask = 2 * cap - 1;
        return true;
    }
}
