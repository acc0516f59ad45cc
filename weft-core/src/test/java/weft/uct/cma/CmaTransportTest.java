package weft.uct.cma;

import weft.uct.AbstractMemoryDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.sys.LibC;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.IoVector;
import weft.uct.MemoryDomainAttributes;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.cma.CmaTestSupport.await;
import static weft.uct.cma.CmaTestSupport.finish;

/** The cma transport between two interfaces of this JVM (a process may attach to itself). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CmaTransportTest {
    private static final long REGION = 8 * 1024 * 1024 + 4096;

    private CmaTransport transport;
    private CmaMemoryDomain md;
    private UctWorker worker;
    private Interface a;
    private Interface b;
    private Endpoint ep;
    private MemoryHandle target;
    private RemoteKey rkey;
    private Arena arena;
    private MemorySegment local;

    @BeforeEach
    void open() {
        transport = new CmaTransport(Config.global());
        assertNull(transport.unavailableReason(), "cma must work on this machine (root, no Yama)");
        md = transport.memoryDomain();
        worker = new UctWorker();
        a = transport.openInterface(worker, transport.devices().get(0), InterfaceParams.defaults());
        b = transport.openInterface(worker, transport.devices().get(0), InterfaceParams.defaults());
        ep = a.connect(b.deviceAddress(), b.interfaceAddress());
        target = md.allocate(REGION);
        rkey = md.unpackRkey(md.packRkey(target));
        arena = Arena.ofShared();
        local = arena.allocate(REGION, 64);
    }

    @AfterEach
    void close() {
        rkey.close();
        ep.close();
        worker.close();
        md.close();
        arena.close();
    }

    private static void pattern(final MemorySegment seg, final long seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, CmaPeerMain.pattern(seed, i));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 7, 8, 4095, 65_537, 512 * 1024, 3 * 1024 * 1024 + 5, 4 * 1024 * 1024,
        4 * 1024 * 1024 + 1, 8 * 1024 * 1024})
    void shouldPutAndGetEverySize(final long size) {
        final long off = size % 2 == 0 ? 64 : 13; // unaligned remote addresses too
        final MemorySegment src = local.asSlice(0, size);
        pattern(src, size);
        final Completion c = new Completion();
        c.reset(1);
        final Status put = ep.putZcopy(IoVector.of(local, 0, size), target.address() + off, rkey, c);
        assertEquals(Status.OK, finish(a, put, c));
        assertEquals(-1L, src.mismatch(target.segment().asSlice(off, size)), "put data differs");
        assertEquals(size > 4 * 1024 * 1024 ? Status.IN_PROGRESS : Status.OK, put, "only puts above CMA_SEG_SIZE are queued");

        pattern(target.segment().asSlice(off, size), size + 99);
        local.asSlice(0, size).fill((byte) 0);
        c.reset(1);
        final Status get = ep.getZcopy(IoVector.of(local, 0, size), target.address() + off, rkey, c);
        assertEquals(Status.OK, finish(a, get, c));
        assertEquals(-1L, src.mismatch(target.segment().asSlice(off, size)), "get data differs");
        assertEquals(0, ((CmaInterface) a).queued());
    }

    @Test
    void shouldScatterAndGatherAcrossIovEntries() {
        final MemorySegment x = arena.allocate(100);
        final MemorySegment y = arena.allocate(5000);
        final MemorySegment z = arena.allocate(3);
        pattern(x, 1);
        pattern(y, 2);
        pattern(z, 3);
        final IoVector iov = new IoVector(4).add(x, 10, 90).add(y, 0, 0).add(y, 1, 4999).add(z, 0, 3);
        assertEquals(Status.OK, ep.putZcopy(iov, target.address() + 7, rkey, null));
        final MemorySegment t = target.segment();
        assertEquals(-1L, x.asSlice(10, 90).mismatch(t.asSlice(7, 90)));
        assertEquals(-1L, y.asSlice(1, 4999).mismatch(t.asSlice(97, 4999)));
        assertEquals(-1L, z.mismatch(t.asSlice(5096, 3)));

        // gather in the other direction, with the queue path (chunks split entries) as well
        pattern(t.asSlice(0, 6000), 77);
        x.fill((byte) 0);
        y.fill((byte) 0);
        z.fill((byte) 0);
        assertEquals(Status.OK, ep.getZcopy(iov, target.address() + 7, rkey, null));
        assertEquals(-1L, x.asSlice(10, 90).mismatch(t.asSlice(7, 90)));
        assertEquals(-1L, y.asSlice(1, 4999).mismatch(t.asSlice(97, 4999)));
        assertEquals(-1L, z.mismatch(t.asSlice(5096, 3)));
    }

    @Test
    void shouldSplitLargeScatterIntoSegmentsFromProgress() {
        try (UctWorker w = new UctWorker()) {
            final Interface small = transport.openInterface(w, transport.devices().get(0),
                InterfaceParams.defaults().withConfig(Config.global().with("CMA_SEG_SIZE", "1000")));
            final Endpoint e = small.connect(b.deviceAddress(), b.interfaceAddress());
            final MemorySegment x = arena.allocate(2500);
            final MemorySegment y = arena.allocate(1700);
            pattern(x, 4);
            pattern(y, 5);
            final Completion c = new Completion();
            c.reset(1);
            final IoVector iov = new IoVector(2).add(x, 0, 2500).add(y, 0, 1700);
            assertEquals(Status.IN_PROGRESS, e.putZcopy(iov, target.address() + 1, rkey, c));
            assertEquals(0L, target.segment().get(ValueLayout.JAVA_BYTE, 1), "nothing moves before progress");
            int calls = 0;
            while (!c.isDone()) {
                small.progress();
                calls++;
                assertTrue(calls < 100, "no completion");
            }
            assertEquals(5, calls, "4200 bytes in 1000-byte segments take 5 progress calls");
            assertEquals(Status.OK, c.status());
            assertEquals(-1L, x.mismatch(target.segment().asSlice(1, 2500)));
            assertEquals(-1L, y.mismatch(target.segment().asSlice(2501, 1700)));
        }
    }

    @Test
    void shouldRejectOutOfRangeAndTouchNothing() {
        final MemoryHandle small = md.allocate(64);
        final RemoteKey k = md.unpackRkey(md.packRkey(small));
        small.segment().fill((byte) 0x5A);
        local.asSlice(0, 128).fill((byte) 1);
        final long base = small.address();
        assertEquals(Status.OUT_OF_RANGE, ep.putZcopy(IoVector.of(local, 0, 65), base, k, null));
        assertEquals(Status.OUT_OF_RANGE, ep.putZcopy(IoVector.of(local, 0, 1), base + 64, k, null));
        assertEquals(Status.OUT_OF_RANGE, ep.putZcopy(IoVector.of(local, 0, 8), base - 1, k, null));
        assertEquals(Status.OUT_OF_RANGE, ep.getZcopy(IoVector.of(local, 0, 8), base + 60, k, null));
        assertEquals(Status.OUT_OF_RANGE, ep.getZcopy(IoVector.of(local, 0, 8), Long.MAX_VALUE - 2, k, null));
        assertEquals(Status.OUT_OF_RANGE, ep.getZcopy(IoVector.of(local, 0, 8), Long.MIN_VALUE, k, null));
        final IoVector two = new IoVector(2).add(local, 0, 40).add(local, 0, 40);
        assertEquals(Status.OUT_OF_RANGE, ep.putZcopy(two, base, k, null), "the iov total counts");
        for (long i = 0; i < 64; i++) {
            assertEquals((byte) 0x5A, small.segment().get(ValueLayout.JAVA_BYTE, i), "target modified");
        }
        assertEquals((byte) 1, local.get(ValueLayout.JAVA_BYTE, 0), "local modified");
        assertEquals(Status.OK, ep.putZcopy(IoVector.of(local, 0, 64), base, k, null), "exact fit is allowed");
        assertTrue(a.counters().get(weft.ucs.stats.Counter.ERRORS) >= 7);
        md.deregister(small);
    }

    @Test
    void shouldRejectBadIovs() {
        final IoVector many = new IoVector(17);
        for (int i = 0; i < 17; i++) {
            many.add(local, i, 1);
        }
        assertEquals(Status.INVALID_PARAM, ep.putZcopy(many, target.address(), rkey, null));
        final MemorySegment heap = MemorySegment.ofArray(new byte[16]);
        assertEquals(Status.INVALID_PARAM, ep.getZcopy(IoVector.of(heap, 0, 16), target.address(), rkey, null));
    }

    @Test
    void shouldRejectBadRemoteKeys() {
        final byte[] good = md.packRkey(target);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
            () -> md.unpackRkey(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})).status());
        for (int n = 0; n < good.length; n++) {
            final byte[] cut = Arrays.copyOf(good, n);
            assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(cut)).status(),
                "truncated to " + n);
        }
        final byte[] longer = Arrays.copyOf(good, good.length + 1);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(longer)).status());
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(null)).status());
        // a key of another transport
        final Transport self = Transports.byName("self");
        final MemoryHandle sh = self.memoryDomain().allocate(64);
        try {
            final byte[] foreign = self.memoryDomain().packRkey(sh);
            final WeftException e = assertThrows(WeftException.class, () -> md.unpackRkey(foreign));
            assertEquals(Status.INVALID_RKEY, e.status());
            assertTrue(e.getMessage().contains("self"), e.getMessage());
        } finally {
            self.memoryDomain().deregister(sh);
        }
        // a wrapping region
        final byte[] wrap = RkeyCodec.pack("cma", java.nio.ByteBuffer.allocate(28).order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .putInt(LibC.getpid()).putLong(Long.MAX_VALUE - 4).putLong(100).putLong(1).array());
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(wrap)).status());
        final byte[] zeroPid = RkeyCodec.pack("cma", new byte[28]);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(zeroPid)).status());
    }

    @Test
    void shouldRejectKeysOfAnotherProcessOrClosedKeysAtAccess() {
        // a well-formed key naming another process than the endpoint's peer
        final byte[] other = RkeyCodec.pack("cma", java.nio.ByteBuffer.allocate(28)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(LibC.getpid() + 1).putLong(target.address())
            .putLong(64).putLong(1).array());
        final RemoteKey k = md.unpackRkey(other);
        assertEquals(Status.INVALID_RKEY, ep.getZcopy(IoVector.of(local, 0, 8), target.address(), k, null));
        final RemoteKey closed = md.unpackRkey(md.packRkey(target));
        closed.close();
        assertEquals(Status.INVALID_RKEY, ep.getZcopy(IoVector.of(local, 0, 8), target.address(), closed, null));
        assertEquals(Status.INVALID_RKEY, ep.getZcopy(IoVector.of(local, 0, 8), target.address(), null, null));
        assertThrows(WeftException.class, () -> rkey.ptr(target.address(), 8), "no rkey_ptr");
    }

    @Test
    void shouldOrderRemoteKeysTotally() {
        final List<RemoteKey> keys = new ArrayList<>();
        for (final int pid : new int[] {5, 7}) {
            for (final long base : new long[] {0x1000, 0x2000}) {
                for (final long len : new long[] {16, 32}) {
                    for (final long id : new long[] {1, 2}) {
                        keys.add(md.unpackRkey(RkeyCodec.pack("cma", java.nio.ByteBuffer.allocate(28)
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(pid).putLong(base).putLong(len)
                            .putLong(id).array())));
                    }
                }
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            for (int j = 0; j < keys.size(); j++) {
                assertEquals(Integer.compare(i, j), md.compareRkeys(keys.get(i), keys.get(j)), i + " vs " + j);
            }
        }
        assertEquals(0, md.compareRkeys(rkey, md.unpackRkey(md.packRkey(target))), "same key unpacked twice");
    }

    @Test
    void shouldAnswerRegistrationFromTheCache() {
        final MemorySegment mem = arena.allocate(4096, 64);
        final int before = md.cachedRegions();
        final long hits = md.cacheHits();
        final AbstractMemoryDomain.Handle<?> h1 = (AbstractMemoryDomain.Handle<?>) md.register(mem);
        final AbstractMemoryDomain.Handle<?> h2 = (AbstractMemoryDomain.Handle<?>) md.register(mem);
        final AbstractMemoryDomain.Handle<?> h3 = (AbstractMemoryDomain.Handle<?>) md.register(mem.asSlice(100, 200));
        assertEquals(h1.region().id(), h2.region().id());
        assertEquals(h1.region().id(), h3.region().id(), "a contained region is a hit");
        assertEquals(hits + 2, md.cacheHits());
        assertEquals(before + 1, md.cachedRegions());
        assertEquals(200, h3.length(), "the handle keeps the caller's range");
        final RemoteKey k3 = md.unpackRkey(md.packRkey(h3));
        assertEquals(mem.address() + 100, k3.base());
        assertEquals(200, k3.length(), "a key grants only what the caller registered");
        md.deregister(h1);
        md.deregister(h1); // idempotent
        md.deregister(h2);
        assertEquals(before + 1, md.cachedRegions(), "still referenced by h3");
        md.deregister(h3);
        assertEquals(before, md.cachedRegions());
        assertThrows(WeftException.class, () -> md.register(MemorySegment.ofArray(new byte[8])));
        final MemoryDomainAttributes attrs = md.attributes();
        assertTrue(attrs.has(MemoryDomainAttributes.REG | MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.NEED_RKEY));
        assertFalse(attrs.has(MemoryDomainAttributes.RKEY_PTR));
        assertEquals(md.packRkey(target).length, attrs.rkeyPackedSize());
    }

    @Test
    void shouldReportUnmappedPeerMemoryAsInvalidAddress() {
        final int fd = LibC.memfdCreate(arena.allocateFrom("weft-cma-test"), LibC.MFD_CLOEXEC);
        assertTrue(fd >= 0);
        try {
            assertEquals(0, LibC.ftruncate(fd, 8192));
            final long addr = LibC.mmap(0, 8192, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_SHARED, fd, 0);
            assertTrue(addr > 0);
            final MemoryHandle h = md.register(MemorySegment.ofAddress(addr).reinterpret(8192));
            final RemoteKey k = md.unpackRkey(md.packRkey(h));
            assertEquals(Status.OK, ep.getZcopy(IoVector.of(local, 0, 8192), addr, k, null));
            // unmap the second page only: a transfer across the boundary moves a part, then fails
            assertEquals(0, LibC.munmap(addr + 4096, 4096));
            local.asSlice(0, 8192).fill((byte) 0);
            h.segment().asSlice(0, 4096).fill((byte) 0x33);
            assertEquals(Status.INVALID_ADDRESS, ep.getZcopy(IoVector.of(local, 0, 8192), addr, k, null));
            assertEquals((byte) 0x33, local.get(ValueLayout.JAVA_BYTE, 4095), "the partial part did move");
            assertEquals(0, LibC.munmap(addr, 4096));
            assertEquals(Status.INVALID_ADDRESS, ep.getZcopy(IoVector.of(local, 0, 8), addr, k, null));
            assertEquals(Status.INVALID_ADDRESS, ep.putZcopy(IoVector.of(local, 0, 8), addr + 4096, k, null));
            assertEquals(Status.OK, ep.check(), "the endpoint survives");
            assertEquals(Status.OK, ep.getZcopy(IoVector.of(local, 0, 8), target.address(), rkey, null));
            md.deregister(h);
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldQueueWhenFullThenDispatchPending() {
        try (UctWorker w = new UctWorker()) {
            final Interface q = transport.openInterface(w, transport.devices().get(0), InterfaceParams.defaults()
                .withConfig(Config.global().with("CMA_SEG_SIZE", "4k").with("CMA_TX_QUEUE_LEN", "2")));
            final Endpoint e = q.connect(b.deviceAddress(), b.interfaceAddress());
            pattern(local.asSlice(0, 30_000), 9);
            final Completion c = new Completion();
            c.reset(2);
            assertEquals(Status.IN_PROGRESS, e.putZcopy(IoVector.of(local, 0, 10_000), target.address(), rkey, c));
            assertEquals(Status.IN_PROGRESS, e.putZcopy(IoVector.of(local, 10_000, 10_000), target.address() + 10_000,
                rkey, c));
            assertEquals(Status.NO_RESOURCE, e.putZcopy(IoVector.of(local, 0, 8), target.address(), rkey, null),
                "ring of 2 is full");
            assertEquals(Status.NO_RESOURCE, e.getZcopy(IoVector.of(local, 0, 8), target.address(), rkey, null),
                "even small ops queue behind large ones");
            assertEquals(Status.NO_RESOURCE, e.flush(Interface.FLUSH_LOCAL, new Completion()), "no room for a marker");
            final int[] dispatched = {0};
            final Completion c3 = new Completion();
            c3.reset(1);
            final PendingRequest r = new PendingRequest() {
                @Override
                public Status dispatch() {
                    dispatched[0]++;
                    return e.putZcopy(IoVector.of(local, 20_000, 10_000), target.address() + 20_000, rkey, c3);
                }
            };
            assertEquals(Status.OK, e.pendingAdd(r));
            assertEquals(Status.NO_RESOURCE, e.flush(Interface.FLUSH_LOCAL, null), "pending requests block flush");
            assertEquals(Status.OK, await(q, c));
            assertEquals(1, dispatched[0]);
            final Completion f = new Completion();
            f.reset(1);
            assertEquals(Status.IN_PROGRESS, e.flush(Interface.FLUSH_LOCAL, f));
            assertEquals(Status.OK, await(q, f));
            assertTrue(c3.isDone(), "flush completes after every earlier operation");
            assertEquals(-1L, local.asSlice(0, 30_000).mismatch(target.segment().asSlice(0, 30_000)));
            assertEquals(Status.OK, e.flush(Interface.FLUSH_LOCAL, null));
            assertEquals(Status.OK, q.flush(Interface.FLUSH_LOCAL, null));
        }
    }

    @Test
    void shouldCancelQueuedOperationsOnClose() {
        final Completion c = new Completion();
        c.reset(1);
        final Status[] seen = new Status[1];
        final Completion cb = new Completion(st -> seen[0] = st);
        cb.reset(1);
        target.segment().asSlice(0, 8 << 20).fill((byte) 0);
        pattern(local.asSlice(0, 8 << 20), 3);
        assertEquals(Status.IN_PROGRESS, ep.putZcopy(IoVector.of(local, 0, 8 << 20), target.address(), rkey, c));
        assertEquals(Status.IN_PROGRESS, ep.flush(Interface.FLUSH_LOCAL, cb));
        ep.close();
        assertTrue(c.isDone());
        assertEquals(Status.CANCELED, c.status());
        assertEquals(Status.CANCELED, seen[0]);
        assertEquals(0, a.progress(), "nothing left to do");
        assertEquals(0L, target.segment().get(ValueLayout.JAVA_LONG, 0), "a canceled queued put moved nothing");
        assertEquals(Status.CLOSED, ep.getZcopy(IoVector.of(local, 0, 8), target.address(), rkey, null));
    }

    @Test
    void shouldAdvertiseOnlyZcopyRma() {
        final long caps = a.attributes().flags();
        assertTrue(Capability.has(caps, Capability.PUT_ZCOPY | Capability.GET_ZCOPY | Capability.PENDING
            | Capability.CONNECT_TO_IFACE | Capability.EP_CHECK | Capability.ERRHANDLE_PEER_FAILURE));
        assertFalse(Capability.has(caps, Capability.AM_SHORT));
        assertFalse(Capability.has(caps, Capability.ATOMIC64));
        assertEquals(16, a.attributes().amMaxIov());
        assertEquals(Status.UNSUPPORTED, ep.amShort(0, 0, local, 0, 0));
        assertEquals(Status.UNSUPPORTED, ep.atomic64Post(AtomicOp.ADD, 1, target.address(), rkey));
        assertEquals(Status.UNSUPPORTED, ep.putShort(local, 0, 8, target.address(), rkey));
        assertEquals("cma/memory", a.device().toString());
        assertEquals(weft.uct.Device.Type.SHM, a.device().type());
        assertEquals(Status.OK, ep.check());
    }

    @Test
    void shouldJudgeReachabilityByBootIdPidNamespaceAndNetworkNamespace() {
        final byte[] dev = b.deviceAddress();
        final byte[] ifa = b.interfaceAddress();
        assertTrue(a.isReachable(dev, ifa));
        final byte[] otherBoot = dev.clone();
        otherBoot[0] ^= 1;
        assertFalse(a.isReachable(otherBoot, ifa));
        final byte[] otherNs = dev.clone();
        otherNs[20] ^= 1;
        assertFalse(a.isReachable(otherNs, ifa));
        final byte[] otherNetNs = dev.clone();
        otherNetNs[28] ^= 1; // a "host" emulated by a network namespace is another node, as for shm
        assertFalse(a.isReachable(otherNetNs, ifa));
        assertFalse(a.isReachable(Arrays.copyOf(dev, 10), ifa));
        assertFalse(a.isReachable(dev, new byte[3]));
        assertFalse(a.isReachable(null, ifa));
        assertEquals(Status.UNREACHABLE, assertThrows(WeftException.class, () -> a.connect(otherBoot, ifa)).status());
        assertArrayEquals(a.deviceAddress(), b.deviceAddress(), "same node, same namespace");
        assertEquals(LibC.getpid(), java.nio.ByteBuffer.wrap(ifa).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt());
    }

    @Test
    void shouldDetectADeadPeerWithCheck() {
        final List<Status> errors = new ArrayList<>();
        try (UctWorker w = new UctWorker()) {
            final Interface i = transport.openInterface(w, transport.devices().get(0),
                InterfaceParams.defaults().withErrorHandler((e, st) -> errors.add(st)));
            // a peer address with our pid but another start time: a recycled pid
            final byte[] ifa = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putInt(LibC.getpid()).putLong(transport.startTime() + 1).array();
            final Endpoint e = i.connect(i.deviceAddress(), ifa);
            assertEquals(Status.CONNECTION_RESET, e.check());
            assertTrue(errors.isEmpty(), "the handler runs from progress, not inside check()");
            i.progress();
            assertEquals(List.of(Status.CONNECTION_RESET), errors);
            assertEquals(Status.CONNECTION_RESET, e.putZcopy(IoVector.of(local, 0, 8), target.address(),
                md.unpackRkey(md.packRkey(target)), null));
            i.progress();
            assertEquals(1, errors.size(), "reported once");
        }
    }

    @Test
    void shouldReportForcedUnavailability() {
        final CmaTransport t = new CmaTransport(Config.fromMap(Map.of("WEFT_CMA_FORCE_UNAVAILABLE", "y")));
        assertTrue(t.devices().isEmpty());
        assertNotNull(t.unavailableReason());
        assertTrue(t.unavailableReason().contains("CMA_FORCE_UNAVAILABLE"), t.unavailableReason());
        try (UctWorker w = new UctWorker()) {
            final WeftException e = assertThrows(WeftException.class, () -> t.openInterface(w,
                new weft.uct.Device("cma", "memory", weft.uct.Device.Type.SHM), InterfaceParams.defaults()));
            assertEquals(Status.UNSUPPORTED, e.status());
            assertTrue(e.getMessage().contains("CMA_FORCE_UNAVAILABLE"), e.getMessage());
        }
        final CmaTransport bad = new CmaTransport(Config.fromMap(Map.of("WEFT_CMA_FORCE_UNAVAILABLE", "maybe")));
        assertTrue(bad.devices().isEmpty(), "a bad setting is reported, not thrown from devices()");
        assertTrue(bad.unavailableReason().contains("WEFT_CMA_FORCE_UNAVAILABLE"), bad.unavailableReason());
    }

    @Test
    void shouldApplyThePtraceScopePolicy() {
        assertNull(CmaProbe.checkPtraceScope(null, false), "no Yama: ordinary permission rules");
        assertNull(CmaProbe.checkPtraceScope("0\n", false));
        assertNull(CmaProbe.checkPtraceScope("2", true));
        assertTrue(CmaProbe.checkPtraceScope("2", false).contains("CAP_SYS_PTRACE"));
        assertTrue(CmaProbe.checkPtraceScope("3", true).contains("disabled"));
        assertNotNull(CmaProbe.checkPtraceScope("7", true));
        final String one = CmaProbe.checkPtraceScope("1", false);
        assertTrue(one == null || one.contains("PR_SET_PTRACER"), one);
        assertTrue(CmaProbe.hasCapSysPtrace(), "the test machine runs as root");
        assertNull(CmaProbe.selfTransfer());
    }

    @Test
    void shouldBeFoundByServiceLoader() {
        final Transport t = Transports.byName("cma");
        assertEquals("cma", t.name());
        assertEquals(3, t.configVars().size());
    }

    @Test
    void shouldNotLeakFileDescriptors() {
        final long before = CmaTestSupport.openFds();
        for (int round = 0; round < 3; round++) {
            try (UctWorker w = new UctWorker()) {
                final Interface i = transport.openInterface(w, transport.devices().get(0), InterfaceParams.defaults());
                final Endpoint e = i.connect(b.deviceAddress(), b.interfaceAddress());
                final Completion c = new Completion();
                c.reset(1);
                assertEquals(Status.OK, finish(i, e.putZcopy(IoVector.of(local, 0, 1 << 20), target.address(), rkey, c),
                    c));
                assertEquals(Status.OK, e.check());
                e.close();
            }
        }
        assertEquals(before, CmaTestSupport.openFds());
    }

    @Test
    @org.junit.jupiter.api.Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
    void shouldNotAllocateOnSmallGetsAndPuts() {
        final IoVector iov = new IoVector(1).add(local, 0, 8);
        final long remote = target.address() + 64;
        weft.uct.AllocationMeter.fewestBytes("20k 8-byte gets + puts", () -> {
            int bad = 0;
            for (int i = 0; i < 20_000; i++) {
                if (ep.getZcopy(iov, remote, rkey, null) != Status.OK) {
                    bad++;
                }
                if (ep.putZcopy(iov, remote, rkey, null) != Status.OK) {
                    bad++;
                }
            }
            assertEquals(0, bad);
        }, 400, 30_000);
    }
}
