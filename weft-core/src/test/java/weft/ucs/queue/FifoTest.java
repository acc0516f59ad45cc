package weft.ucs.queue;

import org.junit.jupiter.api.Test;
import weft.ucs.memory.SharedMemory;
import weft.ucs.sys.LibC;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class FifoTest {
    private static final int ELEM = 32;

    /** Checks per-producer order, no loss, no duplicates and the check word of every element. */
    private static final class Checker implements FifoConsumer.Handler {
        final int[] next;
        long received;
        String error;

        Checker(final int producers) {
            next = new int[producers];
        }

        @Override
        public boolean onElement(final MemorySegment fifo, final long e, final long header) {
            final long d = e + FifoDescriptor.ELEMENT_HEADER_LENGTH;
            final int p = fifo.get(ValueLayout.JAVA_INT, d);
            final int i = fifo.get(ValueLayout.JAVA_INT, d + 4);
            final long check = fifo.get(ValueLayout.JAVA_LONG, d + 8);
            if (error == null) {
                if (p < 0 || p >= next.length) {
                    error = "bad producer id " + p;
                } else if (i != next[p]) {
                    error = "producer " + p + ": got " + i + ", expected " + next[p];
                } else if (check != ~((long) p << 32 | i)) {
                    error = "torn element from producer " + p + " #" + i;
                } else if (fifo.get(ValueLayout.JAVA_INT, e + FifoDescriptor.ELEMENT_LENGTH_OFFSET) != 16) {
                    error = "bad length";
                }
            }
            if (p >= 0 && p < next.length) {
                next[p]++;
            }
            received++;
            return true;
        }

        /**
         * Consumes until {@code expected} elements arrived; fails if none arrives for {@code stallNs} (the
         * producers stopped), however long the whole takes on a crowded machine.
         */
        void drain(final FifoConsumer c, final long expected, final long stallNs) {
            long lastNs = System.nanoTime();
            while (received < expected && error == null) {
                if (c.poll(this, 64) == 0) {
                    if (System.nanoTime() - lastNs > stallNs) {
                        fail("nothing arrived for " + stallNs / 1_000_000_000L + " s, with " + received + " of "
                            + expected + " elements");
                    }
                    Thread.onSpinWait();
                } else {
                    lastNs = System.nanoTime();
                }
            }
        }
    }

    /**
     * init formats every cell of memory that held anything: the owner flag set and the rest of the header zero,
     * whether the cells fit in one heap image (capacity 1,024 of 128 bytes: two images) or one cell fills an
     * image alone (64 KiB cells), and the owner records zero.
     */
    @Test
    void initFormatsEveryCellOfDirtyMemory() {
        for (final int[] dims : new int[][] {{1024, 128}, {4, 65536}, {2, 32}}) {
            final int capacity = dims[0];
            final int size = dims[1];
            try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
                final MemorySegment fifo = a.allocate(FifoDescriptor.length(capacity, size), 64);
                fifo.fill((byte) 0x5a);
                FifoDescriptor.init(fifo, capacity, size, 77);
                for (int i = 0; i < capacity; i++) {
                    final long e = FifoDescriptor.elementOffset(size, i);
                    final byte flags = fifo.get(ValueLayout.JAVA_BYTE, e + FifoDescriptor.ELEMENT_FLAGS_OFFSET);
                    assertEquals(FifoDescriptor.FLAG_OWNER, flags, "cell " + i + " of " + capacity + " x " + size);
                    for (long b = 1; b < FifoDescriptor.ELEMENT_HEADER_LENGTH; b++) {
                        assertEquals(0, fifo.get(ValueLayout.JAVA_BYTE, e + b), "cell " + i + " header byte " + b);
                    }
                }
                final long owners = FifoDescriptor.ownersOffset(capacity, size);
                for (long b = 0; b < capacity * FifoDescriptor.OWNER_RECORD_SIZE; b++) {
                    assertEquals(0, fifo.get(ValueLayout.JAVA_BYTE, owners + b), "owner byte " + b);
                }
                assertEquals(capacity, FifoDescriptor.capacity(fifo));
            }
        }
    }

    @Test
    void fullFifoRefusesAndNeverOverwrites() {
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-full", FifoDescriptor.length(8, ELEM))) {
            final FifoConsumer c = new FifoConsumer(m.segment(), 8, ELEM, 1);
            final FifoProducer p = new FifoProducer(m.segment());
            for (int i = 0; i < 8; i++) {
                final long seq = p.tryReserve();
                assertEquals(i, seq);
                m.segment().set(ValueLayout.JAVA_INT, p.elementOffset(seq) + FifoDescriptor.ELEMENT_HEADER_LENGTH, i);
                p.publish(seq, FifoDescriptor.FLAG_INLINE, 1, 4);
            }
            assertEquals(-1, p.tryReserve(), "a full FIFO must refuse");
            assertFalse(p.hasRoom());
            final List<Integer> got = new ArrayList<>();
            final FifoConsumer.Handler h = (f, e, hdr) -> {
                got.add(f.get(ValueLayout.JAVA_INT, e + FifoDescriptor.ELEMENT_HEADER_LENGTH));
                return true;
            };
            assertEquals(3, c.poll(h, 3));
            assertEquals(-1, p.tryReserve(), "tail is published in batches of half the FIFO");
            assertEquals(1, c.poll(h, 1));
            assertTrue(p.hasRoom());
            for (int i = 8; i < 12; i++) {
                final long seq = p.tryReserve();
                assertEquals(i, seq);
                m.segment().set(ValueLayout.JAVA_INT, p.elementOffset(seq) + FifoDescriptor.ELEMENT_HEADER_LENGTH, i);
                p.publish(seq, FifoDescriptor.FLAG_INLINE, 1, 4);
            }
            assertEquals(-1, p.tryReserve());
            assertEquals(8, c.poll(h, 100));
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), got, "nothing lost, nothing overwritten");
            assertEquals(0, c.poll(h, 100));
        }
    }

    @Test
    void skippedCellsAndRefusingHandler() {
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-skip", FifoDescriptor.length(4, ELEM))) {
            final FifoConsumer c = new FifoConsumer(m.segment(), 4, ELEM, 1);
            final FifoProducer p = new FifoProducer(m.segment());
            p.publishSkip(p.tryReserve());
            final long s = p.tryReserve();
            final long unpublished = p.tryReserve();
            p.publish(s, FifoDescriptor.FLAG_INLINE, 3, 0);
            final AtomicInteger calls = new AtomicInteger();
            assertEquals(0, c.poll((f, e, hdr) -> calls.incrementAndGet() < 0, 10) - 1, "skip consumed, refused kept");
            assertEquals(1, calls.get());
            assertEquals(1, c.poll((f, e, hdr) -> calls.incrementAndGet() > 0, 10), "unpublished cell stops the poll");
            assertTrue(c.hasUnread());
            assertFalse(c.tryArm(), "cannot arm with a reserved cell");
            p.publishSkip(unpublished);
            assertEquals(1, c.poll((f, e, hdr) -> true, 10));
            assertFalse(c.hasUnread());
            assertTrue(c.tryArm());
            assertTrue(p.tryReserve() >= 0);
            assertTrue(p.reservationSawArmed(), "the reserving producer owes the wakeup");
            assertTrue(p.tryReserve() >= 0);
            assertFalse(p.reservationSawArmed(), "only one producer sees ARMED");
        }
    }

    /** The pid of a process that has exited and been reaped. */
    static int deadPid() throws Exception {
        final Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return (int) p.pid();
    }

    @Test
    void aCellAbandonedByADeadProducerIsSkipped() throws Exception {
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-dead", FifoDescriptor.length(4, ELEM))) {
            final FifoConsumer c = new FifoConsumer(m.segment(), 4, ELEM, 1);
            final java.util.function.IntPredicate alive = pid -> java.nio.file.Files.exists(
                java.nio.file.Path.of("/proc/" + pid));
            for (int lap = 0; lap < 3; lap++) {
                final FifoProducer live = new FifoProducer(m.segment());
                final FifoProducer dead = new FifoProducer(m.segment(), deadPid());
                assertTrue(dead.tryReserve() >= 0, "reserved, then the producer 'dies' before publishing");
                final long s = live.tryReserve();
                m.segment().set(ValueLayout.JAVA_INT, live.elementOffset(s) + FifoDescriptor.ELEMENT_HEADER_LENGTH, 77);
                live.publish(s, FifoDescriptor.FLAG_INLINE, 1, 4);
                final int[] got = {0};
                final FifoConsumer.Handler h = (f, e, hdr) -> {
                    got[0] = f.get(ValueLayout.JAVA_INT, e + FifoDescriptor.ELEMENT_HEADER_LENGTH);
                    return true;
                };
                assertEquals(0, c.poll(h, 10), "stalled at the abandoned cell");
                final long t = live.tryReserve();
                assertFalse(c.skipAbandoned(pid -> true), "a live producer is waited for");
                live.publishSkip(t);
                assertTrue(c.skipAbandoned(alive));
                assertEquals(2, c.poll(h, 10) - 1, "abandoned cell skipped, the message and the skip consumed");
                assertEquals(77, got[0]);
                assertFalse(c.hasUnread());
                assertFalse(c.skipAbandoned(alive));
            }
        }
    }

    @Test
    void aDeadPidLeftFromAnEarlierLapIsNotTrusted() throws Exception {
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-stale", FifoDescriptor.length(2, ELEM))) {
            final FifoConsumer c = new FifoConsumer(m.segment(), 2, ELEM, 1);
            final int deadPid = deadPid();
            final FifoProducer dead = new FifoProducer(m.segment(), deadPid);
            final FifoProducer live = new FifoProducer(m.segment());
            final FifoConsumer.Handler h = (f, e, hdr) -> true;
            // lap 0: the cell at sequence 0 is recorded by a producer that then dies unpublished; skipped
            final long s0 = dead.tryReserve();
            live.publishSkip(live.tryReserve());
            assertTrue(c.skipAbandoned(pid -> false));
            assertEquals(2, c.poll(h, 10));
            // lap 1: a live producer reserved the same cell but has not recorded itself yet (emulated by
            // putting the dead producer's lap-0 record back); the stale pid must not get the cell skipped
            final long s2 = live.tryReserve();
            assertEquals(live.elementOffset(s0), live.elementOffset(s2));
            final long o = FifoDescriptor.ownersOffset(live.capacity(), live.elementSize())
                + (s2 & (live.capacity() - 1)) * FifoDescriptor.OWNER_RECORD_SIZE;
            m.segment().set(ValueLayout.JAVA_SHORT, o + FifoDescriptor.OWNER_STAMP_IN_RECORD, (short) 0);
            m.segment().set(ValueLayout.JAVA_INT, o + FifoDescriptor.OWNER_PID_IN_RECORD, deadPid);
            assertFalse(c.skipAbandoned(pid -> false), "skipped a cell on a pid from the previous lap");
            m.segment().set(ValueLayout.JAVA_SHORT, o + FifoDescriptor.OWNER_STAMP_IN_RECORD, (short) 1);
            assertTrue(c.skipAbandoned(pid -> false), "this lap's record of a dead producer skips the cell");
        }
    }

    /** The tail is published every releaseEvery consumed cells: a producer of a full FIFO sees room from then on. */
    @Test
    void releaseBatchDecidesWhenProducersSeeRoom() {
        for (final int every : new int[] {1, 2, 4, 8}) {
            try (SharedMemory m = SharedMemory.create("weft-test-fifo-release", FifoDescriptor.length(8, ELEM))) {
                final FifoConsumer c = new FifoConsumer(m.segment(), 8, ELEM, 1, every);
                final FifoProducer p = new FifoProducer(m.segment());
                for (int i = 0; i < 8; i++) {
                    p.publish(p.tryReserve(), FifoDescriptor.FLAG_INLINE, 0, 0);
                }
                assertEquals(-1, p.tryReserve(), "full");
                for (int consumed = 1; consumed <= 8; consumed++) {
                    assertEquals(1, c.poll((f, e, hdr) -> true, 1));
                    assertEquals(consumed >= every, p.hasRoom(), "every " + every + ", consumed " + consumed);
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new FifoConsumer(MemorySegment.NULL, 4, ELEM, 1, 8));
    }

    /** The one-store publish and owner record land on the documented byte layout (what peers read). */
    @Test
    void publishAndOwnerRecordFollowTheLayout() {
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-layout", FifoDescriptor.length(4, ELEM))) {
            final FifoConsumer c = new FifoConsumer(m.segment(), 4, ELEM, 1);
            final FifoProducer p = new FifoProducer(m.segment(), 0x12345678);
            final MemorySegment f = m.segment();
            for (int lap = 0; lap < 3; lap++) {
                for (int i = 0; i < 4; i++) {
                    final long seq = p.tryReserve();
                    final long e = p.elementOffset(seq);
                    final long o = FifoDescriptor.ownersOffset(4, ELEM) + (seq & 3) * FifoDescriptor.OWNER_RECORD_SIZE;
                    assertEquals(0x12345678, f.get(ValueLayout.JAVA_INT, o + FifoDescriptor.OWNER_PID_IN_RECORD));
                    assertEquals((short) lap, f.get(ValueLayout.JAVA_SHORT, o + FifoDescriptor.OWNER_STAMP_IN_RECORD));
                    final int desc = f.get(ValueLayout.JAVA_INT, e + FifoDescriptor.ELEMENT_DESC_OFFSET);
                    p.publish(seq, FifoDescriptor.FLAG_INLINE, 31 - i, 0x7654321 + i);
                    assertEquals(FifoDescriptor.FLAG_INLINE | (lap & 1), c.flags(e));
                    assertEquals((byte) (31 - i), f.get(ValueLayout.JAVA_BYTE, e + FifoDescriptor.ELEMENT_AM_ID_OFFSET));
                    assertEquals(0x7654321 + i, f.get(ValueLayout.JAVA_INT, e + FifoDescriptor.ELEMENT_LENGTH_OFFSET));
                    assertEquals(desc, f.get(ValueLayout.JAVA_INT, e + FifoDescriptor.ELEMENT_DESC_OFFSET),
                        "the consumer's descriptor index is not the producer's to write");
                }
                assertEquals(4, c.poll((fifo, e, hdr) -> true, 16));
            }
        }
    }

    @Test
    void rejectsUnformattedMemory() {
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-bad", 4096)) {
            try {
                new FifoProducer(m.segment());
                fail("attached unformatted memory");
            } catch (final IllegalArgumentException expected) {
                assertTrue(expected.getMessage().contains("magic"));
            }
        }
    }

    @Test // bounded by the stall limit and the suite's default timeout (300 s), not by a total time
    void producerThreadsHammerOneConsumer() throws Exception {
        final int producers = 4;
        final int count = 50_000;
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-threads", FifoDescriptor.length(64, ELEM))) {
            final FifoConsumer c = new FifoConsumer(m.segment(), 64, ELEM, LibC.getpid());
            final AtomicInteger failures = new AtomicInteger();
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < producers; t++) {
                final int id = t;
                final Thread th = new Thread(() -> {
                    if (FifoProducerMain.produce(new FifoProducer(m.segment()), id, count,
                        FifoProducerMain.STALL_NS) != 0) {
                        failures.incrementAndGet();
                    }
                });
                th.start();
                threads.add(th);
            }
            final Checker checker = new Checker(producers);
            try {
                checker.drain(c, (long) producers * count, FifoProducerMain.STALL_NS);
            } finally {
                for (final Thread th : threads) {
                    th.join(10_000);
                }
            }
            assertEquals(null, checker.error);
            assertEquals(0, failures.get());
            assertEquals((long) producers * count, checker.received);
            assertEquals(0, c.poll(checker, 10), "no duplicates after the last element");
        }
    }

    @Test // bounded by the stall limit and the suite's default timeout (300 s), not by a total time
    void producerProcessesHammerOneConsumer() throws Exception {
        final int producers = 3;
        final int count = 50_000;
        final long size = FifoDescriptor.length(64, ELEM);
        try (SharedMemory m = SharedMemory.create("weft-test-fifo-procs", size)) {
            final FifoConsumer c = new FifoConsumer(m.segment(), 64, ELEM, LibC.getpid());
            final List<Process> procs = new ArrayList<>();
            final Checker checker = new Checker(producers);
            try {
                for (int p = 0; p < producers; p++) {
                    procs.add(new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                        "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                        "-cp", System.getProperty("java.class.path"), FifoProducerMain.class.getName(),
                        Integer.toString(LibC.getpid()), Integer.toString(m.fd()), m.name(), Long.toString(size),
                        Integer.toString(p), Integer.toString(count))
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
                }
                checker.drain(c, (long) producers * count, FifoProducerMain.STALL_NS);
                for (final Process p : procs) {
                    assertTrue(p.waitFor(20, TimeUnit.SECONDS), "producer did not exit");
                    assertEquals(0, p.exitValue(), "producer process failed");
                }
            } finally {
                for (final Process p : procs) {
                    p.destroyForcibly();
                }
            }
            assertEquals(null, checker.error);
            assertEquals((long) producers * count, checker.received);
            assertEquals(0, c.poll(checker, 10), "no duplicates after the last element");
        }
    }
}
