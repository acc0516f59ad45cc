package weft.uct.shm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.AmHandler;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.PendingRequest;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Two shm interfaces in one JVM (each on its own worker), talking through the real mappings. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmTransportTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private final Transport shm = Transports.byName("shm");
    private final MemoryDomain md = shm.memoryDomain();
    private final Arena arena = Arena.ofConfined();
    private UctWorker wa;
    private UctWorker wb;
    private Interface a;
    private Interface b;
    private Endpoint ab;

    @BeforeEach
    void open() {
        open(Config.global());
    }

    private void open(final Config cfg) {
        wa = new UctWorker();
        wb = new UctWorker();
        a = shm.openInterface(wa, shm.devices().getFirst(), InterfaceParams.defaults().withConfig(cfg));
        b = shm.openInterface(wb, shm.devices().getFirst(), InterfaceParams.defaults().withConfig(cfg));
        ab = a.connect(b.deviceAddress(), b.interfaceAddress());
    }

    private void reopen(final Config cfg) {
        closeWorkers();
        open(cfg);
    }

    private void closeWorkers() {
        wa.close();
        wb.close();
    }

    @AfterEach
    void close() {
        closeWorkers();
        arena.close();
    }

    private MemorySegment bytes(final int n, final int seed) {
        final MemorySegment s = arena.allocate(Math.max(1, n));
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s.asSlice(0, n);
    }

    /** Records received messages as byte arrays. */
    private static final class Recorder implements AmHandler {
        final List<byte[]> messages = new ArrayList<>();
        final List<Integer> flags = new ArrayList<>();

        @Override
        public Status onReceive(final MemorySegment data, final long offset, final long length, final int f) {
            messages.add(data.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
            flags.add(f);
            return Status.OK;
        }
    }

    private static void progressUntil(final Interface i, final java.util.function.BooleanSupplier done) {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting");
            }
            i.progress();
        }
    }

    @Test
    void advertisesCapabilitiesAndReachability() {
        final var at = a.attributes();
        for (final long c : new long[] {Capability.AM_SHORT, Capability.AM_BCOPY, Capability.PUT_SHORT,
            Capability.PUT_BCOPY, Capability.PUT_ZCOPY, Capability.GET_BCOPY, Capability.GET_ZCOPY,
            Capability.ATOMIC32, Capability.ATOMIC64, Capability.ATOMIC_CPU, Capability.PENDING, Capability.CB_SYNC,
            Capability.CONNECT_TO_IFACE, Capability.EP_CHECK, Capability.ERRHANDLE_PEER_FAILURE,
            Capability.EVENT_RECV}) {
            assertTrue(at.has(c), Capability.describe(c));
        }
        assertEquals(128 - 16 - 8, at.amMaxShort());
        assertEquals(8192, at.amMaxBcopy());
        assertTrue(a.isReachable(b.deviceAddress(), b.interfaceAddress()));
        final byte[] otherNode = b.deviceAddress();
        otherNode[0] ^= 1;
        assertFalse(a.isReachable(otherNode, b.interfaceAddress()));
        assertFalse(a.isReachable(b.deviceAddress(), new byte[] {1, 2, 3}));
        assertThrows(WeftException.class, () -> a.connect(otherNode, b.interfaceAddress()));
        assertThrows(WeftException.class, () -> a.connect(b.deviceAddress(), new byte[7]));
    }

    @Test
    void amShortAndBcopyAtBoundaries() {
        final Recorder r = new Recorder();
        b.setAmHandler(5, r);
        final int maxShort = a.attributes().amMaxShort();
        final int maxBcopy = (int) a.attributes().amMaxBcopy();
        assertEquals(Status.OK, ab.amShort(5, 0x1122334455667788L, bytes(0, 0), 0, 0));
        assertEquals(Status.OK, ab.amShort(5, 42, bytes(maxShort, 1), 0, maxShort));
        assertEquals(Status.INVALID_PARAM, ab.amShort(5, 42, bytes(maxShort + 1, 1), 0, maxShort + 1));
        assertEquals(Status.INVALID_PARAM, ab.amShort(32, 42, bytes(1, 1), 0, 1));
        final MemorySegment big = bytes(maxBcopy, 2);
        assertEquals(maxShort + 1, ab.amBcopy(5, (d, o, cap) -> {
            MemorySegment.copy(big, 0, d, o, maxShort + 1);
            return maxShort + 1;
        }));
        assertEquals(maxBcopy, ab.amBcopy(5, (d, o, cap) -> {
            assertEquals(maxBcopy, cap);
            MemorySegment.copy(big, 0, d, o, cap);
            return cap;
        }));
        assertEquals(Status.INVALID_PARAM.code(), ab.amBcopy(5, (d, o, cap) -> cap + 1), "packer overflow");
        assertEquals(0, ab.amBcopy(5, (d, o, cap) -> 0));
        progressUntil(b, () -> r.messages.size() == 5);
        assertEquals(8, r.messages.get(0).length);
        assertEquals(0x1122334455667788L, MemorySegment.ofArray(r.messages.get(0)).get(LONG, 0));
        assertEquals(maxShort + 8, r.messages.get(1).length);
        assertArrayEquals(bytes(maxShort, 1).toArray(ValueLayout.JAVA_BYTE),
            MemorySegment.ofArray(r.messages.get(1)).asSlice(8).toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(big.asSlice(0, maxShort + 1).toArray(ValueLayout.JAVA_BYTE), r.messages.get(2));
        assertArrayEquals(big.toArray(ValueLayout.JAVA_BYTE), r.messages.get(3));
        assertEquals(0, r.messages.get(4).length);
        assertEquals(List.of(0, 0, AmHandler.FLAG_DESC, AmHandler.FLAG_DESC, AmHandler.FLAG_DESC), r.flags);
        assertEquals(0, b.progress(), "the overflowing packer's cell was skipped, nothing else arrives");
    }

    @Test
    void badConfigurationAndAddressesAreRejected() {
        final UctWorker w = new UctWorker();
        try {
            for (final String[] kv : new String[][] {{"SHM_FIFO_SIZE", "3"}, {"SHM_FIFO_ELEM_SIZE", "20"},
                {"SHM_SEG_SIZE", "0"}, {"SHM_RX_DESCS", "-1"}, {"SHM_FIFO_RELEASE_FACTOR", "0"},
                {"SHM_FIFO_RELEASE_FACTOR", "1.5"}}) {
                final WeftException e = assertThrows(WeftException.class, () -> shm.openInterface(w,
                    shm.devices().getFirst(), InterfaceParams.defaults().withConfig(Config.global().with(kv[0], kv[1]))));
                assertEquals(Status.INVALID_PARAM, e.status(), kv[0]);
            }
            final int attachments = ((ShmMemoryDomain) md).attachmentCount();
            // the peer's FIFO fd replaced by stdin: not its memory file
            final byte[] wrongFd = b.interfaceAddress();
            java.nio.ByteBuffer.wrap(wrongFd).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(16, 0);
            assertEquals(Status.INVALID_ADDRESS, assertThrows(WeftException.class,
                () -> a.connect(b.deviceAddress(), wrongFd)).status());
            final byte[] truncated = java.util.Arrays.copyOf(b.interfaceAddress(), 30);
            assertEquals(Status.INVALID_ADDRESS, assertThrows(WeftException.class,
                () -> a.connect(b.deviceAddress(), truncated)).status());
            assertEquals(attachments, ((ShmMemoryDomain) md).attachmentCount(), "a failed connect maps nothing");
        } finally {
            w.close();
        }
    }

    /** The pid of a process that has exited and been reaped. */
    private static int deadPid() throws Exception {
        final Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return (int) p.pid();
    }

    @Test
    void aSenderThatDiedMidSendDoesNotWedgeTheReceiver() throws Exception {
        reopen(Config.global().with("SHM_KEEPALIVE_INTERVAL", "20ms"));
        final int[] got = {0};
        b.setAmHandler(1, (d, o, l, f) -> {
            got[0]++;
            return Status.OK;
        });
        final ShmAddress.Iface addr = ShmAddress.Iface.decode(b.interfaceAddress());
        try (weft.ucs.memory.SharedMemory m = weft.ucs.memory.SharedMemory.attach(addr.pid(), addr.fifoFd(),
            ShmMemoryDomain.fileName(addr.pid(), addr.startTime(), addr.fifoId()), addr.fifoLength())) {
            final weft.ucs.queue.FifoProducer crashed = new weft.ucs.queue.FifoProducer(m.segment(),
                deadPid());
            assertTrue(crashed.tryReserve() >= 0);
        }
        assertEquals(Status.OK, ab.amShort(1, 5, MemorySegment.NULL, 0, 0));
        final long t0 = System.nanoTime();
        progressUntil(b, () -> got[0] == 1);
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
        assertEquals(1, b.counters().get(Counter.ERRORS));
    }

    @Test
    void anInterfaceCanSendToItselfEvenFromAHandler() {
        final Endpoint self = b.connect(b.deviceAddress(), b.interfaceAddress());
        final List<Long> got = new ArrayList<>();
        b.setAmHandler(9, (d, o, l, f) -> {
            final long v = d.get(LONG, o);
            got.add(v);
            if (v < 5) {
                assertEquals(Status.OK, self.amShort(9, v + 1, MemorySegment.NULL, 0, 0));
            }
            return Status.OK;
        });
        assertEquals(Status.OK, self.amShort(9, 0, MemorySegment.NULL, 0, 0));
        progressUntil(b, () -> got.size() == 6);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), got);
        self.close();
    }

    @Test
    void aThrowingHandlerDoesNotSeeTheSameMessageAgain() {
        final int[] calls = {0};
        b.setAmHandler(6, (d, o, l, f) -> {
            calls[0]++;
            throw new IllegalStateException("handler bug");
        });
        assertEquals(Status.OK, ab.amShort(6, 1, MemorySegment.NULL, 0, 0));
        assertEquals(Status.OK, ab.amShort(6, 2, MemorySegment.NULL, 0, 0));
        assertThrows(IllegalStateException.class, b::progress);
        assertThrows(IllegalStateException.class, b::progress);
        assertEquals(0, b.progress());
        assertEquals(2, calls[0]);
    }

    @Test
    void manyMessagesArriveInOrder() {
        final int n = 20_000;
        final int[] next = {0};
        final String[] error = {null};
        b.setAmHandler(1, (data, off, len, f) -> {
            final long v = data.get(LONG, off);
            if (v != next[0] && error[0] == null) {
                error[0] = "got " + v + " expected " + next[0];
            }
            next[0]++;
            return Status.OK;
        });
        final MemorySegment seq = arena.allocate(8);
        final long deadline = System.nanoTime() + 30_000_000_000L;
        for (int i = 0; i < n; i++) {
            final int v = i;
            while (true) {
                final Status st;
                if ((i & 3) == 0) {
                    st = Status.ofLength(ab.amBcopy(1, (d, o, cap) -> {
                        d.set(LONG, o, v);
                        return 8 + (v % 300);
                    }));
                } else {
                    st = ab.amShort(1, v, seq, 0, 0);
                }
                if (st == Status.OK) {
                    break;
                }
                assertEquals(Status.NO_RESOURCE, st);
                b.progress();
                assertTrue(System.nanoTime() < deadline, "timed out");
            }
        }
        progressUntil(b, () -> next[0] == n);
        assertEquals(null, error[0]);
        assertEquals(n, b.counters().get(Counter.RX_MESSAGES));
        assertEquals(n, a.counters().get(Counter.TX_MESSAGES));
    }

    @Test
    void aDescriptorIndexOverwrittenByASenderIsRestored() {
        reopen(Config.global().with("SHM_FIFO_SIZE", "4"));
        final MemorySegment fifo = ((ShmInterface) b).fifoSegment();
        final long cell0 = weft.ucs.queue.FifoDescriptor.elementOffset(128, 0)
            + weft.ucs.queue.FifoDescriptor.ELEMENT_DESC_OFFSET;
        final long[] got = {-1};
        b.setAmHandler(2, (data, off, len, f) -> {
            got[0] = data.get(LONG, off);
            return Status.OK;
        });
        for (int lap = 0; lap < 2; lap++) {
            final long r = ab.amBcopy(2, (d, o, cap) -> {
                d.set(LONG, o, 4242);
                fifo.set(ValueLayout.JAVA_INT, cell0, 3); // a misbehaving sender rebinds the cell it holds
                return 8;
            });
            assertEquals(8, r);
            progressUntil(b, () -> got[0] == 4242);
            assertEquals(0, fifo.get(ValueLayout.JAVA_INT, cell0), "the receiver restored its binding");
            got[0] = -1;
            for (int i = 1; i < 4; i++) { // the other cells, untouched, to come back to cell 0
                assertEquals(8, ab.amBcopy(2, (d, o, cap) -> {
                    d.set(LONG, o, 7);
                    return 8;
                }));
                progressUntil(b, () -> got[0] == 7);
                got[0] = -1;
            }
        }
    }

    @Test
    void keptDescriptorsStayIntactUntilReleasedAndBoundMemory() {
        reopen(Config.global().with("SHM_FIFO_SIZE", "4").with("SHM_RX_DESCS", "3"));
        final List<long[]> kept = new ArrayList<>();
        final MemorySegment[] pool = {null};
        b.setAmHandler(2, (data, off, len, f) -> {
            assertEquals(AmHandler.FLAG_DESC, f);
            pool[0] = data;
            kept.add(new long[] {off, len, data.get(LONG, off)});
            return Status.IN_PROGRESS;
        });
        int sent = 0;
        for (int i = 0; i < 20; i++) {
            final int v = i;
            final long r = ab.amBcopy(2, (d, o, cap) -> {
                d.set(LONG, o, 1000 + v);
                return 16;
            });
            if (r == Status.NO_RESOURCE.code()) {
                break;
            }
            assertEquals(16, r);
            sent++;
            b.progress();
        }
        // 3 spares can be kept; then the receiver stops reading and the 4-cell FIFO fills up (the
        // consumer published its tail after 2 of the 3 consumed cells: batches of half the FIFO)
        assertEquals(3, kept.size());
        assertEquals(2 + 4, sent);
        assertEquals(0, ((ShmInterface) b).freeDescriptors());
        for (int i = 0; i < kept.size(); i++) {
            assertEquals(1000 + i, pool[0].get(LONG, kept.get(i)[0]), "kept data must not be overwritten");
        }
        final long[] first = kept.getFirst();
        b.releaseDescriptor(pool[0], first[0]);
        assertThrows(WeftException.class, () -> b.releaseDescriptor(pool[0], first[0]), "double release");
        assertThrows(WeftException.class, () -> b.releaseDescriptor(arena.allocate(64), 0), "foreign memory");
        b.progress();
        assertEquals(4, kept.size());
        assertEquals(1003, pool[0].get(LONG, kept.get(3)[0]));
        for (int i = 1; i < kept.size(); i++) {
            b.releaseDescriptor(pool[0], kept.get(i)[0]);
        }
        final int before = kept.size();
        final int total = sent;
        progressUntil(b, () -> kept.size() == total);
        assertTrue(kept.size() > before);
        for (int i = 0; i < kept.size(); i++) {
            assertEquals(1000 + i, pool[0].get(LONG, kept.get(i)[0]), "message " + i);
        }
    }

    /** A pending request that sends one short AM, recording dispatch order. */
    private static final class SendLater extends PendingRequest {
        final Endpoint ep;
        final long value;
        final List<Long> log;
        Status last;

        SendLater(final Endpoint ep, final long value, final List<Long> log) {
            this.ep = ep;
            this.value = value;
            this.log = log;
        }

        @Override
        public Status dispatch() {
            last = ep.amShort(3, value, MemorySegment.NULL, 0, 0);
            if (last == Status.OK) {
                log.add(value);
            }
            return last;
        }
    }

    @Test
    void fullFifoGivesNoResourceThenPendingRequestsGoInOrder() {
        reopen(Config.global().with("SHM_FIFO_SIZE", "8"));
        final List<Long> received = new ArrayList<>();
        b.setAmHandler(3, (d, o, l, f) -> {
            received.add(d.get(LONG, o));
            return Status.OK;
        });
        long v = 0;
        while (ab.amShort(3, v, MemorySegment.NULL, 0, 0) == Status.OK) {
            v++;
            assertTrue(v <= 8, "a FIFO of 8 took more than 8 messages without the receiver progressing");
        }
        assertEquals(8, v);
        assertEquals(1, a.counters().get(Counter.NO_RESOURCE));
        final List<Long> dispatched = new ArrayList<>();
        final List<SendLater> reqs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            final SendLater r = new SendLater(ab, v + i, dispatched);
            assertEquals(Status.OK, ab.pendingAdd(r));
            reqs.add(r);
        }
        // the receiver does not progress: the sender's memory stays bounded (nothing is buffered)
        for (int i = 0; i < 1000; i++) {
            a.progress();
        }
        assertTrue(dispatched.isEmpty());
        b.progress(); // frees half the FIFO
        assertEquals(Status.NO_RESOURCE, ab.amShort(3, 999, MemorySegment.NULL, 0, 0),
            "a new send must not overtake pending requests");
        progressUntil(a, () -> {
            b.progress();
            return dispatched.size() == 20;
        });
        assertEquals(Status.OK, ab.amShort(3, v + 20, MemorySegment.NULL, 0, 0));
        progressUntil(b, () -> received.size() == 29);
        for (int i = 0; i < 29; i++) {
            assertEquals(i, received.get(i), "order at " + i);
        }
        assertTrue(a.counters().get(Counter.PENDING_DISPATCHED) >= 20);
    }

    @Test
    void putAndGetAtManySizes() {
        final MemoryHandle h = md.allocate(256 * 1024);
        try (RemoteKey k = md.unpackRkey(md.packRkey(h))) {
            assertEquals(h.address(), k.base());
            final MemorySegment local = h.segment();
            int seed = 0;
            for (final int size : new int[] {0, 1, 7, 8, 9, 63, 64, 100, 1000, 4096, 8192, 65536, 200_000}) {
                for (final int how : new int[] {0, 1, 2}) {
                    seed++;
                    final long off = 256 * 1024 - size - (seed % 7 == 0 ? 0 : seed % 5);
                    final MemorySegment src = bytes(size, seed);
                    final Status st;
                    if (how == 0) {
                        st = ab.putShort(src, 0, size, h.address() + off, k);
                    } else if (how == 1 && size <= 8192) {
                        st = Status.ofLength(ab.putBcopy((d, o, cap) -> {
                            MemorySegment.copy(src, 0, d, o, size);
                            return size;
                        }, h.address() + off, k));
                    } else {
                        st = ab.putZcopy(IoVector.of(src, 0, size), h.address() + off, k, null);
                    }
                    assertEquals(Status.OK, st, "put size " + size + " how " + how);
                    assertArrayEquals(src.toArray(ValueLayout.JAVA_BYTE),
                        local.asSlice(off, size).toArray(ValueLayout.JAVA_BYTE), "put size " + size);
                    final MemorySegment dst = arena.allocate(Math.max(1, size)).asSlice(0, size);
                    if (how == 2 || size > 8192) {
                        assertEquals(Status.OK, ab.getZcopy(IoVector.of(dst, 0, size), h.address() + off, k, null));
                    } else {
                        assertEquals(Status.OK, ab.getBcopy((s, o, l) -> MemorySegment.copy(s, o, dst, 0, l), size,
                            h.address() + off, k, null));
                    }
                    assertArrayEquals(src.toArray(ValueLayout.JAVA_BYTE), dst.toArray(ValueLayout.JAVA_BYTE),
                        "get size " + size);
                }
            }
            final MemorySegment p = k.ptr(h.address() + 16, 8);
            p.set(LONG, 0, 77);
            assertEquals(77, local.get(LONG, 16), "rkey ptr maps the same memory");
        } finally {
            md.deregister(h);
        }
    }

    @Test
    void outOfRangeAccessIsRefusedAndTouchesNothing() {
        final MemoryHandle h = md.allocate(4096);
        final MemoryHandle other = md.allocate(4096);
        try (RemoteKey k = md.unpackRkey(md.packRkey(h))) {
            final MemorySegment src = bytes(16, 3);
            final long base = h.address();
            assertEquals(Status.OUT_OF_RANGE, ab.putShort(src, 0, 16, base + 4090, k));
            assertEquals(Status.OUT_OF_RANGE, ab.putShort(src, 0, 1, base - 1, k));
            assertEquals(Status.OUT_OF_RANGE, ab.putShort(src, 0, 8, other.address(), k));
            assertEquals(Status.OUT_OF_RANGE, ab.getBcopy((s, o, l) -> fail("must not read"), 16, base + 4089, k, null));
            assertEquals(Status.OUT_OF_RANGE, ab.putZcopy(IoVector.of(src, 0, 16), Long.MAX_VALUE - 4, k, null));
            assertEquals(Status.OUT_OF_RANGE, ab.atomic64Post(AtomicOp.ADD, 1, base + 4096, k));
            assertEquals(Status.INVALID_PARAM, ab.atomic64Post(AtomicOp.ADD, 1, base + 4, k), "misaligned");
            assertEquals(Status.OUT_OF_RANGE, ab.atomic32Cswap(0, 1, arena.allocate(4), 0, base + 4096, k, null));
            assertEquals(Status.OUT_OF_RANGE.code(), ab.putBcopy((d, o, c) -> 0, base + 4097, k));
            assertEquals(0, ab.putBcopy((d, o, c) -> 0, base + 4096, k), "a put at the very end may write 0 bytes");
            assertEquals(Status.OUT_OF_RANGE.code(), ab.putBcopy((d, o, c) -> {
                d.asSlice(o, 8).fill((byte) 9);
                return 8;
            }, base + 4092, k), "the packed length decides the range: 8 bytes at end - 4 do not fit");
            assertThrows(WeftException.class, () -> k.ptr(base + 4000, 97));
            for (int i = 0; i < 4096; i++) {
                assertEquals(0, h.segment().get(ValueLayout.JAVA_BYTE, i));
                assertEquals(0, other.segment().get(ValueLayout.JAVA_BYTE, i));
            }
        } finally {
            md.deregister(h);
            md.deregister(other);
        }
    }

    @Test
    void badKeysAreRejected() {
        final MemoryHandle h = md.allocate(4096);
        final byte[] good = md.packRkey(h);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(new byte[] {1, 2}))
            .status());
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
            () -> md.unpackRkey(java.util.Arrays.copyOf(good, good.length - 3))).status());
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(null)).status());
        final Transport self = Transports.byName("self");
        final MemoryHandle sh = self.memoryDomain().allocate(64);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
            () -> md.unpackRkey(self.memoryDomain().packRkey(sh))).status(), "foreign transport");
        try (RemoteKey selfKey = self.memoryDomain().unpackRkey(self.memoryDomain().packRkey(sh))) {
            assertEquals(Status.INVALID_RKEY, ab.putShort(bytes(8, 1), 0, 8, sh.address(), selfKey));
        }
        self.memoryDomain().deregister(sh);
        // a key naming a pid that does not exist, or a wrong fd
        final java.nio.ByteBuffer body = RkeyCodec.open("shm", good);
        final byte[] raw = new byte[body.remaining()];
        body.get(raw);
        final byte[] deadPid = raw.clone();
        java.nio.ByteBuffer.wrap(deadPid).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, 0x3ffffff0);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
            () -> md.unpackRkey(RkeyCodec.pack("shm", deadPid))).status());
        final byte[] wrongFd = raw.clone();
        java.nio.ByteBuffer.wrap(wrongFd).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(4, 0);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
            () -> md.unpackRkey(RkeyCodec.pack("shm", wrongFd))).status(), "fd 0 is not the memory file");
        // stale: the owner released the memory
        md.deregister(h);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(good)).status());
        // a closed key refuses accesses
        final MemoryHandle h2 = md.allocate(64);
        final RemoteKey k2 = md.unpackRkey(md.packRkey(h2));
        k2.close();
        k2.close();
        assertEquals(Status.INVALID_RKEY, ab.putShort(bytes(8, 1), 0, 8, h2.address(), k2));
        md.deregister(h2);
        assertEquals(Status.UNSUPPORTED, assertThrows(WeftException.class, () -> md.register(arena.allocate(64)))
            .status());
    }

    @Test
    void compareRkeysIsATotalOrder() {
        final MemoryHandle h1 = md.allocate(64);
        final MemoryHandle h2 = md.allocate(64);
        try (RemoteKey k1 = md.unpackRkey(md.packRkey(h1)); RemoteKey k1b = md.unpackRkey(md.packRkey(h1));
             RemoteKey k2 = md.unpackRkey(md.packRkey(h2))) {
            assertEquals(0, md.compareRkeys(k1, k1b));
            assertEquals(-md.compareRkeys(k1, k2), md.compareRkeys(k2, k1));
            assertTrue(md.compareRkeys(k1, k2) != 0);
        } finally {
            md.deregister(h1);
            md.deregister(h2);
        }
    }

    @Test
    void atomicsGiveTheRightResults() {
        final MemoryHandle h = md.allocate(64);
        final MemorySegment m = h.segment();
        final MemorySegment res = arena.allocate(8);
        final long base = h.address();
        try (RemoteKey k = md.unpackRkey(md.packRkey(h))) {
            m.set(ValueLayout.JAVA_LONG, 0, 0b1100);
            assertEquals(Status.OK, ab.atomic64Fetch(AtomicOp.ADD, 1, res, 0, base, k, null));
            assertEquals(0b1100, res.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(Status.OK, ab.atomic64Fetch(AtomicOp.AND, 0b0101, res, 0, base, k, null));
            assertEquals(0b1101, res.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(Status.OK, ab.atomic64Post(AtomicOp.OR, 0b10000, base, k));
            assertEquals(Status.OK, ab.atomic64Post(AtomicOp.XOR, 0b1, base, k));
            assertEquals(0b10100, m.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(Status.OK, ab.atomic64Fetch(AtomicOp.SWAP, -5, res, 0, base, k, null));
            assertEquals(0b10100, res.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(Status.OK, ab.atomic64Cswap(-5, 9, res, 0, base, k, null));
            assertEquals(-5, res.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(Status.OK, ab.atomic64Cswap(-5, 10, res, 0, base, k, null));
            assertEquals(9, m.get(ValueLayout.JAVA_LONG, 0), "failed cswap leaves the value");
            assertEquals(Status.OK, ab.atomic64Post(AtomicOp.SWAP, 11, base, k)); // a posted set
            assertEquals(11, m.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(Status.INVALID_PARAM, ab.atomic64Post(AtomicOp.CSWAP, 1, base, k));
            assertEquals(Status.INVALID_PARAM, ab.atomic64Fetch(AtomicOp.CSWAP, 1, res, 0, base, k, null));

            m.set(ValueLayout.JAVA_INT, 8, 7);
            assertEquals(Status.OK, ab.atomic32Fetch(AtomicOp.ADD, -8, res, 0, base + 8, k, null));
            assertEquals(7, res.get(ValueLayout.JAVA_INT, 0));
            assertEquals(-1, m.get(ValueLayout.JAVA_INT, 8));
            assertEquals(0, m.get(ValueLayout.JAVA_INT, 12), "32-bit op must not spill over");
            assertEquals(Status.OK, ab.atomic32Post(AtomicOp.AND, 0xF0, base + 8, k));
            assertEquals(Status.OK, ab.atomic32Post(AtomicOp.XOR, 0xFF, base + 8, k));
            assertEquals(Status.OK, ab.atomic32Post(AtomicOp.OR, 0x100, base + 8, k));
            assertEquals(0x10F, m.get(ValueLayout.JAVA_INT, 8));
            assertEquals(Status.OK, ab.atomic32Fetch(AtomicOp.SWAP, 3, res, 0, base + 8, k, null));
            assertEquals(0x10F, res.get(ValueLayout.JAVA_INT, 0));
            assertEquals(Status.OK, ab.atomic32Cswap(3, 4, res, 0, base + 8, k, null));
            assertEquals(4, m.get(ValueLayout.JAVA_INT, 8));
        } finally {
            md.deregister(h);
        }
    }

    @Test
    void concurrentAtomicContendersGiveAnExactTotal() throws Exception {
        final MemoryHandle h = md.allocate(64);
        final byte[] key = md.packRkey(h);
        final long base = h.address();
        final int threads = 3;
        final int n = 20_000;
        final AtomicInteger errors = new AtomicInteger();
        final List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ts.add(new Thread(() -> {
                try (UctWorker w = new UctWorker(); RemoteKey k = md.unpackRkey(key);
                     Arena ar = Arena.ofConfined()) {
                    final Interface i = shm.openInterface(w, shm.devices().getFirst(), InterfaceParams.defaults());
                    final Endpoint ep = i.connect(b.deviceAddress(), b.interfaceAddress());
                    final MemorySegment r = ar.allocate(8);
                    for (int j = 0; j < n; j++) {
                        boolean ok = ep.atomic64Post(AtomicOp.ADD, 1, base, k) == Status.OK;
                        ok &= ep.atomic32Fetch(AtomicOp.ADD, 2, r, 0, base + 8, k, null) == Status.OK;
                        // a cswap increment loop: contended compare-and-swap must never lose an update
                        long seen = h.segment().get(ValueLayout.JAVA_LONG, 16);
                        while (true) {
                            ok &= ep.atomic64Cswap(seen, seen + 1, r, 0, base + 16, k, null) == Status.OK;
                            final long old = r.get(ValueLayout.JAVA_LONG, 0);
                            if (old == seen) {
                                break;
                            }
                            seen = old;
                        }
                        ok &= ep.atomic32Post(AtomicOp.XOR, 1 << (j & 31), base + 24, k) == Status.OK;
                        if (!ok) {
                            errors.incrementAndGet();
                        }
                    }
                }
            }));
        }
        ts.forEach(Thread::start);
        // the owner contends with its own CPU atomics on the same word
        for (int j = 0; j < n; j++) {
            weft.uct.MemoryAtomics.fetch64(AtomicOp.ADD, h.segment(), 0, 1);
        }
        for (final Thread t : ts) {
            t.join(50_000);
            assertFalse(t.isAlive());
        }
        assertEquals(0, errors.get());
        assertEquals((long) (threads + 1) * n, h.segment().get(ValueLayout.JAVA_LONG, 0));
        assertEquals(threads * n * 2, h.segment().get(ValueLayout.JAVA_INT, 8));
        assertEquals((long) threads * n, h.segment().get(ValueLayout.JAVA_LONG, 16));
        assertEquals(threads % 2 == 0 ? 0 : -1, h.segment().get(ValueLayout.JAVA_INT, 24),
            "each bit flipped 625 times per thread");
        md.deregister(h);
    }

    @Test
    void closedPeerInterfaceFailsTheEndpoint() {
        final List<Status> errors = new ArrayList<>();
        final UctWorker w = new UctWorker();
        final Interface c = shm.openInterface(w, shm.devices().getFirst(),
            InterfaceParams.defaults().withErrorHandler((ep, st) -> errors.add(st)));
        final Endpoint cb = c.connect(b.deviceAddress(), b.interfaceAddress());
        final Endpoint ca = c.connect(a.deviceAddress(), a.interfaceAddress());
        b.close();
        assertEquals(Status.CONNECTION_RESET, cb.check());
        assertEquals(Status.CONNECTION_RESET, cb.amShort(1, 1, MemorySegment.NULL, 0, 0));
        assertEquals(Status.OK, ca.check(), "other endpoints go on");
        assertEquals(Status.OK, ca.amShort(1, 1, MemorySegment.NULL, 0, 0));
        c.progress();
        assertEquals(List.of(Status.CONNECTION_RESET), errors);
        cb.close();
        w.close();
    }

    @Test
    void closeIsIdempotentAndLeaksNoDescriptor() throws Exception {
        final long before = openFds();
        for (int round = 0; round < 3; round++) {
            final UctWorker w1 = new UctWorker();
            final UctWorker w2 = new UctWorker();
            final Interface i1 = shm.openInterface(w1, shm.devices().getFirst(), InterfaceParams.defaults());
            final Interface i2 = shm.openInterface(w2, shm.devices().getFirst(), InterfaceParams.defaults());
            final Endpoint e12 = i1.connect(i2.deviceAddress(), i2.interfaceAddress());
            final Endpoint e21 = i2.connect(i1.deviceAddress(), i1.interfaceAddress());
            final MemoryHandle h = md.allocate(10_000);
            final RemoteKey k = md.unpackRkey(md.packRkey(h));
            assertEquals(Status.OK, e12.putShort(bytes(8, 1), 0, 8, h.address(), k));
            assertEquals(Status.OK, e21.amShort(0, 1, MemorySegment.NULL, 0, 0));
            assertTrue(openFds() > before);
            k.close();
            md.deregister(h);
            md.deregister(h);
            e12.close();
            e12.close();
            i1.close();
            i1.close();
            w1.close();
            w2.close();
            i2.close();
            assertEquals(Status.CLOSED, e21.amShort(0, 1, MemorySegment.NULL, 0, 0));
        }
        assertEquals(0, ((ShmMemoryDomain) md).attachmentCount() - baselineAttachments());
        assertEquals(before, openFds(), "file descriptors leaked");
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("/dev/shm"))) {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().contains("weft-shm")).toList(),
                "shm never creates files");
        }
    }

    private int baselineAttachments() {
        return 2 * 1; // the fixture's endpoint a->b maps b's FIFO and descriptor pool
    }

    static long openFds() throws java.io.IOException {
        try (var s = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    void wakeupWakesASleepingReceiver() throws Exception {
        final int[] got = {0};
        b.setAmHandler(4, (d, o, l, f) -> {
            got[0]++;
            return Status.OK;
        });
        assertEquals(Status.OK, ab.amShort(4, 1, MemorySegment.NULL, 0, 0));
        assertEquals(Status.BUSY, b.arm(), "unread messages: do not sleep");
        progressUntil(b, () -> got[0] == 1);
        final AtomicInteger woke = new AtomicInteger(-1);
        final Status[] armed = {null};
        final Thread sleeper = new Thread(() -> {
            armed[0] = b.arm();
            try (Arena ar = Arena.ofConfined()) {
                final MemorySegment pfd = ar.allocate(8);
                pfd.set(ValueLayout.JAVA_INT, 0, b.eventFd());
                pfd.set(ValueLayout.JAVA_SHORT, 4, (short) LibC.POLLIN);
                woke.set(LibC.poll(pfd.address(), 1, 10_000));
            }
        });
        sleeper.start();
        Thread.sleep(300);
        assertEquals(-1, woke.get(), "the receiver must be asleep before anything is sent");
        assertEquals(Status.OK, ab.amShort(4, 2, MemorySegment.NULL, 0, 0));
        sleeper.join(10_000);
        assertEquals(Status.OK, armed[0]);
        assertEquals(1, woke.get(), "poll must report the event fd readable");
        assertEquals(1, a.counters().get(Counter.WAKEUPS_SENT));
        progressUntil(b, () -> got[0] == 2);
        assertEquals(Status.OK, b.arm());
        assertEquals(Status.OK, ab.amShort(4, 3, MemorySegment.NULL, 0, 0));
        assertEquals(Status.OK, ab.amShort(4, 4, MemorySegment.NULL, 0, 0));
        assertEquals(2, a.counters().get(Counter.WAKEUPS_SENT), "one wakeup per arm");
        assertEquals(Status.BUSY, b.arm());
    }
}
