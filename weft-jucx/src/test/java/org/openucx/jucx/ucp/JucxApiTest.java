package org.openucx.jucx.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucs.UcsConstants;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JUCX's API on Weft, two workers of one JVM, over shm, tcp and the default transports. */
@Timeout(120)
class JucxApiTest {
    private static final long[] SIZES = {0, 1, 8, 4096, 70_000, 3 << 20};

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self", "default"})
    void tagSendReceiveEverySizeBeforeAndAfter(final String tls) {
        try (Pair p = new Pair(tls.equals("default") ? null : tls)) {
            for (final long n : SIZES) {
                final MemorySegment src = p.alloc(n);
                final MemorySegment dst = p.alloc(n);
                Pair.fill(src, n, (int) n);
                // receive posted first, then sent
                final UcpRequest r = p.b.recvTaggedNonBlocking(dst.address(), n, 0x10 + n, -1L, null);
                final UcpRequest s = p.ab.sendTaggedNonBlocking(src.address(), n, 0x10 + n, null);
                p.await(s);
                p.await(r);
                assertEquals(UcsConstants.STATUS.UCS_OK, r.getStatus());
                assertEquals(n, r.getRecvSize(), "received size");
                assertEquals(0x10 + n, r.getSenderTag(), "sender tag");
                Pair.check(dst, n, (int) n, "tag " + n + " over " + tls);
                // sent first, then received (unexpected), with a callback
                dst.fill((byte) 0);
                final AtomicReference<UcpRequest> done = new AtomicReference<>();
                final UcpRequest s2 = p.ab.sendTaggedNonBlocking(src.address(), n, 0x7000, null);
                p.until(() -> p.b.tagProbeNonBlocking(0x7000, -1L, false) != null || s2.isCompleted() && n > 65536,
                    "message arrives");
                final UcpRequest r2 = p.b.recvTaggedNonBlocking(dst.address(), n, 0x7000, -1L, new UcxCallback() {
                    @Override
                    public void onSuccess(final UcpRequest request) {
                        done.set(request);
                    }
                });
                p.until(() -> done.get() != null, "callback");
                p.await(s2);
                assertSame(r2, done.get(), "the callback gets the request");
                assertEquals(n, r2.getRecvSize());
                Pair.check(dst, n, (int) n, "unexpected tag " + n);
            }
        }
    }

    @Test
    void byteBufferIovProbeCancelTruncation() {
        try (Pair p = new Pair("shm,self")) {
            final ByteBuffer out = ByteBuffer.allocateDirect(100);
            for (int i = 0; i < 100; i++) {
                out.put(i, (byte) i);
            }
            final ByteBuffer in = ByteBuffer.allocateDirect(100);
            final UcpRequest r = p.b.recvTaggedNonBlocking(in, null);
            p.await(p.ab.sendTaggedNonBlocking(out, null));
            p.await(r);
            assertEquals(100, r.getRecvSize());
            assertEquals(0, in.compareTo(out), "ByteBuffer variants, tag 0 and any tag");
            // scatter/gather: three pieces sent, two received
            final MemorySegment src = p.alloc(300);
            Pair.fill(src, 300, 5);
            final MemorySegment d1 = p.alloc(120);
            final MemorySegment d2 = p.alloc(180);
            final UcpRequest ri = p.b.recvTaggedNonBlocking(new long[] {d1.address(), d2.address()},
                new long[] {120, 180}, 9, -1L, null);
            p.await(p.ab.sendTaggedNonBlocking(new long[] {src.address(), src.address() + 100, src.address() + 250},
                new long[] {100, 150, 50}, 9, null));
            p.await(ri);
            final MemorySegment joined = p.alloc(300);
            MemorySegment.copy(d1, 0, joined, 0, 120);
            MemorySegment.copy(d2, 0, joined, 120, 180);
            Pair.check(joined, 300, 5, "iov");
            // probe with remove, then receive the message
            p.await(p.ab.sendTaggedNonBlocking(src.address(), 64, 0x55, null));
            final AtomicReference<UcpTagMessage> m = new AtomicReference<>();
            p.until(() -> {
                m.set(p.b.tagProbeNonBlocking(0x55, -1L, true));
                return m.get() != null;
            }, "probe");
            assertEquals(64, m.get().getRecvLength());
            assertEquals(0x55, m.get().getSenderTag());
            final MemorySegment got = p.alloc(64);
            final UcpRequest rm = p.b.recvTaggedMessageNonBlocking(got.address(), 64, m.get(), null);
            p.await(rm);
            Pair.check(got, 64, 5, "probed message");
            // cancel a receive nothing matches
            final AtomicInteger err = new AtomicInteger();
            final UcpRequest rc = p.b.recvTaggedNonBlocking(got.address(), 64, 0x99, -1L, new UcxCallback() {
                @Override
                public void onError(final int ucsStatus, final String errorMsg) {
                    err.set(ucsStatus);
                }
            });
            assertFalse(rc.isCompleted());
            p.b.cancelRequest(rc);
            p.await(rc);
            assertEquals(UcsConstants.STATUS.UCS_ERR_CANCELED, rc.getStatus());
            assertEquals(UcsConstants.STATUS.UCS_ERR_CANCELED, err.get(), "onError got the code");
            // truncation: 64 bytes into 16
            final UcpRequest rt = p.b.recvTaggedNonBlocking(got.address(), 16, 0x77, -1L, null);
            p.await(p.ab.sendTaggedNonBlocking(src.address(), 64, 0x77, null));
            p.await(rt);
            assertEquals(UcsConstants.STATUS.UCS_ERR_MESSAGE_TRUNCATED, rt.getStatus());
            // host memory only
            assertEquals(UcsConstants.STATUS.UCS_ERR_UNSUPPORTED, assertThrows(UcxException.class,
                () -> p.ab.sendTaggedNonBlocking(src.address(), 8, 1, null,
                    UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_CUDA)).getStatus());
            assertTrue(UcsConstants.MEMORY_TYPE.isMemTypeSupported(p.context.getMemoryTypesMask(),
                UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST));
            assertFalse(UcsConstants.MEMORY_TYPE.isMemTypeSupported(p.context.getMemoryTypesMask(),
                UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_CUDA));
        }
    }

