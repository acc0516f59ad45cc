package weft.uct.shm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AmHandler;
import weft.uct.AtomicOp;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomain;
import weft.uct.PendingRequest;
import weft.uct.RemoteKey;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The shm transport between this JVM and a child JVM ({@link ShmPeerMain}). */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShmProcessTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private final Transport shm = Transports.byName("shm");
    private final MemoryDomain md = shm.memoryDomain();
    private final Arena arena = Arena.ofConfined();
    private final List<Status> errors = new ArrayList<>();
    private final List<byte[]> replies = new ArrayList<>();
    private final List<Integer> replyFlags = new ArrayList<>();
    private UctWorker worker;
    private Interface iface;
    private ShmPeer peer;
    private Endpoint ep;

    @BeforeEach
    void start() throws Exception {
        worker = new UctWorker();
        iface = shm.openInterface(worker, shm.devices().getFirst(),
            InterfaceParams.defaults().withErrorHandler((e, st) -> errors.add(st)));
        iface.setAmHandler(ShmPeerMain.ECHO_REPLY, (data, off, len, flags) -> {
            replies.add(data.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            replyFlags.add(flags);
            return Status.OK;
        });
        peer = new ShmPeer();
        ep = iface.connect(peer.deviceAddress, peer.ifaceAddress);
        final HexFormat hex = HexFormat.of();
        peer.command("CONNECT " + hex.formatHex(iface.deviceAddress()) + " " + hex.formatHex(iface.interfaceAddress()));
        peer.expect("CONNECTED");
    }

    @AfterEach
    void stop() throws Exception {
        try {
            peer.close();
        } finally {
            worker.close();
            arena.close();
        }
    }

    private void awaitReplies(final int n) {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (replies.size() < n) {
            if (System.nanoTime() - deadline > 0) {
                fail("got " + replies.size() + " of " + n + " echoes");
            }
            iface.progress();
        }
    }

    private Status sendShort(final long header, final MemorySegment payload, final int len) {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        Status st;
        while ((st = ep.amShort(ShmPeerMain.ECHO_REQUEST, header, payload, 0, len)) == Status.NO_RESOURCE) {
            iface.progress();
            assertTrue(System.nanoTime() < deadline, "send timed out");
        }
        return st;
    }

    private Status sendBcopy(final MemorySegment payload) {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        long r;
        while ((r = ep.amBcopy(ShmPeerMain.ECHO_REQUEST, (d, o, cap) -> {
            MemorySegment.copy(payload, 0, d, o, payload.byteSize());
            return payload.byteSize();
        })) == Status.NO_RESOURCE.code()) {
            iface.progress();
            assertTrue(System.nanoTime() < deadline, "send timed out");
        }
        return r == payload.byteSize() ? Status.OK : Status.of((int) r);
    }

    private MemorySegment bytes(final int n, final int seed) {
        final MemorySegment s = arena.allocate(Math.max(1, n)).asSlice(0, n);
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + seed));
        }
        return s;
    }

    @Test
    void echoesAtSizeBoundariesAndKeepsOrder() {
        final int maxShort = iface.attributes().amMaxShort();
        final int maxBcopy = (int) iface.attributes().amMaxBcopy();
        assertEquals(Status.OK, sendShort(11, bytes(0, 0), 0));
        assertEquals(Status.OK, sendShort(12, bytes(maxShort, 1), maxShort));
        assertEquals(Status.OK, sendBcopy(bytes(maxShort + 1, 2)));
        assertEquals(Status.OK, sendBcopy(bytes(maxBcopy, 3)));
        awaitReplies(4);
        assertEquals(11, MemorySegment.ofArray(replies.get(0)).get(LONG, 0));
        assertEquals(8, replies.get(0).length);
        assertEquals(12, MemorySegment.ofArray(replies.get(1)).get(LONG, 0));
        assertArrayEquals(bytes(maxShort, 1).toArray(ValueLayout.JAVA_BYTE),
            MemorySegment.ofArray(replies.get(1)).asSlice(8).toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(bytes(maxShort + 1, 2).toArray(ValueLayout.JAVA_BYTE), replies.get(2));
        assertArrayEquals(bytes(maxBcopy, 3).toArray(ValueLayout.JAVA_BYTE), replies.get(3));
        assertEquals(List.of(0, 0, AmHandler.FLAG_DESC, AmHandler.FLAG_DESC), replyFlags);

        final int n = 3000;
        final MemorySegment p = arena.allocate(16);
        for (int i = 0; i < n; i++) {
            if (i % 5 == 0) {
                p.set(LONG, 0, i);
                assertEquals(Status.OK, sendBcopy(p));
            } else {
                assertEquals(Status.OK, sendShort(i, p, 0));
            }
            iface.progress();
        }
        awaitReplies(4 + n);
        for (int i = 0; i < n; i++) {
            assertEquals(i, MemorySegment.ofArray(replies.get(4 + i)).get(LONG, 0), "order at " + i);
        }
    }

    @Test
    void putGetAndAtomicsOnPeerMemoryWhileThePeerContends() throws Exception {
        try (RemoteKey k = md.unpackRkey(peer.rkey)) {
            assertEquals(peer.base, k.base());
            for (final int size : new int[] {1, 8, 100, 8192, 100_000}) {
                final MemorySegment src = bytes(size, size);
                final long addr = peer.base + 4096 + size % 61;
                assertEquals(Status.OK, ep.putShort(src, 0, size, addr, k));
                final MemorySegment dst = arena.allocate(size);
                assertEquals(Status.OK, ep.getBcopy((s, o, l) -> MemorySegment.copy(s, o, dst, 0, l), size, addr, k,
                    null));
                assertArrayEquals(src.toArray(ValueLayout.JAVA_BYTE), dst.toArray(ValueLayout.JAVA_BYTE));
            }
            assertEquals(Status.OUT_OF_RANGE, ep.putShort(bytes(8, 1), 0, 8, peer.base + ShmPeerMain.REGION - 4, k));
            final int n = 200_000;
            peer.command("ADD64 0 " + n);
            peer.command("ADD32 8 " + n);
            final MemorySegment r = arena.allocate(8);
            for (int i = 0; i < n; i++) {
                assertEquals(Status.OK, ep.atomic64Post(AtomicOp.ADD, 1, peer.base, k));
                assertEquals(Status.OK, ep.atomic32Fetch(AtomicOp.ADD, 1, r, 0, peer.base + 8, k, null));
            }
            peer.expect("DONE");
            peer.expect("DONE");
            assertEquals(Status.OK, ep.atomic64Fetch(AtomicOp.ADD, 0, r, 0, peer.base, k, null));
            assertEquals(2L * n, r.get(ValueLayout.JAVA_LONG, 0), "remote and local atomics must not lose updates");
            assertEquals(Status.OK, ep.atomic32Cswap(2 * n, -1, r, 0, peer.base + 8, k, null));
            assertEquals(2 * n, r.get(ValueLayout.JAVA_INT, 0));
            assertEquals(-1, k.ptr(peer.base + 8, 4).get(ValueLayout.JAVA_INT, 0));
        }
    }

    @Test
    void aSleepingReceiverIsWokenByAnotherProcess() {
        try (weft.ucs.wakeup.EventSet events = new weft.ucs.wakeup.EventSet(4)) {
            events.add(iface.eventFd(), weft.ucs.sys.LibC.EPOLLIN, 42);
            for (int round = 0; round < 3; round++) {
                final long deadline = System.nanoTime() + 5_000_000_000L;
                Status armed;
                while ((armed = iface.arm()) == Status.BUSY) {
                    iface.progress();
                    assertTrue(System.nanoTime() < deadline, "could not arm");
                }
                assertEquals(Status.OK, armed);
                final int before = replies.size();
                assertEquals(Status.OK, sendShort(100 + round, MemorySegment.NULL, 0));
                // the peer's echo must wake this thread out of epoll_wait
                assertEquals(1, events.await(5_000), "no wakeup from the peer process");
                assertEquals(42, events.readyData(0));
                awaitReplies(before + 1);
                assertEquals(100 + round, MemorySegment.ofArray(replies.get(before)).get(LONG, 0));
            }
        }
    }

    /** Sends one short AM when dispatched, remembering what it saw. */
    private static final class Retry extends PendingRequest {
        final Endpoint ep;
        final List<Status> seen = new ArrayList<>();

        Retry(final Endpoint ep) {
            this.ep = ep;
        }

        @Override
        public Status dispatch() {
            final Status st = ep.amShort(ShmPeerMain.ECHO_REQUEST, 0, MemorySegment.NULL, 0, 0);
            seen.add(st);
            return st;
        }
    }

    @Test
    void killedPeerFailsTheEndpointWithinSecondsAndOthersGoOn() throws Exception {
        final UctWorker w2 = new UctWorker();
        try {
            final Interface other = shm.openInterface(w2, shm.devices().getFirst(), InterfaceParams.defaults());
            final int[] got = {0};
            other.setAmHandler(3, (d, o, l, f) -> {
                got[0]++;
                return Status.OK;
            });
            final Endpoint toOther = iface.connect(other.deviceAddress(), other.interfaceAddress());
            final RemoteKey k = md.unpackRkey(peer.rkey);
            assertEquals(Status.OK, ep.putShort(bytes(8, 9), 0, 8, peer.base + 64, k));

            peer.process.destroyForcibly();
            assertTrue(peer.process.waitFor(10, TimeUnit.SECONDS));
            // nobody drains the dead peer's FIFO: fill it, then queue a request
            int sent = 0;
            while (ep.amShort(ShmPeerMain.ECHO_REQUEST, 0, MemorySegment.NULL, 0, 0) == Status.OK) {
                sent++;
                assertTrue(sent <= 256, "FIFO never filled");
            }
            final Retry retry = new Retry(ep);
            final Status added = ep.pendingAdd(retry);
            final long t0 = System.nanoTime();
            while (errors.isEmpty()) {
                iface.progress();
                assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "peer death not detected within 5 s");
            }
            assertEquals(List.of(Status.CONNECTION_RESET), errors);
            if (added == Status.OK) {
                assertEquals(Status.CONNECTION_RESET, retry.seen.getLast(), "pending request purged with the error");
                assertTrue(!retry.isQueued());
            }
            assertEquals(Status.CONNECTION_RESET, ep.amShort(1, 0, MemorySegment.NULL, 0, 0));
            assertEquals(Status.CONNECTION_RESET, ep.check());
            assertEquals(Status.CONNECTION_RESET, ep.putShort(bytes(8, 1), 0, 8, peer.base + 64, k));
            // the dead peer's memory stays mapped here: reading it is safe
            assertEquals(bytes(8, 9).get(LONG, 0), k.ptr(peer.base + 64, 8).get(LONG, 0));
            k.close();
            assertEquals(Status.INVALID_RKEY,
                assertThrows(WeftException.class, () -> md.unpackRkey(peer.rkey)).status());
            // other endpoints go on
            assertEquals(Status.OK, toOther.amShort(3, 1, MemorySegment.NULL, 0, 0));
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (got[0] == 0 && System.nanoTime() < deadline) {
                other.progress();
            }
            assertEquals(1, got[0]);
            ep.close();
            assertNotNull(toOther);
        } finally {
            w2.close();
        }
    }

    /** Round-trip latency of 8-byte AMs between two JVMs (run with -Dweft.slow=true). */
    @Test
    @Tag("slow")
    void pingPongLatency() {
        final long[] count = {0};
        iface.setAmHandler(ShmPeerMain.ECHO_REPLY, (data, off, len, flags) -> {
            count[0]++;
            return Status.OK;
        });
        final MemorySegment p = arena.allocate(8);
        for (int round = 0; round < 8; round++) {
            final int n = 200_000;
            count[0] = 0;
            final long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sendShort(i, p, 8);
                while (count[0] == i) {
                    iface.progress();
                }
            }
            final long t = System.nanoTime() - t0;
            System.out.printf("shm am ping-pong 8 B: %.3f us one-way (%d round trips)%n", t / 2e3 / n, n);
        }
    }
}
