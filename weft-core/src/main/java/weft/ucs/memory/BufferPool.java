package weft.ucs.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A bounded pool of fixed-size off-heap buffers carved from one segment. Buffers are named by
 * index; {@link #acquire()} returns -1 when the pool is empty (the caller answers NO_RESOURCE),
 * never grows. Single threaded (the owning interface's thread), no allocation after construction.
 *
 * <p>Ownership: the pool owns its arena unless one is passed in; {@link #close()} releases it.
 */
public final class BufferPool implements AutoCloseable {
    private final Arena arena;
    private final boolean ownsArena;
    private final MemorySegment memory;
    private final long bufferSize;
    private final int[] free;
    private final boolean[] inUse;
    private int top;

    /** A pool of {@code count} buffers of {@code bufferSize} bytes, 64-byte aligned, in its own arena. */
    public BufferPool(final int count, final long bufferSize) {
        this(Arena.ofShared(), true, count, bufferSize);
    }

    /** A pool whose memory comes from {@code arena} (which the caller owns). */
    public BufferPool(final Arena arena, final int count, final long bufferSize) {
        this(arena, false, count, bufferSize);
    }

    private BufferPool(final Arena arena, final boolean owns, final int count, final long bufferSize) {
        if (count <= 0 || bufferSize <= 0) {
            throw new IllegalArgumentException("pool needs count > 0 and bufferSize > 0");
        }
        this.arena = arena;
        this.ownsArena = owns;
        this.bufferSize = (bufferSize + 63) & ~63L;
        this.memory = arena.allocate(this.bufferSize * count, 64);
        this.free = new int[count];
        this.inUse = new boolean[count];
        for (int i = 0; i < count; i++) {
            free[i] = count - 1 - i;
        }
        this.top = count;
    }

    /** The whole memory of the pool (buffer {@code i} starts at {@link #offset(int)}). */
    public MemorySegment memory() {
        return memory;
    }

    public long bufferSize() {
        return bufferSize;
    }

    public int capacity() {
        return free.length;
    }

    public int available() {
        return top;
    }

    /** Takes a buffer; returns its index, or -1 if none is free. */
    public int acquire() {
        if (top == 0) {
            return -1;
        }
        final int i = free[--top];
        inUse[i] = true;
        return i;
    }

    /** Returns buffer {@code i}; a double release throws. */
    public void release(final int i) {
        if (!inUse[i]) {
            throw new IllegalStateException("buffer " + i + " released twice");
        }
        inUse[i] = false;
        free[top++] = i;
    }

    /** Offset of buffer {@code i} in {@link #memory()}. */
    public long offset(final int i) {
        return i * bufferSize;
    }

    /** The buffer index that contains {@code offset} in {@link #memory()}. */
    public int indexOf(final long offset) {
        return (int) (offset / bufferSize);
    }

    @Override
    public void close() {
        if (ownsArena && arena.scope().isAlive()) {
            arena.close();
        }
    }
}
