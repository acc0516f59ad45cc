package weft.ucs.queue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.ucs.queue.FifoDescriptor.ARMED;
import static weft.ucs.queue.FifoDescriptor.ELEMENTS_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_DESC_OFFSET;
import static weft.ucs.queue.FifoDescriptor.ELEMENT_FLAGS_OFFSET;
import static weft.ucs.queue.FifoDescriptor.OWNER_RECORD_SIZE;
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
    /** The head as this producer last saw it (its CAS's expected value). */
    private long headGuess;
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
        this.headGuess = (long) LONG.getVolatile(fifo, HEAD_OFFSET);
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
        // no load of head first: the CAS expects what this producer last left there, and its witness is the
        // head to retry with when another producer or the consumer's ARMED bit got in between (a guess
        // behind the real head can only make the FIFO look emptier, and the CAS then fails)
        long head = headGuess;
        while (true) {
            final long seq = head & ~ARMED;
            if (seq - cachedTail >= capacity && seq - reloadTail() >= capacity) {
                headGuess = head;
                return -1;
            }
            // the CAS also clears ARMED: exactly one producer (this one) owes the consumer a wakeup
            final long witness = (long) LONG.compareAndExchange(fifo, HEAD_OFFSET, head, seq + 1);
            if (witness != head) {
                head = witness;
            } else {
                headGuess = seq + 1;
                sawArmed = head < 0;
                // first thing after reserving: who owns the cell, in case this process dies before publishing
                // (in the owner record, not the cell: see FifoDescriptor)
                final long o = owners + (seq & mask) * OWNER_RECORD_SIZE;
                // pid and stamp in one store: a consumer that sees this lap's stamp sees this pid
                LONG.setRelease(fifo, o, FifoDescriptor.ownerRecord(pid, (short) (seq >>> lapShift)));
                return seq;
            }
        }
    }

    /**
     * Reloads the shared tail (only when the cached one says full) and returns it. Called once a lap, so the JIT
     * inlines it into a compiled {@link #tryReserve} only while it stays under 35 bytecodes (the limit for a
     * call site that is not hot): a larger one was compiled on its own, 3-5 ms of a short run's measured phase.
     */
    private long reloadTail() {
        // acquire: the consumer finished with every element before the tail it published
        return cachedTail = (long) LONG.getAcquire(fifo, TAIL_OFFSET);
    }

    /** True if a reservation now would succeed (reloads the shared tail). Does not reserve. */
    public boolean hasRoom() {
        final long seq = (long) LONG.getVolatile(fifo, HEAD_OFFSET) & ~ARMED;
        return seq - cachedTail < capacity || seq - reloadTail() < capacity;
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
        // flags, id and length in one store; release: the data written before it is visible to a consumer
        // that sees the owner bit
        LONG.setRelease(fifo, elementOffset(seq) + ELEMENT_FLAGS_OFFSET,
            FifoDescriptor.cellHeader(kind | (int) ((seq >>> lapShift) & 1), amId, length));
    }

    /** Publishes the element of {@code seq} as empty (the consumer skips it). */
    public void publishSkip(final long seq) {
        publish(seq, FLAG_SKIP, 0, 0);
    }
}
