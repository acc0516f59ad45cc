package org.openucx.jucx.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucs.UcsConstants;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parts of JUCX's API {@link JucxApiTest} reaches only indirectly: the two non-blocking endpoint closes,
 * {@code waitForEvents}, active-message data handles and flags taken outside the handler, exported memory
 * (refused), and the parameters Weft records rather than acts on.
 */
@Timeout(120)
class JucxApiSurfaceTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void closeFlushDeliversWhatWasSentAndForceFailsWhatIsPending(final String tls) {
        try (Pair p = new Pair(tls)) {
            final long[] sizes = {8, 4096};
            final MemorySegment src = p.alloc(4096);
            Pair.fill(src, 4096, 3);
            for (final long n : sizes) {
                p.ab.sendTaggedNonBlocking(src.address(), n, 0x100 + n, null); // no receive posted yet
            }
            final UcpRequest closed = p.ab.closeNonBlockingFlush();
            p.await(closed);
            assertEquals(UcsConstants.STATUS.UCS_OK, closed.getStatus(), "flush close");
            for (final long n : sizes) { // sent before the close: they arrive
                final MemorySegment dst = p.alloc(n);
                final UcpRequest r = p.b.recvTaggedNonBlocking(dst.address(), n, 0x100 + n, -1L, null);
                p.await(r);
                assertEquals(n, r.getRecvSize());
                Pair.check(dst, n, 3, "sent before a flush close, " + n + " B over " + tls);
            }
            // force: a rendezvous send the peer never receives is failed by the close, through its callback
            final long big = 1 << 20;
            final MemorySegment large = p.alloc(big);
            final AtomicInteger errors = new AtomicInteger();
            final UcpRequest pending = p.ba.sendTaggedNonBlocking(large.address(), big, 0x9999, new UcxCallback() {
                @Override
                public void onError(final int ucsStatus, final String errorMsg) {
                    errors.incrementAndGet();
                }
            });
            p.progress();
            assertFalse(pending.isCompleted(), "the rendezvous waits for a receive");
            final UcpRequest forced = p.ba.closeNonBlockingForce();
            p.await(forced);
            p.await(pending);
            assertNotEquals(UcsConstants.STATUS.UCS_OK, pending.getStatus(), "the pending send failed");
            assertEquals(1, errors.get(), "its error callback ran once");
            assertThrows(UcxException.class, () -> p.ba.sendTaggedNonBlocking(src.address(), 8, 1, null),
                "a closed endpoint refuses sends");
        }
    }

    @Test
    void waitForEventsReturnsOnAMessageAndOnASignalFromAnotherThread() throws Exception {
        try (Pair p = new Pair("shm,self")) {
            final MemorySegment m = p.alloc(8);
            final UcpRequest r = p.b.recvTaggedNonBlocking(m.address(), 8, 5, -1L, null);
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final CountDownLatch woke = new CountDownLatch(1);
            final Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    while (!r.isCompleted()) { // as JUCX's progress-thread idiom: sleep, then progress
                        p.b.waitForEvents();
                        p.b.progress();
                    }
                    woke.countDown();
                    p.b.waitForEvents(); // nothing arrives: only the signal below wakes it
                } catch (final Throwable t) {
                    failed.set(t);
                }
            });
            p.ab.sendTaggedNonBlocking(m.address(), 8, 5, null);
            p.a.progress();
            assertTrue(woke.await(Pair.WAIT_NS, TimeUnit.NANOSECONDS), "a message wakes waitForEvents");
            assertEquals(UcsConstants.STATUS.UCS_OK, r.getStatus());
            final long deadline = System.nanoTime() + Pair.WAIT_NS;
            while (waiter.isAlive() && System.nanoTime() < deadline) {
                p.b.signal(); // repeated: the waiter may not have gone to sleep yet when one lands
                waiter.join(10);
            }
            assertFalse(waiter.isAlive(), "signal() from another thread wakes waitForEvents");
            if (failed.get() != null) {
                throw new AssertionError("the waiting thread failed", failed.get());
            }
        }
    }

    @Test
    void activeMessageDataHandlesAndFlagsOutsideTheHandler() {
        try (Pair p = new Pair("shm,self")) {
            final long big = 200_000;
            final MemorySegment data = p.alloc(big);
            Pair.fill(data, big, 9);
            final AtomicReference<UcpAmData> eager = new AtomicReference<>();
            final AtomicReference<UcpAmData> rndv = new AtomicReference<>();
            p.b.setAmRecvHandler(4, (hAddr, hLen, amData, replyEp) -> {
                if (amData.isDataValid()) {
                    eager.set(amData);
                } else {
                    rndv.set(amData);
                }
                return UcsConstants.STATUS.UCS_INPROGRESS; // both kept for a receive after the handler
            }, UcpConstants.UCP_AM_FLAG_PERSISTENT_DATA);
            p.await(p.ab.sendAmNonBlocking(4, 0, 0, data.address(), 64, 0, null));
            final UcpRequest s = p.ab.sendAmNonBlocking(4, 0, 0, data.address(), big, UcpConstants.UCP_AM_SEND_FLAG_RNDV,
                null);
            p.until(() -> eager.get() != null && rndv.get() != null, "both messages reach the handler");
            assertTrue((eager.get().getFlags() & UcpConstants.UCP_AM_RECV_ATTR_FLAG_DATA) != 0, "eager: DATA flag");
            assertEquals(0, eager.get().getFlags() & UcpConstants.UCP_AM_RECV_ATTR_FLAG_RNDV);
            assertTrue((rndv.get().getFlags() & UcpConstants.UCP_AM_RECV_ATTR_FLAG_RNDV) != 0, "rendezvous: RNDV flag");
            assertEquals(big, rndv.get().getLength());
            assertNotEquals(eager.get().getDataHandle(), rndv.get().getDataHandle());
            // a memory type Weft cannot move is refused before the handle is used
            assertEquals(UcsConstants.STATUS.UCS_ERR_UNSUPPORTED, assertThrows(UcxException.class,
                () -> p.b.recvAmDataNonBlocking(rndv.get().getDataHandle(), 0, big, null,
                    UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_CUDA)).getStatus());
            final MemorySegment into = p.alloc(big);
            final AtomicReference<UcpRequest> done = new AtomicReference<>();
            final UcpRequest r = p.b.recvAmDataNonBlocking(rndv.get().getDataHandle(), into.address(), big,
                new UcxCallback() {
                    @Override
                    public void onSuccess(final UcpRequest request) {
                        done.set(request);
                    }
                }, UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST);
            p.until(() -> done.get() != null && s.isCompleted(), "the rendezvous data, received by its handle");
            assertSame(r, done.get());
            assertEquals(big, r.getRecvSize());
            Pair.check(into, big, 9, "rendezvous AM received after its handler");
            assertEquals(UcsConstants.STATUS.UCS_ERR_INVALID_PARAM, assertThrows(UcxException.class,
                () -> p.b.recvAmDataNonBlocking(rndv.get().getDataHandle(), into.address(), big, null,
                    UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST)).getStatus(), "a handle is received once");
            Pair.check(MemorySegment.ofAddress(eager.get().getDataAddress()).reinterpret(64), 64, 9, "kept eager data");
            eager.get().close(); // releases the kept eager data
            assertThrows(UcxException.class, () -> p.b.amDataRelease(eager.get().getDataHandle()), "released once");
        }
    }

    @Test
    void exportedMemoryIsRefusedAsUnsupported() {
        try (UcpContext ctx = new UcpContext(new UcpParams().requestRmaFeature())) {
            final UcpMemory mem = ctx.memoryMap(new UcpMemMapParams().allocate().setLength(4096));
            assertEquals(UcsConstants.STATUS.UCS_ERR_UNSUPPORTED,
                assertThrows(UcxException.class, mem::getExportedMkeyBuffer).getStatus());
            assertEquals(UcsConstants.STATUS.UCS_ERR_UNSUPPORTED, assertThrows(UcxException.class,
                () -> ctx.memoryMap(new UcpMemMapParams().setAddress(mem.getAddress()).setLength(4096)
                    .setExportedMemh(mem.getAddress()))).getStatus());
            assertNotNull(new UcpMemPackParams().exported());
            mem.deregister();
        }
    }

    @Test
    void recordedParametersAreAcceptedAndTheObjectsWork() throws Exception {
        final UcpParams params = new UcpParams().requestTagFeature().requestAtomic32BitFeature()
            .setTagSenderMask(0xFFFF_0000_0000_0000L).setMtWorkersShared(true).setEstimatedNumEps(4);
        try (UcpContext ctx = new UcpContext(params);
             UcpWorker w = ctx.newWorker(new UcpWorkerParams().setCpu(0).setUserData(ByteBuffer.allocateDirect(8))
                 .requestWakeupRMA().requestWakeupAMO().requestWakeupTagSend().requestWakeupTagRecv()
                 .requestWakeupTX().requestWakeupRX().requestWakeupEdge())) {
            assertThrows(UcxException.class, () -> new UcpWorkerParams().setCpu(-1), "a negative CPU");
            final UcpEndpoint self = w.newEndpoint(new UcpEndpointParams().setUcpAddress(w.getAddress()));
            final ByteBuffer out = ByteBuffer.allocateDirect(8).putLong(0, 77L);
            final ByteBuffer in = ByteBuffer.allocateDirect(8);
            final UcpRequest r = w.recvTaggedNonBlocking(in, null);
            self.sendTaggedNonBlocking(out, null);
            final long deadline = System.nanoTime() + Pair.WAIT_NS;
            while (!r.isCompleted() && System.nanoTime() < deadline) {
                w.progress();
            }
            assertEquals(77L, in.getLong(0), "a worker made with every recorded parameter works");
            self.close();
        }
        final InetSocketAddress at = new InetSocketAddress("127.0.0.1", 0);
        assertSame(at, new UcpListenerParams().setSockAddr(at).getSockAddr());
        final UcpEndpointParams ep = new UcpEndpointParams();
        assertSame(ep, ep.setLocalSocketAddress(at), "recorded (not applied: see its doc)");
        final UcpMemMapParams mm = new UcpMemMapParams().allocate().setLength(64).nonBlocking()
            .setProtection(UcpConstants.UCP_MEM_MAP_PROT_LOCAL_READ | UcpConstants.UCP_MEM_MAP_PROT_REMOTE_READ);
        try (UcpContext ctx = new UcpContext(new UcpParams().requestRmaFeature())) {
            final UcpMemory mem = ctx.memoryMap(mm);
            assertEquals(64, mem.getLength());
            mem.deregister();
        }
    }
}
