package mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Native scratch buffers for the collectives, kept for reuse: one collective after another takes the same
 * memory back instead of allocating (and registering) new memory each time. Buffers are pooled by
 * power-of-two size from {@link Coll#NATIVE_SCRATCH} on, at most {@link #KEEP} per size; smaller ones are heap
 * arrays. A buffer not given back (a collective that failed) is simply left to the garbage collector.
 */
final class ScratchPool {
    private static final int KEEP = 4;
    private static final int CLASSES = 40;

    private final java.util.List<ArrayDeque<MemorySegment>> free = new java.util.ArrayList<>(
        java.util.Collections.nCopies(CLASSES, (ArrayDeque<MemorySegment>) null));

    /**
     * A buffer of at least {@code bytes}: exactly that many as a heap array when small, else a whole pooled
     * power-of-two native buffer (slice it; give the whole back).
     */
    synchronized MemorySegment take(final long bytes) {
        if (bytes < Coll.NATIVE_SCRATCH) {
            return MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
        }
        final int c = sizeClass(bytes);
        final ArrayDeque<MemorySegment> q = free.get(c);
        return q == null || q.isEmpty() ? Arena.ofAuto().allocate(1L << c, 64) : q.poll();
    }

    /** Gives back a whole buffer from {@link #take} (heap ones are dropped). */
    synchronized void give(final MemorySegment whole) {
        if (!whole.isNative()) {
            return;
        }
        final int c = sizeClass(whole.byteSize());
        if (free.get(c) == null) {
            free.set(c, new ArrayDeque<>(KEEP));
        }
        if (free.get(c).size() < KEEP) {
            free.get(c).add(whole);
        }
    }

    private static int sizeClass(final long bytes) {
        return 64 - Long.numberOfLeadingZeros(bytes - 1);
    }
}
