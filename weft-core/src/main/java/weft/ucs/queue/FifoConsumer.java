package weft.ucs.queue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.ucs.queue.FifoDescriptor.ARMED;
import static weft.ucs.queue.FifoDescriptor.BYTE;
import static weft.ucs.queue.FifoDescriptor.ELEMENTS_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_FLAGS_OFFSET;
import static weft.ucs.queue.FifoDescriptor.OWNER_PID_IN_RECORD;
import static weft.ucs.queue.FifoDescriptor.OWNER_RECORD_SIZE;
import static weft.ucs.queue.FifoDescriptor.OWNER_STAMP_IN_RECORD;
import static weft.ucs.queue.FifoDescriptor.SHORT;
import static weft.ucs.queue.FifoDescriptor.FLAG_OWNER;
import static weft.ucs.queue.FifoDescriptor.FLAG_SKIP;
import static weft.ucs.queue.FifoDescriptor.HEAD_OFFSET;
import static weft.ucs.queue.FifoDescriptor.LONG;
import static weft.ucs.queue.FifoDescriptor.TAIL_OFFSET;

/**
 * The single consumer of a FIFO ({@link FifoDescriptor}): polls the element at its read index,
 * hands published ones to a {@link Handler}, and publishes the consumed count (tail) in batches (half
 * the FIFO by default), so that producers rarely touch the tail's cache line. Single threaded,
 * allocation-free.
 */
