package mpi;

import java.lang.foreign.MemorySegment;

/**
 * Bounce buffers for eager messages that arrive before their receive (active-message path): heap buffers in
 * power-of-two classes, reused (up to 64 per class, none above 1 MiB), so a steady stream of unexpected short
 * messages allocates nothing. The caller synchronizes.
 */
final class Bounces {
    private static final int MIN_SHIFT = 6;
    private static final int CLASSES = 31 - MIN_SHIFT;
    private static final int PER_CLASS = 64;
    /** Larger buffers are not kept (an eager message this long is rare: rendezvous starts below it). */
    private static final long KEEP_MAX = 1 << 20;

    private final MemorySegment[][] free = new MemorySegment[CLASSES][PER_CLASS];
    private final int[] counts = new int[CLASSES];

    private static int classOf(final long bytes) {
        final int bits = 64 - Long.numberOfLeadingZeros(Math.max(bytes - 1, 1));
        return Math.max(bits, MIN_SHIFT) - MIN_SHIFT;
    }

    /** A buffer of at least {@code bytes}. */
    MemorySegment take(final long bytes) {
        final int c = classOf(bytes);
        if (counts[c] > 0) {
            return free[c][--counts[c]];
        }
        return MemorySegment.ofArray(new byte[1 << (c + MIN_SHIFT)]);
    }

    /** Gives a buffer from {@link #take} back. */
    void give(final MemorySegment b) {
        final int c = classOf(b.byteSize());
        if (b.byteSize() <= KEEP_MAX && counts[c] < PER_CLASS) {
            free[c][counts[c]++] = b;
        }
    }
}
