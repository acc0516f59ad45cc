package weft.uct.tcp;

import weft.uct.AbstractMemoryDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * Symmetric keys and the registration cache of the tcp memory domain: what a symmetric key carries (no
 * per-process randomness), that a revoked key never reaches a newer region, that registering the same
 * memory again is a cache lookup, and malformed keys. Equality across processes is shown by
 * {@code weft.ucp.SymmetricRkeyAcrossProcessesTest}.
 */
@Timeout(60)
class TcpSymmetricKeyTest {
    private final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
    private final Arena arena = Arena.ofShared();
    private UctWorker w1;
    private UctWorker w2;
    private Interface a;
    private Interface b;
    private Endpoint ep;

    @BeforeEach
    void setUp() {
        w1 = new UctWorker();
        w2 = new UctWorker();
        a = TcpTestSupport.open(w1);
        b = TcpTestSupport.open(w2);
        ep = a.connect(b.deviceAddress(), b.interfaceAddress());
    }

    @AfterEach
    void tearDown() {
        w1.close();
        w2.close();
        arena.close();
    }

    private static ByteBuffer body(final byte[] packed) {
        return RkeyCodec.open("tcp", packed);
    }

    private Status put8(final long value, final long address, final RemoteKey k) {
        final MemorySegment src = arena.allocate(8, 8);
        src.set(ValueLayout.JAVA_LONG, 0, value);
        final Completion c = new Completion().reset(1);
        final Status st = ep.putZcopy(IoVector.of(src, 0, 8), address, k, c);
        if (st != Status.IN_PROGRESS) {
            return st;
        }
        progressUntil(c::isDone, 20000, "put", a, b);
        return c.status();
    }

