package weft.uct.shm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AllocationMeter;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Revocation of shm keys ({@link ShmRegionDescriptor}): once the owner deregisters, every access through
 * a peer's key answers INVALID_RKEY and writes nothing, unpacking the old key fails, and the check costs
 * no allocation on the put/atomic paths.
 */
@Timeout(60)
class ShmRevocationTest {
    private final Transport shm = Transports.byName("shm");
    private final MemoryDomain md = shm.memoryDomain();
    private final Arena arena = Arena.ofShared();
    private UctWorker w1;
    private UctWorker w2;
    private Interface i1;
    private Interface i2;
    private Endpoint ep;

    @BeforeEach
    void setUp() {
        w1 = new UctWorker();
        w2 = new UctWorker();
        i1 = shm.openInterface(w1, shm.devices().getFirst(), InterfaceParams.defaults());
        i2 = shm.openInterface(w2, shm.devices().getFirst(), InterfaceParams.defaults());
        ep = i1.connect(i2.deviceAddress(), i2.interfaceAddress());
    }

    @AfterEach
    void tearDown() {
        ep.close();
        i1.close();
        i2.close();
        w1.close();
        w2.close();
        arena.close();
    }

    @Test
    void shouldFailEveryAccessThroughAKeyOnceTheOwnerDeregisters() {
        final MemoryHandle h = md.allocate(10_000);
        assertEquals(10_000, h.segment().byteSize(), "the trailer page is not part of the user's memory");
        final byte[] packed = md.packRkey(h);
        final RemoteKey k = md.unpackRkey(packed);
        final MemorySegment src = arena.allocate(8, 8);
        src.set(ValueLayout.JAVA_LONG, 0, 7);
        final long at = h.address() + 9_992;
        assertEquals(Status.OK, ep.putShort(src, 0, 8, at, k));
        assertEquals(7, h.segment().get(ValueLayout.JAVA_LONG, 9_992));
        final MemorySegment view = k.ptr(h.address(), 10_000); // the peer's own mapping of the file
        md.deregister(h);
        assertEquals(Status.INVALID_RKEY, ep.putShort(src, 0, 8, at, k));
        assertEquals(Status.INVALID_RKEY, ep.atomic64Post(AtomicOp.ADD, 1, at, k));
        final MemorySegment res = arena.allocate(8, 8);
        assertEquals(Status.INVALID_RKEY, ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, at, k, new Completion().reset(1)));
        assertEquals(7, view.get(ValueLayout.JAVA_LONG, 9_992), "nothing written after the revocation");
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> k.ptr(at, 8)).status());
        assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class, () -> md.unpackRkey(packed)).status());
        k.close();
    }

    @Test
    @Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
    void shouldCheckTheStateWordWithoutAllocating() {
        final MemoryHandle h = md.allocate(4096);
        final RemoteKey k = md.unpackRkey(md.packRkey(h));
        try {
            final MemorySegment src = arena.allocate(8, 8);
            final MemorySegment res = arena.allocate(8, 8);
            final Completion c = new Completion();
            final long at = h.address() + 64;
            final Runnable round = () -> {
                for (int i = 0; i < 10_000; i++) {
                    src.set(ValueLayout.JAVA_LONG, 0, i);
                    if (ep.putShort(src, 0, 8, at, k) != Status.OK
                        || ep.atomic64Post(AtomicOp.ADD, 1, at + 8, k) != Status.OK) {
                        throw new AssertionError("put or atomic failed");
                    }
                    c.reset(1);
                    final Status st = ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, at + 16, k, c);
                    if (st != Status.OK && st != Status.IN_PROGRESS) {
                        throw new AssertionError("fetch: " + st);
                    }
                }
            };
            AllocationMeter.fewestBytes("10k put + atomic post + atomic fetch", round, 256, 30_000);
            assertEquals(9_999, h.segment().get(ValueLayout.JAVA_LONG, 64));
        } finally {
            k.close();
            md.deregister(h);
        }
    }
}
