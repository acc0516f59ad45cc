package weft.uct.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

/** Remote atomics, 32 and 64 bit: every advertised post and fetch op with exact results, and contention. */
@Timeout(90)
class AtomicConformanceTest {
    private static final long INITIAL = 0x0F0F_F0F0_1234_5678L;
    private static final long VALUE = 0x00FF_00FF_8765_4321L;

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#withAtomics")
    void everyAdvertisedOpGivesExactResults(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            Assumptions.assumeTrue(f.attrs.has(Capability.ATOMIC32) || f.attrs.has(Capability.ATOMIC64),
                c + " advertises no atomics");
            final MemorySegment result = f.local(64);
            int k = 0;
            int checked = 0;
            for (final int width : new int[] {32, 64}) {
                if (!f.attrs.has(width == 32 ? Capability.ATOMIC32 : Capability.ATOMIC64)) {
                    continue;
                }
                final int ops = width == 32 ? f.attrs.atomic32Ops() : f.attrs.atomic64Ops();
                for (final AtomicOp op : AtomicOp.values()) {
                    if ((ops & op.bit()) == 0) {
                        continue;
                    }
                    // 32-bit words alternate between the low and high half of a 64-bit slot
                    final long off = Peer.ATOMIC_BASE + 8L * k++ + (width == 32 && (k & 1) == 0 ? 4 : 0);
                    final long init = width == 32 ? (int) (INITIAL + k) : INITIAL + k;
                    final long val = width == 32 ? (int) (VALUE * k) : VALUE * k;
                    final String what = width + "-bit " + op + " on " + c;
                    if (op.postable()) { // SWAP posted is a set
                        setWord(f, off, width, init);
                        final Status st = f.retry(() -> width == 32
                            ? f.ep.atomic32Post(op, (int) val, f.raddr(off), f.rkey)
                            : f.ep.atomic64Post(op, val, f.raddr(off), f.rkey), "post " + what);
                        assertEquals(Status.OK, st, "post " + what);
                        f.flush(Interface.FLUSH_REMOTE);
                        assertEquals(trunc(op.apply64(init, val), width), word(f, off, width), "target after post " + what);
                    }
                    if (op != AtomicOp.CSWAP) {
                        setWord(f, off, width, init);
                        result.fill((byte) 0x77);
                        final Status st = f.complete(cp -> width == 32
                            ? f.ep.atomic32Fetch(op, (int) val, result, 8, f.raddr(off), f.rkey, cp)
                            : f.ep.atomic64Fetch(op, val, result, 8, f.raddr(off), f.rkey, cp), "fetch " + what);
                        assertEquals(Status.OK, st, "fetch " + what);
                        assertEquals(init, fetched(result, width), "old value returned by fetch " + what);
                        f.flush(Interface.FLUSH_REMOTE);
                        assertEquals(trunc(op.apply64(init, val), width), word(f, off, width),
                            "target after fetch " + what);
                    } else {
                        for (final boolean match : new boolean[] {true, false}) {
                            setWord(f, off, width, init);
                            final long cmp = match ? init : init + 1;
                            final Status st = f.complete(cp -> width == 32
                                ? f.ep.atomic32Cswap((int) cmp, (int) val, result, 8, f.raddr(off), f.rkey, cp)
                                : f.ep.atomic64Cswap(cmp, val, result, 8, f.raddr(off), f.rkey, cp), what);
                            assertEquals(Status.OK, st, what + " (compare " + (match ? "matches" : "differs") + ")");
                            assertEquals(init, fetched(result, width), "old value returned by " + what);
                            f.flush(Interface.FLUSH_REMOTE);
                            assertEquals(match ? trunc(val, width) : init, word(f, off, width),
                                "target after " + what + " (compare " + (match ? "matches" : "differs") + ")");
                        }
                    }
                    checked++;
                }
            }
            Assumptions.assumeTrue(checked > 0, c + " advertises atomics but no op bits");
        }
    }

    private static long trunc(final long v, final int width) {
        return width == 32 ? (int) v : v;
    }

    private static long fetched(final MemorySegment result, final int width) {
        return width == 32 ? result.get(ValueLayout.JAVA_INT_UNALIGNED, 8) : result.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
    }

    static void setWord(final Fixture f, final long off, final int width, final long v) {
        final ByteBuffer b = ByteBuffer.allocate(width / 8).order(ByteOrder.nativeOrder());
        if (width == 32) {
            b.putInt((int) v);
        } else {
            b.putLong(v);
        }
        f.peer.write(off, b.array());
    }

    static long word(final Fixture f, final long off, final int width) {
        final ByteBuffer b = ByteBuffer.wrap(f.peer.read(off, width / 8)).order(ByteOrder.nativeOrder());
        return width == 32 ? b.getInt() : b.getLong();
    }

    /** Adds 1 {@code n} times to the word at {@code raddr} through {@code ep}, progressing {@code progress}. */
    static void addMany(final Endpoint ep, final java.util.function.IntSupplier progress, final int width,
                        final long raddr, final RemoteKey rkey, final int n, final String what) {
        final Completion c = new Completion();
        for (int i = 0; i < n; i++) {
            int idle = 0;
            final long deadline = System.nanoTime() + Waits.DEFAULT_TIMEOUT_MS * 1_000_000L;
            while (true) {
                final Status st = width == 32 ? ep.atomic32Post(AtomicOp.ADD, 1, raddr, rkey)
                    : ep.atomic64Post(AtomicOp.ADD, 1, raddr, rkey);
                if (st == Status.OK || st == Status.IN_PROGRESS) {
                    break;
                }
                if (st != Status.NO_RESOURCE) {
                    throw new AssertionError(what + ": add #" + i + " failed: " + st);
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(what + ": add #" + i + " stuck on NO_RESOURCE");
                }
                idle = Waits.backoff(progress.getAsInt(), idle);
            }
            if ((i & 63) == 0) {
                progress.getAsInt();
            }
        }
        c.reset(1);
        final Status st = ep.flush(Interface.FLUSH_REMOTE, c);
        if (st == Status.IN_PROGRESS) {
            Waits.until(c::isDone, progress, Waits.DEFAULT_TIMEOUT_MS, () -> what + ": flush after adds");
        } else if (st != Status.OK) {
            throw new AssertionError(what + ": flush after adds: " + st);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#withAtomics")
    void concurrentAddsFromSeveralInitiatorsAreExact(final Case c) throws Exception {
        try (Fixture f = Fixture.open(c)) {
            for (final int width : new int[] {64, 32}) {
                if (!f.attrs.has(width == 32 ? Capability.ATOMIC32 : Capability.ATOMIC64)
                    || ((width == 32 ? f.attrs.atomic32Ops() : f.attrs.atomic64Ops()) & AtomicOp.ADD.bit()) == 0) {
                    continue;
                }
                contend(f, width);
                return;
            }
            Assumptions.abort(c + " advertises no atomic ADD");
        }
    }

    private static void contend(final Fixture f, final int width) throws Exception {
        final int n = 2_000;
        final long off = Peer.ATOMIC_BASE + 4096;
        setWord(f, off, width, 0);
        final boolean cpu = f.attrs.has(Capability.ATOMIC_CPU);
        final boolean process = f.peer.isRemoteProcess();
        Assumptions.assumeTrue(!process || cpu, f.kase + ": atomics are not coherent with the target's CPU atomics"
            + " (no ATOMIC_CPU), so the peer process cannot contend locally");
        // CPU atomics of the target process (peer), concurrently with the transport's
        final Peer.Task local = cpu ? f.peer.localAdd(off, width, 1, n) : null;
        final List<CompletableFuture<Void>> others = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        final int contenders = process ? 0 : 2;
        // read on this thread: the peer's interface belongs to it
        final byte[] dev = f.peer.deviceAddress();
        final byte[] ifa = f.peer.interfaceAddress();
        final byte[] packed = f.peer.packedRkey();
        for (int t = 0; t < contenders; t++) {
            final CompletableFuture<Void> done = new CompletableFuture<>();
            others.add(done);
            final int id = t;
            threads.add(Thread.ofPlatform().name("atomic-contender-" + t).start(() -> {
                try {
                    contender(f, dev, ifa, packed, width, off, n, "contender " + id + " on " + f.kase);
                    done.complete(null);
                } catch (final Throwable e) {
                    done.completeExceptionally(e);
                }
            }));
        }
        addMany(f.ep, f::progress, width, f.raddr(off), f.rkey, n, "test thread on " + f.kase);
        Waits.until(() -> others.stream().allMatch(CompletableFuture::isDone) && (local == null || local.isDone()),
            f::progress, 30_000, () -> "contenders to finish on " + f.kase);
        for (final Thread t : threads) {
            t.join(5_000);
        }
        for (final CompletableFuture<Void> d : others) {
            d.get();
        }
        if (local != null) {
            assertEquals("OK", local.result(), "peer's local adds on " + f.kase);
        }
        f.flush(Interface.FLUSH_REMOTE);
        final long expect = (long) n * (1 + contenders + (local != null ? 1 : 0));
        assertEquals(trunc(expect, width), word(f, off, width), width + "-bit word after " + (1 + contenders)
            + " initiators" + (local != null ? " and the target's CPU" : "") + " each added " + n + " on " + f.kase);
    }

    /** Another initiator: its own worker, interface and endpoint, created and used on this thread only. */
    private static void contender(final Fixture f, final byte[] dev, final byte[] ifa, final byte[] packed,
                                  final int width, final long off, final int n, final String what) {
        try (UctWorker w = new UctWorker()) {
            final Interface i = f.transport.openInterface(w, f.device, InterfaceParams.defaults());
            final Endpoint ep = i.isReachable(dev, ifa) ? i.connect(dev, ifa)
                : i.connect(i.deviceAddress(), i.interfaceAddress()); // loopback transports: same-process region
            try (RemoteKey rk = f.md.unpackRkey(packed)) {
                addMany(ep, w::progress, width, f.raddr(off), rk, n, what);
            } finally {
                ep.close();
            }
        }
    }
}