    @Test
    void shouldPackSymmetricKeysFromJobAndLayoutOnlyAndPrivateKeysWithTheIncarnation() {
        assertTrue(md.attributes().has(MemoryDomainAttributes.SYMMETRIC_RKEY), "tcp keys can be symmetric");
        final MemorySegment seg = arena.allocate(8192, 4096);
        final MemoryHandle sym = md.register(seg, MemoryDomain.REG_SYMMETRIC);
        final MemoryHandle priv = md.register(seg);
        try {
            final ByteBuffer s = body(md.packRkey(sym));
            assertEquals(TcpMemoryDomain.SYMMETRIC_STAMP, s.getLong(0));
            assertEquals(0, s.getLong(0) & 1, "symmetric stamp is even, never an incarnation");
            assertTrue(s.getLong(8) < 0, "symmetric ids have the top bit");
            assertEquals(seg.address(), s.getLong(16));
            assertEquals(8192, s.getLong(24));
            final ByteBuffer p = body(md.packRkey(priv));
            assertEquals(TcpMemoryDomain.INCARNATION, p.getLong(0));
            assertTrue(p.getLong(8) >= 0);
            assertNotSame(((AbstractMemoryDomain.Handle<?>) sym).region(), ((AbstractMemoryDomain.Handle<?>) priv).region(),
                "a private registration never answers a symmetric one (or the reverse)");
            // the stamp is a function of the job id only
            assertEquals(TcpMemoryDomain.symmetricStamp("job-7"), TcpMemoryDomain.symmetricStamp("job-7"));
            assertNotEquals(TcpMemoryDomain.symmetricStamp("job-7"), TcpMemoryDomain.symmetricStamp("job-8"));
            assertEquals(0, TcpMemoryDomain.symmetricStamp(null) & 1);
            // both serve
            assertEquals(Status.OK, put8(41, seg.address(), md.unpackRkey(md.packRkey(sym))));
            assertEquals(Status.OK, put8(42, seg.address() + 8, md.unpackRkey(md.packRkey(priv))));
            assertEquals(41, seg.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(42, seg.get(ValueLayout.JAVA_LONG, 8));
        } finally {
            md.deregister(sym);
            md.deregister(priv);
        }
    }

    @Test
    void shouldNeverLetARevokedSymmetricKeyReachANewerRegionAtTheSameAddress() {
        final MemorySegment seg = arena.allocate(4096, 4096);
        final MemoryHandle first = md.register(seg, MemoryDomain.REG_SYMMETRIC);
        final byte[] k1 = md.packRkey(first);
        final RemoteKey old = md.unpackRkey(k1);
        assertEquals(Status.OK, put8(1, seg.address(), old));
        md.deregister(first);
        assertEquals(Status.INVALID_RKEY, put8(2, seg.address(), old), "key of an unmapped region");
        final MemoryHandle second = md.register(seg, MemoryDomain.REG_SYMMETRIC);
        try {
            final byte[] k2 = md.packRkey(second);
            assertFalse(Arrays.equals(k1, k2), "the same layout registered again gets a new sequence number");
            assertEquals(Status.INVALID_RKEY, put8(3, seg.address(), old), "old key, newer region at the same address");
            assertEquals(1, seg.get(ValueLayout.JAVA_LONG, 0), "nothing written through the revoked key");
            assertEquals(Status.OK, put8(4, seg.address(), md.unpackRkey(k2)));
            assertEquals(4, seg.get(ValueLayout.JAVA_LONG, 0));
        } finally {
            md.deregister(second);
        }
    }

    @Test
    void shouldAnswerRegistrationsOfRegisteredMemoryFromTheCache() {
        final TcpMemoryDomain tmd = (TcpMemoryDomain) md;
        final MemorySegment seg = arena.allocate(1 << 16, 4096);
        final long hits = tmd.cacheHits();
        final MemoryHandle h1 = md.register(seg);
        final MemoryHandle h2 = md.register(seg);
        final MemoryHandle sub = md.register(seg.asSlice(4096, 100));
        assertEquals(hits + 2, tmd.cacheHits(), "same memory and a range inside it: lookups");
        assertSame(((AbstractMemoryDomain.Handle<?>) h1).region(), ((AbstractMemoryDomain.Handle<?>) h2).region());
        assertSame(((AbstractMemoryDomain.Handle<?>) h1).region(), ((AbstractMemoryDomain.Handle<?>) sub).region());
        // the sub-range key carries the caller's range: the initiator confines it
        final RemoteKey subKey = md.unpackRkey(md.packRkey(sub));
        assertEquals(seg.address() + 4096, subKey.base());
        assertEquals(100, subKey.length());
        assertEquals(Status.OUT_OF_RANGE, put8(5, seg.address(), subKey));
        final RemoteKey k1 = md.unpackRkey(md.packRkey(h1));
        md.deregister(h1);
        assertEquals(Status.OK, put8(6, seg.address(), k1), "still registered by h2 and sub");
        md.deregister(h2);
        md.deregister(sub);
        md.deregister(sub); // idempotent
        assertEquals(Status.INVALID_RKEY, put8(7, seg.address(), k1), "last reference gone: revoked");
        assertEquals(6, seg.get(ValueLayout.JAVA_LONG, 0));
        // memory allocate() owns is cached too, and its registrations die with it
        final MemoryHandle owned = md.allocate(8192);
        final MemoryHandle inside = md.register(owned.segment().asSlice(0, 64));
        assertSame(((AbstractMemoryDomain.Handle<?>) owned).region(), ((AbstractMemoryDomain.Handle<?>) inside).region());
        final RemoteKey insideKey = md.unpackRkey(md.packRkey(inside));
        md.deregister(owned);
        assertEquals(Status.INVALID_RKEY, put8(8, insideKey.base(), insideKey), "freed memory is revoked at once");
        md.deregister(inside);
    }

    @Test
    @org.junit.jupiter.api.Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
    void shouldServeSymmetricKeysWithoutAllocating() {
        final MemorySegment seg = arena.allocate(4096, 4096);
        final MemoryHandle h = md.register(seg, MemoryDomain.REG_SYMMETRIC);
        // a few more symmetric regions, so that the target's lookup probes a real table
        final MemoryHandle[] more = new MemoryHandle[5];
        for (int i = 0; i < more.length; i++) {
            more[i] = md.register(arena.allocate(4096, 4096), MemoryDomain.REG_SYMMETRIC);
        }
        try {
            final RemoteKey k = md.unpackRkey(md.packRkey(h));
            final MemorySegment src = arena.allocate(8, 8);
            final MemorySegment res = arena.allocate(8, 8);
            final Completion c = new Completion();
            final Runnable round = () -> {
                for (int i = 0; i < 10_000; i++) {
                    src.set(ValueLayout.JAVA_LONG, 0, i);
                    while (ep.putShort(src, 0, 8, seg.address(), k) == Status.NO_RESOURCE) {
                        a.progress();
                        b.progress();
                    }
                    c.reset(1);
                    Status st;
                    while ((st = ep.atomic64Fetch(weft.uct.AtomicOp.ADD, 1, res, 0, seg.address() + 8, k, c))
                        == Status.NO_RESOURCE) {
                        a.progress();
                        b.progress();
                    }
                    long spins = 0;
                    while (st == Status.IN_PROGRESS && !c.isDone()) {
                        a.progress();
                        b.progress();
                        if (++spins > 50_000_000L) {
                            throw new AssertionError("fetch did not complete");
                        }
                    }
                }
            };
            // a steady per-operation allocation shows in every window, a one-off JIT transient (1240 bytes once
            // in a full suite run) in one
            weft.uct.AllocationMeter.fewestBytes("10k symmetric-key puts + fetching atomics", round, 256, 30_000);
            assertEquals(9_999, seg.get(ValueLayout.JAVA_LONG, 0));
        } finally {
            md.deregister(h);
            for (final MemoryHandle m : more) {
                md.deregister(m);
            }
        }
    }

    @Test
    void shouldRejectMalformedKeys() {
        final byte[] odd = RkeyCodec.pack("tcp", ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(TcpMemoryDomain.SYMMETRIC_STAMP).putLong(5).putLong(4096).putLong(8).array());
        final WeftException e = assertThrows(WeftException.class, () -> md.unpackRkey(odd));
        assertEquals(Status.INVALID_RKEY, e.status());
        assertTrue(e.getMessage().contains("stamp"), e.getMessage());
        final byte[] zero = RkeyCodec.pack("tcp", new byte[32]);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(zero)).status());
        final byte[] shortBody = RkeyCodec.pack("tcp", new byte[24]);
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(shortBody)).status());
        // a well-formed symmetric key naming no region: the target says INVALID_RKEY, touches nothing
        final MemorySegment seg = arena.allocate(64, 64);
        final RemoteKey none = md.unpackRkey(RkeyCodec.pack("tcp", ByteBuffer.allocate(32)
            .order(ByteOrder.LITTLE_ENDIAN).putLong(TcpMemoryDomain.SYMMETRIC_STAMP).putLong(Long.MIN_VALUE | 77L << 32)
            .putLong(seg.address()).putLong(64).array()));
        assertEquals(Status.INVALID_RKEY, put8(9, seg.address(), none));
        assertEquals(0, seg.get(ValueLayout.JAVA_LONG, 0));
    }
}
