package weft.ucs.queue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.ucs.queue.FifoDescriptor.ARMED;
import static weft.ucs.queue.FifoDescriptor.BYTE;
import static weft.ucs.queue.FifoDescriptor.ELEMENTS_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_AM_ID_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_DESC_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_FLAGS_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_LENGTH_OFFSET;
import static weft.ucs.queue.FifoDescriptor.OWNER_PID_IN_RECORD;
import static weft.ucs.queue.FifoDescriptor.OWNER_RECORD_SIZE;
import static weft.ucs.queue.FifoDescriptor.OWNER_STAMP_IN_RECORD;
import static weft.ucs.queue.FifoDescriptor.SHORT;
import static weft.ucs.queue.FifoDescriptor.FLAG_SKIP;
import static weft.ucs.queue.FifoDescriptor.HEAD_OFFSET;
import static weft.ucs.queue.FifoDescriptor.LONG;
import static weft.ucs.queue.FifoDescriptor.TAIL_OFFSET;

/**
 * One producer's handle on a FIFO ({@link FifoDescriptor}); any number of producers, in any
 * processes, may write concurrently, each through its own handle. Lock-free and allocation-free:
 *
 * <pre>{@code
 * long seq = producer.tryReserve();           // -1: full, nothing reserved
 * if (seq >= 0) {
 *     long e = producer.elementOffset(seq);    // write the data after the element header
 *     fifo.set(..., e + ELEMENT_HEADER_LENGTH, ...);
 *     producer.publish(seq, FLAG_INLINE, amId, length);
 *     if (producer.reservationSawArmed()) wakeUpConsumer();
 * }
 * }</pre>
 * A reserved sequence must always be published (use {@link #publishSkip} when there is nothing
 * to deliver), or the consumer stalls at it.
 */
public final class FifoProducer {
    private final MemorySegment fifo;
    private final int capacity;
    private final int elementSize;
    private final long mask;
    private final int lapShift;
    private final long owners;
    private final int pid;
    private long cachedTail;
    private boolean sawArmed;

    /**
     * Attaches to a formatted FIFO.
     *
     * @throws IllegalArgumentException if the segment does not hold an open FIFO
     */
    public FifoProducer(final MemorySegment fifo) {
        this(fifo, (int) ProcessHandle.current().pid());
    }

    /**
     * Attaches to a formatted FIFO as process {@code pid} (recorded in the cells it reserves).
     *
     * @throws IllegalArgumentException if the segment does not hold an open FIFO
     */
    public FifoProducer(final MemorySegment fifo, final int pid) {
        FifoDescriptor.validate(fifo);
        this.pid = pid;
        this.fifo = fifo;
        this.capacity = FifoDescriptor.capacity(fifo);
        this.elementSize = FifoDescriptor.elementSize(fifo);
        this.mask = capacity - 1;
        this.lapShift = Integer.numberOfTrailingZeros(capacity);
        this.owners = FifoDescriptor.ownersOffset(capacity, elementSize);
        this.cachedTail = (long) LONG.getAcquire(fifo, TAIL_OFFSET);
    }

    /** The FIFO memory. */
    public MemorySegment segment() {
        return fifo;
    }

    public int capacity() {
        return capacity;
    }

    public int elementSize() {
        return elementSize;
    }

    /**
     * Reserves the next element.
     *
     * @return its sequence number, or -1 if the FIFO is full (nothing reserved, nothing overwritten)
     */
    public long tryReserve() {
        while (true) {
            final long head = (long) LONG.getVolatile(fifo, HEAD_OFFSET);
            final long seq = head & ~ARMED;
            if (seq - cachedTail >= capacity && isFull(seq)) {
                return -1;
            }
            // the CAS also clears ARMED: exactly one producer (this one) owes the consumer a wakeup
            if (LONG.compareAndSet(fifo, HEAD_OFFSET, head, seq + 1)) {
                sawArmed = head < 0;
                // first thing after reserving: who owns the cell, in case this process dies before publishing
                // (in the owner record, not the cell: see FifoDescriptor)
                final long o = owners + (seq & mask) * OWNER_RECORD_SIZE;
                fifo.set(ValueLayout.JAVA_INT, o + OWNER_PID_IN_RECORD, pid);
                // release: a consumer that sees this lap's stamp sees the pid stored before it
                SHORT.setRelease(fifo, o + OWNER_STAMP_IN_RECORD, (short) (seq >>> lapShift));
                return seq;
            }
        }
    }

    /** Reloads the shared tail (only when the cached one says full); true if still full. */
    private boolean isFull(final long seq) {
        // acquire: the consumer finished with every element before the tail it published
        cachedTail = (long) LONG.getAcquire(fifo, TAIL_OFFSET);
        return seq - cachedTail >= capacity;
    }

    /** True if a reservation now would succeed (reloads the shared tail). Does not reserve. */
    public boolean hasRoom() {
        final long seq = (long) LONG.getVolatile(fifo, HEAD_OFFSET) & ~ARMED;
        return seq - cachedTail < capacity || !isFull(seq);
    }

    /** True if the last successful {@link #tryReserve} cleared the consumer's ARMED flag. */
    public boolean reservationSawArmed() {
        return sawArmed;
    }

    /** Offset in {@link #segment()} of the element of {@code seq}. */
    public long elementOffset(final long seq) {
        return ELEMENTS_OFFSET + (seq & mask) * elementSize;
    }

    /** The receive-descriptor index the consumer bound to the element of {@code seq}. */
    public int descriptorIndex(final long seq) {
        return fifo.get(ValueLayout.JAVA_INT, elementOffset(seq) + ELEMENT_DESC_OFFSET);
    }

    /**
     * Publishes the element of {@code seq}: writes AM id and length, then the flags byte with the
     * owner bit of this lap.
     *
     * @param kind {@link FifoDescriptor#FLAG_INLINE} or {@link FifoDescriptor#FLAG_DESC}
     */
    public void publish(final long seq, final int kind, final int amId, final int length) {
        final long e = elementOffset(seq);
        fifo.set(ValueLayout.JAVA_BYTE, e + ELEMENT_AM_ID_OFFSET, (byte) amId);
        fifo.set(ValueLayout.JAVA_INT, e + ELEMENT_LENGTH_OFFSET, length);
        // release: the data, id and length written above are visible before the consumer sees the owner bit
        BYTE.setRelease(fifo, e + ELEMENT_FLAGS_OFFSET, (byte) (kind | (int) ((seq >>> lapShift) & 1)));
    }

    /** Publishes the element of {@code seq} as empty (the consumer skips it). */
    public void publishSkip(final long seq) {
        publish(seq, FLAG_SKIP, 0, 0);
    }
}