    @Test
    void streamsWithScatterGatherAndWaitAll() {
        try (Pair p = new Pair("tcp,self")) {
            final MemorySegment src = p.alloc(1000);
            Pair.fill(src, 1000, 3);
            final MemorySegment d = p.alloc(1000);
            final UcpRequest r = p.ba.recvStreamNonBlocking(new long[] {d.address(), d.address() + 400},
                new long[] {400, 600}, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
            p.await(p.ab.sendStreamNonBlocking(new long[] {src.address(), src.address() + 10},
                new long[] {10, 490}, null));
            p.await(p.ab.sendStreamNonBlocking(src.address() + 500, 500, null));
            p.await(r);
            assertEquals(1000, r.getRecvSize());
            Pair.check(d, 1000, 3, "stream iov");
            final ByteBuffer bb = ByteBuffer.allocateDirect(8);
            final UcpRequest r2 = p.ba.recvStreamNonBlocking(bb, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
            p.await(p.ab.sendStreamNonBlocking(UcxUtils.getByteBufferView(src.address(), 8), null));
            p.await(r2);
            assertEquals(8, r2.getRecvSize());
            assertEquals(src.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), bb.order(java.nio.ByteOrder.nativeOrder()).getLong(0));
        }
    }

    @Test
    void activeMessagesEagerRendezvousReplyAndPersistentData() {
        try (Pair p = new Pair("shm,self")) {
            final MemorySegment hdr = p.alloc(16);
            hdr.set(ValueLayout.JAVA_LONG, 0, 0xABCDL);
            final long big = 1 << 20;
            final MemorySegment data = p.alloc(big);
            Pair.fill(data, big, 7);
            final MemorySegment into = p.alloc(big);
            final AtomicReference<UcpAmData> kept = new AtomicReference<>();
            final AtomicInteger calls = new AtomicInteger();
            final AtomicReference<UcpRequest> rndv = new AtomicReference<>();
            assertTrue(p.b.getMaxAmHeaderSize() >= 64, "max AM header " + p.b.getMaxAmHeaderSize());
            p.b.setAmRecvHandler(3, (hAddr, hLen, amData, replyEp) -> {
                calls.incrementAndGet();
                assertEquals(16, hLen);
                assertEquals(0xABCDL, MemorySegment.ofAddress(hAddr).reinterpret(16).get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
                if (!amData.isDataValid()) {
                    assertNotNull(replyEp, "SEND_FLAG_REPLY gives a reply endpoint");
                    rndv.set(amData.receive(into.address(), null));
                    return UcsConstants.STATUS.UCS_OK;
                }
                if (amData.getLength() == 100) {
                    assertTrue(amData.canPersist(), "persistent data flag");
                    kept.set(amData);
                    return UcsConstants.STATUS.UCS_INPROGRESS;
                }
                Pair.check(MemorySegment.ofAddress(amData.getDataAddress()).reinterpret(amData.getLength()),
                    amData.getLength(), 7, "eager AM");
                return UcsConstants.STATUS.UCS_OK;
            }, UcpConstants.UCP_AM_FLAG_PERSISTENT_DATA | UcpConstants.UCP_AM_FLAG_WHOLE_MSG);
            p.await(p.ab.sendAmNonBlocking(3, hdr.address(), 16, data.address(), 50, 0, null));
            p.await(p.ab.sendAmNonBlocking(3, hdr.address(), 16, data.address(), 100, 0, null));
            final UcpRequest s = p.ab.sendAmNonBlocking(3, hdr.address(), 16, data.address(), big,
                UcpConstants.UCP_AM_SEND_FLAG_RNDV | UcpConstants.UCP_AM_SEND_FLAG_REPLY, null);
            p.until(() -> rndv.get() != null && rndv.get().isCompleted() && s.isCompleted(), "rendezvous AM");
            assertEquals(3, calls.get());
            assertEquals(UcsConstants.STATUS.UCS_OK, rndv.get().getStatus());
            Pair.check(into, big, 7, "rendezvous AM data");
            // the kept message is still valid after its handler, until released
            final UcpAmData k = kept.get();
            Pair.check(MemorySegment.ofAddress(k.getDataAddress()).reinterpret(100), 100, 7, "kept AM data");
            p.b.amDataRelease(k.getDataAddress());
            assertThrows(UcxException.class, () -> p.b.amDataRelease(k.getDataAddress()), "released twice");
            p.b.removeAmRecvHandler(3);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self", "shm,cma,self,tcp"})
    void memoryMapOfAnAddressRegistersTheCallersMemoryInPlace(final String tls) throws Exception {
        try (Pair p = new Pair(tls)) {
            final long n = 3 * 4096 + 100; // not page sized: registration, not an allocation over the caller's pages
            final MemorySegment mine = p.alloc(n);
            Pair.fill(mine, n, 21);
            final UcpMemory mem = p.context.memoryMap(new UcpMemMapParams().setAddress(mine.address()).setLength(n));
            assertEquals(mine.address(), mem.getAddress(), "registered where the caller's memory is");
            assertEquals(n, mem.getLength());
            Pair.check(mine, n, 21, "the caller's data survives its registration");
            final UcpRemoteKey rk = p.ab.unpackRemoteKey(mem.getRemoteKeyBuffer());
            final MemorySegment back = p.alloc(n);
            p.await(p.ab.getNonBlocking(mem.getAddress(), rk, back.address(), n, null));
            Pair.check(back, n, 21, "get of memory registered by memoryMap over " + tls);
            rk.close();
            mem.deregister();
            Pair.check(mine, n, 21, "the caller's memory stays after deregistration");
            assertThrows(UcxException.class, () -> p.context.memoryMap(new UcpMemMapParams().setLength(n)),
                "registration without an address");
            assertThrows(UcxException.class, () -> p.context.memoryMap(new UcpMemMapParams()
                .setAddress(mine.address()).setLength(n).fixed()), "fixed without allocate");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self", "shm,cma,self,tcp"})
    void putGetWithCallbacksImplicitAndFlush(final String tls) throws Exception {
        try (Pair p = new Pair(tls)) {
            final long n = 1 << 20;
            final ByteBuffer region = ByteBuffer.allocateDirect((int) n);
            final UcpMemory reg = p.context.registerMemory(region); // registered user memory
            final UcpMemory alloc = p.context.memoryMap(new UcpMemMapParams().allocate().setLength(n));
            assertEquals(n, reg.getLength());
            assertEquals(UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST, reg.getMemType());
            for (final UcpMemory mem : new UcpMemory[] {reg, alloc}) {
                final UcpRemoteKey rk = p.ab.unpackRemoteKey(mem.getRemoteKeyBuffer());
                final MemorySegment src = p.alloc(n);
                Pair.fill(src, n, 11);
                final AtomicInteger ok = new AtomicInteger();
                final UcxCallback count = new UcxCallback() {
                    @Override
                    public void onSuccess(final UcpRequest request) {
                        ok.incrementAndGet();
                    }
                };
                p.await(p.ab.putNonBlocking(src.address(), n, mem.getAddress(), rk, count));
                p.await(p.ab.flushNonBlocking(count));
                final MemorySegment back = p.alloc(n);
                p.await(p.ab.getNonBlocking(mem.getAddress(), rk, back.address(), n, count));
                Pair.check(back, n, 11, "get after put over " + tls);
                assertEquals(3, ok.get(), "put, flush and get callbacks");
                // implicit forms, completed by a worker flush
                Pair.fill(src, 64, 12);
                p.ab.putNonBlockingImplicit(src.address(), 64, mem.getAddress() + 8, rk);
                p.await(p.a.flushNonBlocking(null));
                back.fill((byte) 0);
                p.ab.getNonBlockingImplicit(mem.getAddress() + 8, rk, back.address(), 64);
                p.await(p.ab.flushNonBlocking(null));
                Pair.check(back, 64, 12, "implicit get after implicit put");
                // out of range: a clear error, thrown when found inside the call (as JUCX throws for errors UCX
                // returns at once), else the request's status
                int badStatus;
                try {
                    final UcpRequest bad = p.ab.putNonBlocking(src.address(), 64, mem.getAddress() + n - 8, rk, null);
                    p.await(bad);
                    badStatus = bad.getStatus();
                } catch (final UcxException e) {
                    badStatus = e.getStatus();
                }
                assertEquals(UcsConstants.STATUS.UCS_ERR_OUT_OF_RANGE, badStatus);
                rk.close();
            }
            reg.deregister();
            alloc.close();
            assertNull(reg.getNativeId(), "closed objects lose their id");
        }
    }

    @Test
    void wakeupArmEventFdAndSignal() throws Exception {
        try (Pair p = new Pair("shm,self");
             weft.ucs.wakeup.EventSet epoll = new weft.ucs.wakeup.EventSet(2)) {
            final int fd = p.b.getEventFD();
            assertTrue(fd >= 0);
            epoll.add(fd, weft.ucs.sys.LibC.EPOLLIN, 1);
            while (true) { // arm until nothing is pending
                try {
                    p.b.arm();
                    break;
                } catch (final UcxException e) {
                    assertEquals(UcsConstants.STATUS.UCS_ERR_BUSY, e.getStatus());
                    p.b.progress();
                }
            }
            final MemorySegment m = p.alloc(8);
            final UcpRequest r = p.b.recvTaggedNonBlocking(m.address(), 8, 1, -1L, null);
            p.ab.sendTaggedNonBlocking(m.address(), 8, 1, null);
            p.a.progress();
            assertEquals(1, epoll.await((int) (Pair.WAIT_NS / 1_000_000)), "the event fd became readable");
            p.await(r);
            // signal wakes it too
            while (true) {
                try {
                    p.b.arm();
                    break;
                } catch (final UcxException e) {
                    p.b.progress();
                }
            }
            p.b.signal();
            assertEquals(1, epoll.await((int) (Pair.WAIT_NS / 1_000_000)), "signal makes the fd readable");
        }
    }

    @Test
    void listenerAcceptRejectAddressesNamesAndFailedConnect() throws Exception {
        try (UcpContext ctx = new UcpContext(new UcpParams().requestTagFeature());
             UcpWorker server = ctx.newWorker(new UcpWorkerParams());
             UcpWorker client = ctx.newWorker(new UcpWorkerParams())) {
            final AtomicReference<UcpEndpoint> accepted = new AtomicReference<>();
            final AtomicInteger rejectNext = new AtomicInteger();
            final UcpListener l = server.newListener(new UcpListenerParams()
                .setSockAddr(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))
                .setConnectionHandler(req -> {
                    assertNotNull(req.getClientAddress());
                    if (rejectNext.get() == 1) {
                        req.reject();
                    } else {
                        accepted.set(server.newEndpoint(new UcpEndpointParams().setConnectionRequest(req)
                            .setName("accepted")));
                    }
                }));
            final java.net.InetSocketAddress at = l.getAddress();
            assertTrue(at.getPort() > 0);
            final UcpEndpoint c = client.newEndpoint(new UcpEndpointParams().setSocketAddress(at).setName("client-1")
                .setPeerErrorHandlingMode());
            final MemorySegment m = java.lang.foreign.Arena.global().allocate(8);
            final UcpRequest s = c.sendTaggedNonBlocking(m.address(), 8, 4, null);
            final long deadline = System.nanoTime() + Pair.WAIT_NS;
            while (accepted.get() == null || !s.isCompleted()) {
                server.progress();
                client.progress();
                assertTrue(System.nanoTime() < deadline, "hang guard");
            }
            assertEquals(at, c.getRemoteAddress(), "client's remote address is the listener's");
            assertEquals(c.getLocalAddress(), accepted.get().getRemoteAddress(), "the two ends agree");
            assertTrue(c.toString().contains("client-1"), c.toString());
            // a rejected connection reaches the error handler
            rejectNext.set(1);
            final AtomicInteger rejected = new AtomicInteger();
            final UcpEndpoint c2 = client.newEndpoint(new UcpEndpointParams().setSocketAddress(at)
                .setErrorHandler((ep, st, msg) -> rejected.set(st)));
            while (rejected.get() == 0) {
                server.progress();
                client.progress();
                assertTrue(System.nanoTime() < deadline, "hang guard");
            }
            assertEquals(UcsConstants.STATUS.UCS_ERR_REJECTED, rejected.get());
            l.close();
            // nothing listens: the constructor returns, the handler reports from progress
            final AtomicInteger refused = new AtomicInteger();
            final AtomicReference<UcpEndpoint> who = new AtomicReference<>();
            final UcpEndpoint c3 = client.newEndpoint(new UcpEndpointParams().setSocketAddress(at)
                .setErrorHandler((ep, st, msg) -> {
                    refused.set(st);
                    who.set(ep);
                }));
            assertEquals(0, refused.get(), "reported from progress, not from the constructor");
            final AtomicInteger opErr = new AtomicInteger();
            c3.sendTaggedNonBlocking(m.address(), 8, 4, new UcxCallback() {
                @Override
                public void onError(final int st, final String msg) {
                    opErr.set(st);
                }
            });
            while (refused.get() == 0 || opErr.get() == 0) {
                client.progress();
                assertTrue(System.nanoTime() < deadline, "hang guard");
            }
            assertEquals(UcsConstants.STATUS.UCS_ERR_UNREACHABLE, opErr.get(), "operations waiting on it fail");
            assertEquals(UcsConstants.STATUS.UCS_ERR_UNREACHABLE, refused.get());
            assertSame(c3, who.get());
            c.close();
            c2.close();
            c3.close();
            accepted.get().close();
        }
    }

    @Test
    void utilsConstantsExceptionsAndParams() {
        final MemorySegment m = java.lang.foreign.Arena.global().allocate(16);
        m.set(ValueLayout.JAVA_LONG, 8, 42L);
        final ByteBuffer v = UcxUtils.getByteBufferView(m.address(), 16);
        assertEquals(16, v.capacity());
        assertEquals(42L, v.order(java.nio.ByteOrder.nativeOrder()).getLong(8));
        v.position(8);
        assertEquals(m.address() + 8, UcxUtils.getAddress(v), "address of the position");
        assertThrows(UcxException.class, () -> UcxUtils.getAddress(ByteBuffer.allocate(4)));
        assertEquals(-6, UcsConstants.STATUS.UCS_ERR_UNREACHABLE, "UCX's numeric codes");
        assertEquals(7, new UcxException("x", 7).getStatus());
        assertThrows(UcxException.class, () -> new UcpContext(new UcpParams()), "no feature");
        assertThrows(UcxException.class, () -> new UcpContext(new UcpParams().requestTagFeature()
            .requestExportedMemFeature()));
        assertThrows(UcxException.class, () -> org.openucx.jucx.UcxParams.checkArraySizes(new long[1], new long[2]));
        final UcpEndpointParams ep = new UcpEndpointParams().setName("n").setNoLoopbackMode();
        assertTrue(ep.toString().contains("name=n"));
        ep.clear();
        assertFalse(ep.toString().contains("name=n"));
        try (UcpContext ctx = new UcpContext(new UcpParams().requestRmaFeature())) {
            assertEquals(UcsConstants.STATUS.UCS_ERR_UNSUPPORTED, assertThrows(UcxException.class,
                () -> ctx.memoryMap(new UcpMemMapParams().allocate().setLength(4096)
                    .setMemoryType(UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_CUDA))).getStatus());
            assertThrows(UcxException.class, () -> ctx.registerMemory(ByteBuffer.allocate(64)), "heap buffer");
            assertThrows(UcxException.class, () -> ctx.importMemory(ByteBuffer.allocateDirect(8)));
            final UcpWorker w = ctx.newWorker(new UcpWorkerParams().requestThreadSafety());
            assertThrows(UcxException.class, () -> ctx.newWorker(new UcpWorkerParams().setEventFD(3)));
            assertArrayEquals(Jucx.bytes(w.getAddress()), Jucx.bytes(w.getAddress()), "stable address");
            assertNotNull(w.getNativeId());
        }
    }
}
