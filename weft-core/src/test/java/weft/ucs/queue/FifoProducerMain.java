package weft.ucs.queue;

import weft.ucs.memory.SharedMemory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Child process of {@link FifoTest}: attaches the test's FIFO through /proc/pid/fd and writes
 * {@code count} elements {@code (producer id, sequence)}; exits 0 when done, 2 when the FIFO stayed full
 * for {@link #STALL_NS} (the consumer stopped).
 * Args: pid fd name size producerId count.
 */
public final class FifoProducerMain {
    /** How long the FIFO may stay full before a producer gives up: a stalled consumer, not a slow machine. */
    static final long STALL_NS = 60_000_000_000L;

    private FifoProducerMain() {
    }

    public static void main(final String[] args) {
        final int pid = Integer.parseInt(args[0]);
        final int fd = Integer.parseInt(args[1]);
        final String name = args[2];
        final long size = Long.parseLong(args[3]);
        final int producerId = Integer.parseInt(args[4]);
        final int count = Integer.parseInt(args[5]);
        try (SharedMemory m = SharedMemory.attach(pid, fd, name, size)) {
            final int rc = produce(new FifoProducer(m.segment()), producerId, count, STALL_NS);
            System.exit(rc);
        }
    }

    /** Writes {@code count} elements; returns 0, or 2 if the FIFO stayed full for {@code stallNs}. */
    static int produce(final FifoProducer p, final int producerId, final int count, final long stallNs) {
        final MemorySegment fifo = p.segment();
        for (int i = 0; i < count; i++) {
            long seq;
            long fullSince = 0;
            while ((seq = p.tryReserve()) < 0) {
                final long now = System.nanoTime();
                if (fullSince == 0) {
                    fullSince = now;
                } else if (now - fullSince > stallNs) {
                    return 2;
                }
                Thread.yield(); // full: let the consumer run (tests oversubscribe the cores)
            }
            final long e = p.elementOffset(seq) + FifoDescriptor.ELEMENT_HEADER_LENGTH;
            fifo.set(ValueLayout.JAVA_INT, e, producerId);
            fifo.set(ValueLayout.JAVA_INT, e + 4, i);
            fifo.set(ValueLayout.JAVA_LONG, e + 8, ~((long) producerId << 32 | i)); // check word
            p.publish(seq, FifoDescriptor.FLAG_INLINE, producerId & 31, 16);
        }
        return 0;
    }
}
