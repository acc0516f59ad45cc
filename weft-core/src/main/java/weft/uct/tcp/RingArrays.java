package weft.uct.tcp;

import java.lang.reflect.Array;

/**
 * Growing the parallel arrays of a power-of-two ring (the op ring, the waiter FIFO, the replay
 * log's entries): each array of the ring is copied into one twice as large, every live entry
 * re-placed by its sequence number. Setup path only: it runs when a ring fills, a few times per
 * endpoint at most.
 */
final class RingArrays {
    private RingArrays() {
    }

    /**
     * A copy of ring array {@code old} (any component type) twice as large, in which the entry of
     * sequence {@code k} for {@code from <= k < to} moves from {@code old[k & (old.length - 1)]} to
     * index {@code (k - shift) & (2 * old.length - 1)}.
     */
    static <A> A doubled(final A old, final long from, final long to, final long shift) {
        final int cap = Array.getLength(old);
        @SuppressWarnings("unchecked") // a new array of the component type of old
        final A grown = (A) Array.newInstance(old.getClass().getComponentType(), 2 * cap);
        for (long k = from; k < to; k++) {
            System.arraycopy(old, (int) (k & (cap - 1)), grown, (int) ((k - shift) & (2 * cap - 1)), 1);
        }
        return grown;
    }
}
