package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;
import weft.ucs.wakeup.EventSet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an application's own event loop and diagnostics need from a worker: the event descriptor and
 * {@code arm()} (polled here with epoll), completion callbacks on put and flush, a callback given after the
 * call ({@code whenComplete}), the largest AM header, endpoint names and socket addresses.
 */
@Timeout(120)
class WorkerEventsTest {
    private static final long GUARD_NS = 60_000_000_000L; // a hang guard, not a speed bound

    private static void until(final BooleanSupplier done, final Worker... ws) {
        final long deadline = System.nanoTime() + GUARD_NS;
        while (!done.getAsBoolean()) {
            for (final Worker w : ws) {
                w.progress();
            }
            assertTrue(System.nanoTime() - deadline < 0, "hang guard");
        }
    }

    private static void arm(final Worker w) {
        final long deadline = System.nanoTime() + GUARD_NS;
        while (w.arm() != Status.OK) { // BUSY: work is pending
            w.progress();
            assertTrue(System.nanoTime() - deadline < 0, "hang guard");
        }
    }

    @Test
    void eventFdBecomesReadableAfterArmOnMessageAndSignal() {
        try (Context ctx = Context.create(Feature.TAG, Feature.WAKEUP); Worker a = ctx.newWorker();
             Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined(); EventSet epoll = new EventSet(2)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            final int fd = b.eventFd();
            assertTrue(fd >= 0);
            epoll.add(fd, LibC.EPOLLIN, 7);
            final MemorySegment m = arena.allocate(8);
            final Request r = b.recvTag(m, 0, 8, 3, -1L);
            arm(b);
            assertEquals(0, epoll.await(0), "armed and idle: not readable");
            ab.sendTag(3, m, 0, 8).release();
            a.progress();
            assertEquals(1, epoll.await((int) (GUARD_NS / 1_000_000)), "a message makes the fd readable");
            assertEquals(7, epoll.readyData(0));
            until(r::isCompleted, b);
            r.release();
            arm(b);
            b.signal();
            assertEquals(1, epoll.await((int) (GUARD_NS / 1_000_000)), "signal makes the fd readable");
        }
        try (Context ctx = Context.create(Feature.TAG); Worker w = ctx.newWorker()) {
            assertEquals(Status.UNSUPPORTED, assertThrows(WeftException.class, w::eventFd).status());
            assertEquals(Status.UNSUPPORTED, assertThrows(WeftException.class, w::arm).status());
        }
    }

    @Test
    void putAndFlushCallbacksWhenCompleteAndAmHeaderLimit() {
        try (Context ctx = Context.create(Feature.TAG, Feature.RMA, Feature.AM); Worker a = ctx.newWorker();
             Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined(); MemoryMap mem = ctx.memMap(4096, 0)) {
            final Endpoint ab = a.connect(b.address());
            b.connect(a.address());
            try (Rkey rk = ab.unpackRkey(mem.packRkey())) {
                final MemorySegment src = arena.allocate(64);
                src.set(ValueLayout.JAVA_LONG, 0, 0x1234L);
                final AtomicInteger calls = new AtomicInteger();
                final Request p = ab.put(src, 0, 8, rk.base(), rk, r -> calls.incrementAndGet());
                final Request f = ab.flush(r -> calls.incrementAndGet());
                assertEquals(0, calls.get(), "callbacks run from progress, not from the call");
                until(() -> calls.get() == 2, a, b);
                assertEquals(0x1234L, mem.segment().get(ValueLayout.JAVA_LONG, 0));
                p.release();
                f.release();
                // a callback given after the call, on a request that already completed
                final Request g = ab.get(src, 8, 8, rk.base(), rk);
                if (g != Request.done(g.status())) {
                    final AtomicReference<Request> seen = new AtomicReference<>();
                    g.whenComplete(seen::set);
                    until(() -> seen.get() != null, a, b);
                    assertSame(g, seen.get());
                    g.release();
                } else {
                    assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                        () -> g.whenComplete(r -> { })).status(), "a shared done request takes no callback");
                }
                final MemorySegment rb = arena.allocate(8);
                final Request recv = b.recvTag(rb, 0, 8, 9, -1L);
                final AtomicInteger late = new AtomicInteger();
                recv.whenComplete(r -> late.set((int) r.length()));
                assertThrows(WeftException.class, () -> recv.whenComplete(r -> { }), "one callback");
                ab.sendTag(9, src, 0, 8).release();
                until(() -> late.get() == 8, a, b);
                recv.release();
            }
            // the largest header every protocol carries goes rendezvous too
            final long max = b.maxAmHeaderSize();
            assertTrue(max >= 64, "max AM header " + max);
            final MemorySegment h = arena.allocate(max);
            h.set(ValueLayout.JAVA_LONG_UNALIGNED, max - 8, 0xFEEDL);
            final AtomicInteger got = new AtomicInteger();
            b.setAmHandler(5, (hs, ho, hl, d, dOff, dLen, msg) -> {
                assertEquals(max, hl);
                assertEquals(0xFEEDL, hs.get(ValueLayout.JAVA_LONG_UNALIGNED, ho + max - 8));
                got.incrementAndGet();
                return Status.OK;
            }, 0);
            final MemorySegment d = arena.allocate(1 << 20);
            final Request s = ab.sendAm(5, h, 0, max, d, 0, d.byteSize(), AmFlags.SEND_RNDV);
            until(() -> got.get() == 1 && s.isCompleted(), a, b);
            assertEquals(Status.OK, s.status());
            s.release();
        }
    }

    @Test
    void endpointNamesAndSocketAddresses() {
        try (Context ctx = Context.create(Feature.TAG); Worker server = ctx.newWorker(); Worker client = ctx.newWorker()) {
            final AtomicReference<Endpoint> accepted = new AtomicReference<>();
            try (Listener l = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                req -> accepted.set(req.accept().name("server-side")))) {
                final Endpoint c = client.connect(l.address()).name("client-side");
                until(() -> accepted.get() != null && c.connectRequest().isCompleted(), server, client);
                assertEquals(l.address(), c.remoteSocketAddress());
                assertNotNull(c.localSocketAddress());
                assertEquals(c.localSocketAddress(), accepted.get().remoteSocketAddress(), "the two ends agree");
                assertEquals(l.address().getPort(), accepted.get().localSocketAddress().getPort());
                assertTrue(c.toString().contains("client-side"), c.toString());
                assertEquals("server-side", accepted.get().name());
                final Endpoint byAddress = client.connect(server.address());
                assertNull(byAddress.localSocketAddress(), "no socket for an address-made endpoint");
                assertNull(byAddress.name());
            }
        }
    }
}
