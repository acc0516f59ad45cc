package mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Scratch buffers for the collectives, kept for reuse: one collective after another takes the same memory
 * back instead of allocating (and registering) new memory each time. Buffers are pooled by power-of-two size,
 * at most {@link #KEEP} per size: heap arrays below {@link Coll#NATIVE_SCRATCH}, native memory from there on.
 * A buffer not given back (a collective that failed) is simply left to the garbage collector. A pool several
 * threads may use at once (THREAD_MULTIPLE's, a file's) locks; the others take no lock, since MPI's lower thread
 * levels have the program order its calls.
 */
final class ScratchPool {
    private static final int KEEP = 4;
    private static final int CLASSES = 40;

    private final boolean shared;
    private final java.util.List<ArrayDeque<MemorySegment>> free = new java.util.ArrayList<>(
        java.util.Collections.nCopies(CLASSES, (ArrayDeque<MemorySegment>) null));

    /** @param shared whether several threads may use the pool at once (it then locks) */
    ScratchPool(final boolean shared) {
        this.shared = shared;
    }

    /**
     * A whole pooled power-of-two buffer of at least {@code bytes} (use what you need of it; give the whole back):
     * a heap array when small, else native memory.
     */
    MemorySegment take(final long bytes) {
        if (shared) {
            synchronized (this) {
                return poll(bytes);
            }
        }
        return poll(bytes);
    }

    /** Gives back a whole buffer from {@link #take}. */
    void give(final MemorySegment whole) {
        if (shared) {
            synchronized (this) {
                keep(whole);
            }
        } else {
            keep(whole);
        }
    }

    private MemorySegment poll(final long bytes) {
        final int c = sizeClass(Math.max(bytes, 1));
        final ArrayDeque<MemorySegment> q = free.get(c);
        if (q != null && !q.isEmpty()) {
            return q.poll();
        }
        return bytes < Coll.NATIVE_SCRATCH ? MemorySegment.ofArray(new byte[1 << c]) : Arena.ofAuto().allocate(1L << c, 64);
    }

    private void keep(final MemorySegment whole) {
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
