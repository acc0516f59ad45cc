package weft.ucp;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import weft.ucs.Status;
import weft.uct.AmHandler;
import weft.uct.Interface;
import weft.uct.Packer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzzing of the protocol layer's active-message handlers, on a real worker: eager tag
 * (single, first, middle), sync ack, rendezvous (RTS, ATS, RTR, data, RTR_PUT, ATP), user active messages
 * (short, single, first, middle, RTS), streams (data, ack), wireup, flow control, endpoint removal,
 * keepalive, emulated atomics (request, reply, nak) and GET-based eager (key, header, done).
 *
 * <p>Two workers over shm and self in this JVM, wired to each other. Each input is one to four messages to
 * worker b, each with an AM id the fuzzer picks among the protocol's ids and bytes of its own, optionally
 * with b's real endpoint id (or the id of a request b has in flight) written at one of the usual offsets so
 * that the fuzzer gets past the endpoint lookup. A message goes either through a raw shm endpoint from
 * a's interface to b's (the transport's own delivery, descriptors included) or straight to the handler b
 * installed, in a segment that ends where the message ends (so a read past the message is an exception,
 * not a silent read of the next FIFO cell). b has a tag receive posted, stream receives, user AM handlers
 * that drop, keep, receive and release messages, and a rendezvous send in flight to a.
 *
 * <p>Rule: a handler may only return a status; nothing may escape from it or from {@code progress()};
 * every 32 inputs a tagged round trip from a to b (over a new endpoint pair if the fuzzer legitimately
 * closed the old one) must complete.
 */
class WorkerAmFuzzTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final int[] IDS = {AmId.WIREUP, AmId.EAGER, AmId.EAGER_FIRST, AmId.EAGER_MIDDLE, AmId.SOFT_AMO,
        AmId.SOFT_AMO_REP, AmId.SOFT_AMO_NAK, AmId.SYNC_ACK, AmId.RNDV_RTS, AmId.RNDV_ATS, AmId.RNDV_RTR,
        AmId.RNDV_DATA, AmId.EAGER_GET, AmId.EAGER_GET_KEY, AmId.EAGER_GET_DONE, AmId.RNDV_RTR_PUT, AmId.RNDV_ATP,
        AmId.AM_SHORT, AmId.AM_SINGLE, AmId.AM_FIRST, AmId.AM_MIDDLE, AmId.AM_RTS, AmId.STREAM_DATA,
        AmId.STREAM_ACK, AmId.FLOW, AmId.EP_REMOVED, AmId.KEEPALIVE};
    private static final long HEALTH_TAG = 0x4845414c5448L;
    private static final long FUZZ_TAG = 7;

    private static Harness h;

    /** The two workers and what b keeps posted. */
    static final class Harness implements AutoCloseable {
        final Context ctx;
        final Worker a;
        final Worker b;
        final Arena arena = Arena.ofShared();
        final MemorySegment msg = arena.allocate(1 << 17, 64);
        final MemorySegment tagBuf = arena.allocate(512);
        final MemorySegment streamBuf = arena.allocate(512);
        final MemorySegment amBuf = arena.allocate(4096);
        final MemorySegment rndvSrc = arena.allocate(256 * 1024);
        final MemorySegment health = arena.allocate(64);
        final MemorySegment healthIn = arena.allocate(64);
        final AmHandler[] handlers = new AmHandler[Interface.AM_ID_COUNT];
        final List<AmMessage> kept = new ArrayList<>();
        final List<Request> amRecvs = new ArrayList<>();
        Endpoint ab;
        weft.uct.Endpoint raw;
        Request tagRecv;
        Request streamRecv;
        Request rndvSend;
        long inputs;

        Harness() {
            ctx = Context.builder().features(Feature.values()).transports("shm", "self").build();
            a = ctx.newWorker();
            b = ctx.newWorker();
            // b's handlers, recorded from the same code that installs them on b's interfaces
            final Interface recorder = (Interface) Proxy.newProxyInstance(Interface.class.getClassLoader(),
                new Class<?>[] {Interface.class}, (p, m, args) -> {
                    if (m.getName().equals("setAmHandler")) {
                        handlers[(Integer) args[0]] = (AmHandler) args[1];
                    }
                    return m.getReturnType() == boolean.class ? Boolean.FALSE
                        : m.getReturnType() == int.class ? 0 : null;
                });
            b.protocols.register(recorder);
            // user AM ids: 0 drops, 1 keeps (released later), 2 receives the data (rendezvous: a get or RTR)
            b.setAmHandler(0, (hd, ho, hl, d, dOff, dLen, m) -> Status.OK, 0);
            b.setAmHandler(1, (hd, ho, hl, d, dOff, dLen, m) -> {
                kept.add(m);
                return Status.IN_PROGRESS;
            }, 0);
            b.setAmHandler(2, (hd, ho, hl, d, dOff, dLen, m) -> {
                amRecvs.add(b.recvAmData(m, amBuf, 0, amBuf.byteSize()));
                return Status.OK;
            }, AmFlags.HANDLER_PERSISTENT_DATA);
            // a keeps rendezvous messages of id 5, so that b's rendezvous send stays in flight
            a.setAmHandler(5, (hd, ho, hl, d, dOff, dLen, m) -> Status.IN_PROGRESS, 0);
            connect();
        }

        void connect() {
            ab = a.connect(b.address());
            progressUntil(() -> ab.remoteId >= 0 && ab.status() == Status.OK && peer() != null, "wireup");
            final Interface ai = shm(a);
            final Interface bi = shm(b);
            if (raw != null) {
                raw.close();
            }
            raw = ai.connect(bi.deviceAddress(), bi.interfaceAddress());
        }

        /** b's endpoint to a (the one ab's messages name). */
        Endpoint peer() {
            return b.epTable.byId(ab.remoteId);
        }

        void progressUntil(final java.util.function.BooleanSupplier c, final String what) {
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!c.getAsBoolean()) {
                a.progress();
                b.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out: " + what);
                }
            }
        }

        /** Keeps b's posted operations posted. */
        void repost() {
            final Endpoint ba = peer();
            if (tagRecv == null || tagRecv.isCompleted()) {
                if (tagRecv != null) {
                    tagRecv.release();
                }
                tagRecv = b.recvTag(tagBuf, 0, tagBuf.byteSize(), FUZZ_TAG, -1L);
            }
            if (ba != null && ba.status() == Status.OK && (streamRecv == null || streamRecv.isCompleted())) {
                if (streamRecv != null) {
                    streamRecv.release();
                }
                streamRecv = ba.recvStream(streamBuf, 0, streamBuf.byteSize(), false);
            }
            if (ba != null && ba.status() == Status.OK && (rndvSend == null || rndvSend.isCompleted())) {
                if (rndvSend != null) {
                    rndvSend.release();
                }
                rndvSend = ba.sendAm(5, rndvSrc, 0, rndvSrc.byteSize(), AmFlags.SEND_RNDV);
            }
            for (final AmMessage m : kept) {
                b.releaseAmData(m);
            }
            kept.clear();
            for (int i = amRecvs.size() - 1; i >= 0; i--) {
                if (amRecvs.get(i).isCompleted()) {
                    amRecvs.remove(i).release();
                }
            }
        }

        /** A tagged round trip a -> b; reconnects first if the fuzzer closed or failed the pair. */
        void healthCheck() {
            final Endpoint ba = peer();
            if (ab.status() != Status.OK || ba == null || ba.status() != Status.OK) {
                connect();
            }
            for (int i = 0; i < 8; i++) {
                health.set(ValueLayout.JAVA_BYTE, i, (byte) (inputs + i));
            }
            final Request r = b.recvTag(healthIn, 0, 8, HEALTH_TAG, -1L);
            final Request s = ab.sendTag(HEALTH_TAG, health, 0, 8);
            progressUntil(() -> r.isCompleted() && s.isCompleted(), "health round trip");
            assertEquals(Status.OK, s.status(), "health send");
            assertEquals(Status.OK, r.status(), "health receive");
            assertEquals(-1L, healthIn.asSlice(0, 8).mismatch(health.asSlice(0, 8)), "health payload");
            r.release();
            s.release();
            // drop what the fuzzer left unexpected (tags nobody receives), so the pool does not grow
            for (int i = 0; i < 64 && b.probeTag(0, 0, false) != null; i++) {
                final TagMessage m = b.probeTag(0, 0, true);
                final Request q = b.recvTag(m, tagBuf, 0, tagBuf.byteSize());
                if (q.isCompleted()) {
                    q.release();
                }
            }
        }

        @Override
        public void close() {
            if (raw != null) {
                raw.close();
            }
            b.close();
            a.close();
            ctx.close();
            arena.close();
        }
    }

    private static Interface shm(final Worker w) {
        for (final WorkerIface wi : w.ifaces) {
            if (wi.name().startsWith("shm")) {
                return wi.iface;
            }
        }
        throw new AssertionError("no shm interface in " + w.resources());
    }

    /** Packs fixed bytes. */
    private record Raw(MemorySegment bytes) implements Packer {
        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            final long n = Math.min(capacity, bytes.byteSize());
            MemorySegment.copy(bytes, 0, d, o, n);
            return n;
        }
    }

    @AfterAll
    static void tearDown() {
        if (h != null) {
            try {
                h.healthCheck(); // also after a replay of fewer than 32 inputs
            } finally {
                h.close();
            }
            h = null;
        }
    }

    @FuzzTest(maxDuration = "2m")
    void handlers(final FuzzedDataProvider data) {
        if (h == null) {
            weft.testkit.FuzzBytes.quietWhileFuzzing();
            h = new Harness();
        }
        final Harness x = h;
        x.repost();
        final int count = data.consumeInt(1, 4);
        for (int k = 0; k < count; k++) {
            final int id = IDS[data.consumeInt(0, IDS.length - 1)];
            final boolean direct = data.consumeBoolean();
            final int patch = data.consumeInt(0, 8); // 0: none, else an id at offset 8 * ((patch - 1) % 4)
            final int skew = data.consumeInt(0, 15);
            final byte[] bytes = data.consumeBytes(data.consumeInt(0, 9000));
            final int len = bytes.length;
            final MemorySegment m = x.msg.asSlice(skew, len);
            MemorySegment.copy(bytes, 0, m, ValueLayout.JAVA_BYTE, 0, len);
            if (patch > 0) {
                final long off = 8L * ((patch - 1) % 4);
                final long value = patch <= 4 ? x.ab.remoteId : x.rndvSend == null ? -1 : x.rndvSend.id;
                if (off + 8 <= len) {
                    m.set(LONG, off, value);
                }
            }
            if (direct) {
                final AmHandler handler = x.handlers[id];
                assertTrue(handler != null, "no handler for id " + id);
                // the message ends where the segment ends: reading past it throws
                handler.onReceive(x.msg.asSlice(0, skew + len), skew, len, 0);
            } else {
                x.raw.amBcopy(id, new Raw(m)); // too long for a cell: an error status, nothing sent
            }
            for (int i = 0; i < 4; i++) {
                x.b.progress();
                x.a.progress();
            }
        }
        if (++x.inputs % 32 == 0) {
            x.healthCheck();
        }
    }
}
