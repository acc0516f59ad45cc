package weft.uct.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A {@link TcpChannel}'s write queue: a ring of {@code struct iovec} entries that {@code writev} sends
 * straight from, in native memory of the channel's arena.
 * <pre>
 *   entry i at base + 16 * i:   [ iov_base: 8 bytes ][ iov_len: 8 bytes ]
 *   ring:  head .. head + count - 1 (mod capacity), oldest first
 * </pre>
 * It starts with {@link #INIT} entries and doubles when a push finds it full, up to {@link #CAP}, so a
 * connection pays for the depth it used; the old ring stays in the arena until the channel closes (once
 * per doubling). Each entry carries two flags: it points into the channel's tx ring (its bytes are released
 * as they are written, {@link #txReleasedTo}), and it may be spliced (user memory, {@link TcpSplicePipe}).
 * <p>Single threaded, as its channel.
 */
final class TcpWriteQueue {
    /** Most entries the queue holds. */
    static final int CAP = 256;
    /** Entries of a new queue: a connection that carries a few small messages at a time costs 256 bytes. */
    static final int INIT = 16;

    @SuppressWarnings("restricted") // raw addresses of entries the queue allocated itself
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final Arena arena;
    private long base;
    private int cap = INIT;
    private int mask = INIT - 1;
    private boolean[] inTx = new boolean[INIT];
    private boolean[] spliceable = new boolean[INIT];
    private int spliceQueued;
    private int head;
    /** Entries queued. */
    int count;
    /** After {@link #consume}: the address just past the last tx-ring bytes it dropped, or 0 if it dropped none. */
    long txReleasedTo;

    TcpWriteQueue(final Arena arena) {
        this.arena = arena;
        this.base = arena.allocate(16L * INIT, 16).address();
    }

    /** Entries that may still be pushed. */
    int free() {
        return CAP - count;
    }

    boolean full() {
        return count == CAP;
    }

    /** Entries the ring has room for before it grows again. */
    int capacity() {
        return cap;
    }

    /** The iov_base of the entry at {@code entry}. */
    static long address(final long entry) {
        return ALL.get(JAVA_LONG, entry);
    }

    /** The iov_len of the entry at {@code entry}. */
    static long length(final long entry) {
        return ALL.get(JAVA_LONG, entry + 8);
    }

    private static void set(final long entry, final long address, final long len) {
        ALL.set(JAVA_LONG, entry, address);
        ALL.set(JAVA_LONG, entry + 8, len);
    }

    /** The address of the oldest entry (an iovec array of {@link #batch} entries for writev starts there). */
    long headEntry() {
        return base + 16L * head;
    }

    /**
     * Adds {@code len} tx-ring bytes at {@code address} to the newest entry if it is tx memory that ends right
     * there (one iovec, one write for frames queued back to back); false if it is not.
     */
    boolean extendLast(final long address, final long len) {
        if (count == 0) {
            return false;
        }
        final int last = (head + count - 1) & mask;
        final long e = base + 16L * last;
        if (!inTx[last] || address(e) + length(e) != address) {
            return false;
        }
        ALL.set(JAVA_LONG, e + 8, length(e) + len);
        return true;
    }

    /** Queues {@code len} bytes at {@code address}; {@code fromTx}: they are in the channel's tx ring. */
    void push(final long address, final long len, final boolean fromTx) {
        if (count == cap) {
            grow();
        }
        final int i = (head + count) & mask;
        set(base + 16L * i, address, len);
        inTx[i] = fromTx;
        spliceable[i] = false;
        count++;
    }

    private void grow() {
        final int grown = 2 * cap;
        final long to = arena.allocate(16L * grown, 16).address();
        for (int k = 0; k < count; k++) {
            final long from = base + 16L * ((head + k) & mask);
            set(to + 16L * k, address(from), length(from));
        }
        inTx = RingArrays.doubled(inTx, head, head + count, head);
        spliceable = RingArrays.doubled(spliceable, head, head + count, head);
        base = to;
        head = 0;
        cap = grown;
        mask = grown - 1;
    }

    /** The newest entry may be spliced. */
    void markLastSpliceable() {
        spliceable[(head + count - 1) & mask] = true;
        spliceQueued++;
    }

    /** After a failed splice: every entry is written the ordinary way. */
    void clearSpliceable() {
        java.util.Arrays.fill(spliceable, false);
        spliceQueued = 0;
    }

    /** The oldest entry is to be spliced. */
    boolean headSpliceable() {
        return spliceQueued > 0 && spliceable[head];
    }

    /** The oldest entry went into the splice pipe whole: it is no longer spliceable. */
    void headSpliced() {
        spliceable[head] = false;
        spliceQueued--;
    }

    /** The tx ring is being replaced: no entry's bytes are released from it any more. */
    void detachTx() {
        for (int k = 0; k < count; k++) {
            inTx[(head + k) & mask] = false;
        }
    }

    /** Entries one writev takes from the head: contiguous in the ring, at most {@code max}, up to a spliceable one. */
    int batch(final int max) {
        int n = Math.min(Math.min(count, cap - head), max);
        if (spliceQueued > 0) {
            for (int k = 1; k < n; k++) {
                if (spliceable[(head + k) & mask]) {
                    return k; // written up to the spliced entry, which goes its own way
                }
            }
        }
        return n;
    }

    /** Drops {@code w} written bytes from the head; true if all {@code n} entries went. Sets {@link #txReleasedTo}. */
    boolean consume(long w, final int n) {
        int done = 0;
        txReleasedTo = 0;
        while (w > 0) {
            final long e = base + 16L * head;
            final long len = length(e);
            if (w >= len) {
                w -= len;
                if (inTx[head]) {
                    txReleasedTo = address(e) + len;
                }
                head = (head + 1) & mask;
                count--;
                done++;
            } else {
                final long moved = address(e) + w;
                set(e, moved, len - w);
                if (inTx[head]) {
                    txReleasedTo = moved;
                }
                w = 0;
            }
        }
        if (count == 0) {
            head = 0;
        }
        return done == n;
    }
}
