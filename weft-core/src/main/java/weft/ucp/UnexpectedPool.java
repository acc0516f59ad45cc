package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Buffers for unexpected eager messages, by power-of-two size class, reused so that steady traffic
 * allocates nothing. Owns one arena, freed when the worker closes. Tracks the bytes in use against
 * {@code WEFT_UNEXPECTED_BUDGET}.
 */
final class UnexpectedPool implements AutoCloseable {
    private static final int MIN_CLASS = 6; // 64 bytes
    private static final int MAX_CLASS = 40;

    private final Arena arena = Arena.ofShared();
    /** Free buffers by size class (created on first release). */
    private final Stack[] free = new Stack[MAX_CLASS + 1];
    private final Stack messages = new Stack();
    private final long budget;
    private long inUse;
    private long peak;
    private long reserved;

    UnexpectedPool(final long budget) {
        this.budget = budget;
    }

    static int sizeClass(final long size) {
        return Math.max(MIN_CLASS, 64 - Long.numberOfLeadingZeros(Math.max(1, size) - 1));
    }

    TagMessage acquire(final long size) {
        final TagMessage m = messages.isEmpty() ? new TagMessage() : (TagMessage) messages.pop();
        final int c = sizeClass(size);
        if (c > MAX_CLASS) {
            throw new WeftException(Status.NO_MEMORY, "unexpected message of " + size + " bytes is too large");
        }
        final Stack q = free[c];
        if (q == null || q.isEmpty()) {
            m.data = arena.allocate(1L << c, 64);
            reserved += 1L << c;
        } else {
            m.data = (MemorySegment) q.pop();
        }
        m.sizeClass = c;
        inUse += 1L << c;
        peak = Math.max(peak, inUse);
        return m;
    }

    void release(final TagMessage m) {
        if (m.sizeClass >= 0) {
            Stack q = free[m.sizeClass];
            if (q == null) {
                q = free[m.sizeClass] = new Stack();
            }
            q.push(m.data);
            inUse -= 1L << m.sizeClass;
        }
        m.data = null;
        m.sizeClass = -1;
        m.reset();
        messages.push(m);
    }

    boolean overBudget() {
        return inUse > budget;
    }

    long budget() {
        return budget;
    }

    long inUse() {
        return inUse;
    }

    /** Bytes ever taken from the arena (buffers in use plus the free lists). */
    long reserved() {
        return reserved;
    }

    long peak() {
        return peak;
    }

    @Override
    public void close() {
        arena.close();
    }

    /**
     * A LIFO of pooled objects: an array and a size. Every unexpected message pops and pushes twice;
     * ArrayDeque's index wrapping and null checks showed in profiles of 8-byte message streams.
     */
    private static final class Stack {
        private Object[] items = new Object[16];
        private int size;

        boolean isEmpty() {
            return size == 0;
        }

        Object pop() {
            final Object o = items[--size];
            items[size] = null;
            return o;
        }

        void push(final Object o) {
            if (size == items.length) {
                items = Arrays.copyOf(items, size * 2); // grows with the peak of buffered messages only
            }
            items[size++] = o;
        }
    }
}
