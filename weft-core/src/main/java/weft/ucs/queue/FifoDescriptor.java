package weft.ucs.queue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Layout of the inter-process multi-producer single-consumer cell FIFO: a control area, then
 * {@code capacity} (a power of two) elements of {@code elementSize} bytes, then one 8-byte owner
 * record per element.
 *
 * <pre>
 * Control area (256 bytes; head and tail on separate 128-byte spans, so producers CASing head
 * never invalidate the line the consumer publishes tail on):
 *
 *   0               8        12       16       20       24       28          128
 *   +---------------+--------+--------+--------+--------+--------+-- ... ----+
 *   | head (u64)    | magic  |owner   |capacity|element | state  |  (pad)    |
 *   | b63 = ARMED   | u32    |pid u32 | u32    |size u32| u32    |           |
 *   +---------------+--------+--------+--------+--------+--------+-- ... ----+
 *   128             136                                                    256
 *   +---------------+------------------------- ... ------------------------+
 *   | tail (u64)    |  (pad)                                               |
 *   +---------------+------------------------- ... ------------------------+
 *
 * head : next sequence to reserve (producers CAS it); bit 63 set = the consumer sleeps and wants
 *        one wakeup signal (the producer whose CAS clears it sends the signal).
 * tail : count of consumed elements, published by the consumer in batches (release store).
 * state: {@link #STATE_OPEN} or {@link #STATE_CLOSED} (consumer gone; producers stop).
 *
 * Element i at 256 + i * elementSize:
 *
 *   0       1       2       4               8               12              16
 *   +-------+-------+-------+---------------+---------------+---------------+------ ... --+
 *   | flags | AM id | (pad) | length (u32)  | desc index u32| (pad)         | inline data |
 *   +-------+-------+-------+---------------+---------------+---------------+------ ... --+
 *
 * Owner record i at ownersOffset(capacity, elementSize) + 8 * i, after the elements:
 *
 *   0               4       6       8
 *   +---------------+-------+-------+
 *   | producer pid  | stamp | (pad) |
 *   +---------------+-------+-------+
 *
 * flags: OWNER (bit 0) = lap parity of the sequence last published here; the consumer expects
 *        ((seq / capacity) &amp; 1) at its read index, so the polarity flips each lap and no
 *        clearing is needed. INLINE (bit 1): data is inline; DESC (bit 2): data is in the
 *        receive descriptor {@code desc index} (set by the consumer, read-only to producers);
 *        SKIP (bit 3): a producer reserved the cell but published nothing (consumer skips it).
 * producer pid, stamp: written by the producer right after it reserved cell i (pid and the low 16
 *        bits of the reservation's lap, in one 8-byte release store); lets the consumer skip a cell whose
 *        producer died before publishing ({@link FifoConsumer#skipAbandoned}), so that one crashed
 *        sender cannot wedge the FIFO. The pid counts only if the stamp is the read index's lap. The
 *        records live apart from the cells: a consumer spinning on the next cell's flags would
 *        otherwise pull that line over while the producer still fills it, and the producer's
 *        publish would have to take it back (two line transfers more per message). The consumer
 *        never writes a cell it consumes, so each cell's line moves to the consumer and back to the
 *        next producer, not a third time.
 * A producer publishes a cell with one 8-byte release store of its first 8 bytes (flags, AM id,
 * length): one checked access instead of three on the send path. The consumer acquires the flags
 * byte; an aligned 8-byte store is seen whole or not at all (single-copy atomic on x86_64 and aarch64).
 * </pre>
 * All multi-byte fields are little endian (native on the supported platforms).
 */
public final class FifoDescriptor {
    /** "WFFQ". */
    public static final int MAGIC = 0x51464657;

    public static final long HEAD_OFFSET = 0;
    public static final long MAGIC_OFFSET = 8;
    public static final long OWNER_PID_OFFSET = 12;
    public static final long CAPACITY_OFFSET = 16;
    public static final long ELEMENT_SIZE_OFFSET = 20;
    public static final long STATE_OFFSET = 24;
    public static final long TAIL_OFFSET = 128;
    /** Where element 0 starts. */
    public static final long ELEMENTS_OFFSET = 256;

    public static final long ELEMENT_FLAGS_OFFSET = 0;
    public static final long ELEMENT_AM_ID_OFFSET = 1;
    public static final long ELEMENT_LENGTH_OFFSET = 4;
    public static final long ELEMENT_DESC_OFFSET = 8;
    /** Bytes per owner record (after the elements). */
    public static final long OWNER_RECORD_SIZE = 8;
    /** In an owner record: the pid of the producer that reserved the cell (u32). */
    public static final long OWNER_PID_IN_RECORD = 0;
    /** u16: the lap (sequence / capacity, low 16 bits) of the reservation that wrote the pid. */
    public static final long OWNER_STAMP_IN_RECORD = 4;
    /** Bytes of element header before the inline data. */
    public static final int ELEMENT_HEADER_LENGTH = 16;

    public static final int FLAG_OWNER = 1;
    public static final int FLAG_INLINE = 1 << 1;
    public static final int FLAG_DESC = 1 << 2;
    public static final int FLAG_SKIP = 1 << 3;

    /** Bit 63 of head: the consumer is armed for a wakeup. */
    public static final long ARMED = 1L << 63;

    public static final int STATE_OPEN = 1;
    public static final int STATE_CLOSED = 2;

    /** Default element size. */
    public static final int DEFAULT_ELEMENT_SIZE = 128;

    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    static final VarHandle SHORT = ValueLayout.JAVA_SHORT.varHandle();
    static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The largest heap image of cells {@link #init} copies at once. */
    private static final int IMAGE_BYTES = 64 * 1024;

    private static final boolean LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private FifoDescriptor() {
    }

    /** A cell's first 8 bytes (flags, AM id, length; pad 0) as the native-order long that stores them. */
    static long cellHeader(final int flags, final int amId, final int length) {
        return LE ? (flags & 0xFFL) | (amId & 0xFFL) << 8 | (long) length << 32
            : (flags & 0xFFL) << 56 | (amId & 0xFFL) << 48 | (length & 0xFFFFFFFFL);
    }

    /** The flags byte of a cell header read as one long ({@link FifoConsumer.Handler}). */
    public static int flagsOf(final long header) {
        return (int) (LE ? header : header >>> 56) & 0xFF;
    }

    /** The AM id byte of a cell header read as one long. */
    public static int amIdOf(final long header) {
        return (int) (LE ? header >>> 8 : header >>> 48) & 0xFF;
    }

    /** The length field of a cell header read as one long. */
    public static int lengthOf(final long header) {
        return (int) (LE ? header >>> 32 : header);
    }

    /** An owner record (pid, stamp; pad 0) as the native-order long that stores it. */
    static long ownerRecord(final int pid, final short stamp) {
        return LE ? (pid & 0xFFFFFFFFL) | (stamp & 0xFFFFL) << 32
            : (long) pid << 32 | (stamp & 0xFFFFL) << 16;
    }

    /** Total bytes of a FIFO with these dimensions. */
    public static long length(final int capacity, final int elementSize) {
        return ownersOffset(capacity, elementSize) + capacity * OWNER_RECORD_SIZE;
    }

    /** Where the owner records start: after the elements, on a fresh cache line. */
    public static long ownersOffset(final int capacity, final int elementSize) {
        return (ELEMENTS_OFFSET + (long) capacity * elementSize + 63) & ~63L;
    }

    /** Offset of element {@code index} (already masked). */
    public static long elementOffset(final int elementSize, final long index) {
        return ELEMENTS_OFFSET + index * elementSize;
    }

    /**
     * Formats {@code fifo} (consumer side, before any producer attaches): zero counters, every
     * element marked as published in the lap before lap 0, state OPEN (published last).
     */
    public static void init(final MemorySegment fifo, final int capacity, final int elementSize, final int ownerPid) {
        validateDimensions(capacity, elementSize);
        if (fifo.byteSize() < length(capacity, elementSize)) {
            throw new IllegalArgumentException("FIFO segment of " + fifo.byteSize() + " bytes is smaller than "
                + length(capacity, elementSize));
        }
        fifo.asSlice(0, ELEMENTS_OFFSET).fill((byte) 0);
        // every cell: the owner flag, the rest zero. Written as a heap image of up to 64 KiB of cells copied
        // in bulk, not as a checked store per cell: with the AOT cache's training profile that one-shot loop
        // was compiled at every PE's start-up, 27 KB of inlined access code
        final int perImage = Math.max(1, Math.min(capacity, IMAGE_BYTES / elementSize));
        final byte[] image = new byte[perImage * elementSize];
        for (int j = 0; j < perImage; j++) {
            image[j * elementSize + (int) ELEMENT_FLAGS_OFFSET] = (byte) FLAG_OWNER;
        }
        for (int i = 0; i < capacity; i += perImage) {
            MemorySegment.copy(image, 0, fifo, ValueLayout.JAVA_BYTE, elementOffset(elementSize, i),
                Math.min(perImage, capacity - i) * elementSize);
        }
        fifo.asSlice(ownersOffset(capacity, elementSize), capacity * OWNER_RECORD_SIZE).fill((byte) 0);
        fifo.set(INT_LE, MAGIC_OFFSET, MAGIC);
        fifo.set(INT_LE, OWNER_PID_OFFSET, ownerPid);
        fifo.set(INT_LE, CAPACITY_OFFSET, capacity);
        fifo.set(INT_LE, ELEMENT_SIZE_OFFSET, elementSize);
        // release: the formatted cells are visible before anyone sees the FIFO open
        INT.setRelease(fifo, STATE_OFFSET, STATE_OPEN);
    }

    /** Checks capacity is a power of two ≥ 2 and the element size a multiple of 8 ≥ 32. */
    public static void validateDimensions(final int capacity, final int elementSize) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("FIFO capacity must be a power of two >= 2, got " + capacity);
        }
        if (elementSize < 32 || (elementSize & 7) != 0 || elementSize > 65536) {
            throw new IllegalArgumentException("FIFO element size must be a multiple of 8 in [32, 65536], got "
                + elementSize);
        }
    }

    /** Capacity written in the control area. */
    public static int capacity(final MemorySegment fifo) {
        return fifo.get(INT_LE, CAPACITY_OFFSET);
    }

    /** Element size written in the control area. */
    public static int elementSize(final MemorySegment fifo) {
        return fifo.get(INT_LE, ELEMENT_SIZE_OFFSET);
    }

    /** Owner (consumer) process id. */
    public static int ownerPid(final MemorySegment fifo) {
        return fifo.get(INT_LE, OWNER_PID_OFFSET);
    }

    /** Acquire load of the state word. */
    public static int state(final MemorySegment fifo) {
        return (int) INT.getAcquire(fifo, STATE_OFFSET);
    }

    /** Marks the FIFO closed (consumer going away); producers then refuse to send. */
    public static void markClosed(final MemorySegment fifo) {
        INT.setRelease(fifo, STATE_OFFSET, STATE_CLOSED);
    }

    /**
     * Checks that {@code fifo} holds a formatted, open FIFO that fits the segment.
     *
     * @throws IllegalArgumentException describing what is wrong
     */
    public static void validate(final MemorySegment fifo) {
        if (fifo.byteSize() < ELEMENTS_OFFSET) {
            throw new IllegalArgumentException("segment too small for a FIFO: " + fifo.byteSize());
        }
        if (fifo.get(INT_LE, MAGIC_OFFSET) != MAGIC) {
            throw new IllegalArgumentException("not a FIFO (bad magic)");
        }
        final int capacity = capacity(fifo);
        final int elementSize = elementSize(fifo);
        validateDimensions(capacity, elementSize);
        if (fifo.byteSize() < length(capacity, elementSize)) {
            throw new IllegalArgumentException("FIFO of " + capacity + " x " + elementSize
                + " bytes does not fit a segment of " + fifo.byteSize());
        }
        if (state(fifo) != STATE_OPEN) {
            throw new IllegalArgumentException("FIFO is not open");
        }
    }
}