public final class FifoConsumer {
    /** Receives published elements. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Handles the element at {@code elementOffset} of {@code fifo}.
         *
         * @param header the element's first 8 bytes (flags, AM id, length) as read by the poll, in native
         *               order: decode them with {@link FifoDescriptor#flagsOf}, {@link FifoDescriptor#amIdOf}
         *               and {@link FifoDescriptor#lengthOf} rather than reading the cell again
         * @return true when consumed; false to stop polling and see the same element again later
         */
        boolean onElement(MemorySegment fifo, long elementOffset, long header);
    }

    private final MemorySegment fifo;
    private final int capacity;
    private final int elementSize;
    private final long mask;
    private final int lapShift;
    private final long releaseMask;
    private long readIndex;

    /**
     * Formats {@code fifo} and becomes its consumer.
     *
     * @param ownerPid written to the control area for producers' liveness checks
     */
    public FifoConsumer(final MemorySegment fifo, final int capacity, final int elementSize, final int ownerPid) {
        this(fifo, capacity, elementSize, ownerPid, capacity / 2);
    }

    /**
     * Formats {@code fifo} and becomes its consumer, publishing the tail every {@code releaseEvery}
     * elements (rounded down to a power of two, at least 1): smaller batches give producers room sooner,
     * at one more transfer of the tail's cache line per batch.
     *
     * @param ownerPid written to the control area for producers' liveness checks
     */
    public FifoConsumer(final MemorySegment fifo, final int capacity, final int elementSize, final int ownerPid,
                        final int releaseEvery) {
        if (releaseEvery > capacity) {
            throw new IllegalArgumentException("release batch " + releaseEvery + " > capacity " + capacity);
        }
        FifoDescriptor.init(fifo, capacity, elementSize, ownerPid);
        this.fifo = fifo;
        this.capacity = capacity;
        this.elementSize = elementSize;
        this.mask = capacity - 1;
        this.lapShift = Integer.numberOfTrailingZeros(capacity);
        this.releaseMask = Integer.highestOneBit(Math.max(1, releaseEvery)) - 1;
    }

    public MemorySegment segment() {
        return fifo;
    }

    public int capacity() {
        return capacity;
    }

    public int elementSize() {
        return elementSize;
    }

    /** Offset of the element at sequence {@code seq}. */
    public long elementOffset(final long seq) {
        return ELEMENTS_OFFSET + (seq & mask) * elementSize;
    }

    /** Number of elements consumed so far. */
    public long readIndex() {
        return readIndex;
    }

    /** True if the element at the read index is published. */
    public boolean isReady() {
        final int flags = (byte) BYTE.getAcquire(fifo, elementOffset(readIndex) + ELEMENT_FLAGS_OFFSET);
        return (flags & FLAG_OWNER) == ((readIndex >>> lapShift) & 1);
    }

    /**
     * Consumes up to {@code max} published elements.
     *
     * @return the number consumed
     */
    public int poll(final Handler handler, final int max) {
        int n = 0;
        while (n < max) {
            final long e = elementOffset(readIndex);
            // acquire: pairs with the producer's release store of the header; the data is then visible. The
            // whole header in one load, handed to the handler, which then need not read the cell again
            final long h = (long) LONG.getAcquire(fifo, e + ELEMENT_FLAGS_OFFSET);
            final int flags = FifoDescriptor.flagsOf(h);
            if ((flags & FLAG_OWNER) != ((readIndex >>> lapShift) & 1)) {
                break;
            }
            if ((flags & FLAG_SKIP) == 0) {
                final boolean consumed;
                try {
                    consumed = handler.onElement(fifo, e, h);
                } catch (final RuntimeException | Error ex) {
                    advance(); // a failing handler must not be handed the same element forever
                    throw ex;
                }
                if (!consumed) {
                    break;
                }
            }
            n++;
            advance();
        }
        return n;
    }

    private void advance() {
        // nothing is written to the consumed cell (see the stamp in FifoDescriptor)
        if ((++readIndex & releaseMask) == 0) {
            // release: the consumed elements (and descriptor indices rebound in them) are free for reuse
            LONG.setRelease(fifo, TAIL_OFFSET, readIndex);
        }
    }

    /** True if producers reserved elements that were not consumed yet (published or not). */
    public boolean hasUnread() {
        return ((long) LONG.getVolatile(fifo, HEAD_OFFSET) & ~ARMED) != readIndex;
    }

    /**
     * Arms the wakeup flag: the next producer to reserve clears it and signals the consumer.
     *
     * @return false if elements are unread or a producer raced (do not sleep: poll instead)
     */
    public boolean tryArm() {
        final long head = (long) LONG.getVolatile(fifo, HEAD_OFFSET);
        if ((head & ~ARMED) != readIndex) {
            return false;
        }
        return head < 0 || LONG.compareAndSet(fifo, HEAD_OFFSET, head, head | ARMED);
    }

    /**
     * Recovers from a producer that died between reserving the cell at the read index and
     * publishing it: if the cell is reserved, unpublished, and its recorded producer is not
     * {@code alive}, the cell is marked SKIP so that polling goes on. Call it rarely (e.g. when
     * the read index has not moved for a while); a producer that died in the few instructions
     * between its reservation and recording its pid still stalls the FIFO.
     *
     * @return true if a cell was skipped
     */
    public boolean skipAbandoned(final java.util.function.IntPredicate alive) {
        if (isReady() || !hasUnread()) {
            return false;
        }
        final long e = elementOffset(readIndex);
        final long o = FifoDescriptor.ownersOffset(capacity, elementSize) + (readIndex & mask) * OWNER_RECORD_SIZE;
        // acquire: pairs with the reserver's release of the stamp; an older lap's stamp means its pid
        // is a previous reserver's (this one died before recording itself, or is about to)
        if ((short) SHORT.getAcquire(fifo, o + OWNER_STAMP_IN_RECORD) != (short) (readIndex >>> lapShift)) {
            return false;
        }
        final int producer = fifo.get(ValueLayout.JAVA_INT, o + OWNER_PID_IN_RECORD);
        if (producer == 0 || alive.test(producer)) {
            return false;
        }
        BYTE.setRelease(fifo, e + ELEMENT_FLAGS_OFFSET, (byte) (FLAG_SKIP | (int) ((readIndex >>> lapShift) & 1)));
        return true;
    }

    /** Flags byte of the element at {@code elementOffset}. */
    public int flags(final long elementOffset) {
        return fifo.get(ValueLayout.JAVA_BYTE, elementOffset + ELEMENT_FLAGS_OFFSET);
    }
}
