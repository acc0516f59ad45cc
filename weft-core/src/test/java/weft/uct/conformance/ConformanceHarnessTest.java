package weft.uct.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import weft.uct.Capability;
import weft.uct.Device;
import weft.uct.Transport;
import weft.uct.Transports;

/**
 * Tests of the harness itself, so that a conformance failure means the transport: the peer
 * process protocol (every command, error replies, exit on stdin close, idle CPU), the hygiene
 * check (it does see leaks) and the case enumeration (every transport, both modes).
 */
@Timeout(60)
class ConformanceHarnessTest {

    private static Device anyDevice() {
        for (final Transport t : Transports.all()) {
            if (!t.devices().isEmpty()) {
                return t.devices().get(0);
            }
        }
        throw new AssertionError("no transport has a device");
    }

    @Test
    void casesCoverEveryTransportInBothModesWhereItCanReachAPeer() {
        for (final Transport t : Transports.all()) {
            final Case.Probe p = Case.probe(t);
            final long cells = Case.all().map(a -> (Case) a.get()[0]).filter(c -> c.transport() == t).count();
            // a transport that cannot reach a second interface in its own process has no cross-process cell
            final long expected = p.device() == null || p.reachesSecondInterface() ? Mode.values().length : 1;
            assertEquals(expected, cells, t.name() + ": " + p);
        }
        // and the capability-filtered sources keep only cells of transports that advertise what they need
        assertTrue(Case.withAtomics().map(a -> (Case) a.get()[0]).allMatch(
            c -> c.device() == null || Case.probe(c.transport()).has(Capability.ATOMIC32
                | Capability.ATOMIC64)));
        assertTrue(Case.crossProcessWithFailureDetection().map(a -> (Case) a.get()[0])
            .allMatch(c -> c.mode() == Mode.CROSS_PROCESS));
    }

    @Test
    void peerProcessRunsEveryCommand() {
        final ProcessPeer p = ProcessPeer.spawn(anyDevice());
        try {
            final AtomicInteger progressed = new AtomicInteger();
            p.attach(() -> {
                progressed.incrementAndGet();
                return 0;
            });
            assertEquals(Peer.REGION_LENGTH, p.regionLength());
            assertTrue(p.packedRkey().length > 0 && p.deviceAddress().length > 0 && p.interfaceAddress().length > 0);
            final byte[] data = Patterns.bytes(1000, 5);
            p.fill(0, 2000, (byte) 7);
            p.write(3, data);
            final byte[] back = p.read(0, 1010);
            assertEquals(7, back[0]);
            assertEquals(-1, Patterns.mismatch(back, 3, 1000, 5));
            assertEquals(7, back[1003]);
            final ByteBuffer w = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, 41);
            p.write(Peer.ATOMIC_BASE, w.array());
            assertEquals(41, p.word(Peer.ATOMIC_BASE));
            final Peer.Task add = p.localAdd(Peer.ATOMIC_BASE, 64, 3, 1000);
            Waits.until(add::isDone, () -> 0, 10_000, () -> "local add");
            assertEquals("OK", add.result());
            assertEquals(3041, p.word(Peer.ATOMIC_BASE));
            // watch: sees the flag, then checks the data words
            p.fill(Peer.FENCE_BASE, 64 + 16 * 8, (byte) 0);
            final Peer.Task watch = p.watch(Peer.FENCE_BASE + 64, 16, Peer.FENCE_BASE, 9, 5_000);
            final ByteBuffer words = ByteBuffer.allocate(16 * 8).order(ByteOrder.nativeOrder());
            for (int i = 0; i < 16; i++) {
                words.putLong(9);
            }
            p.write(Peer.FENCE_BASE + 64, words.array());
            p.write(Peer.FENCE_BASE, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, 9).array());
            Waits.until(watch::isDone, () -> 0, 10_000, () -> "watch");
            assertEquals("OK", watch.result());
            final Peer.Task bad = p.watch(Peer.FENCE_BASE + 64, 16, Peer.FENCE_BASE, 9, 5_000);
            Waits.until(bad::isDone, () -> 0, 10_000, () -> "watch");
            assertEquals("OK", bad.result(), "flag already set, data already right");
            p.pause();
            p.resume();
            assertEquals(null, p.error());
            // an error at the peer comes back as a clear failure, and the peer survives it
            final AssertionError e = assertThrows(AssertionError.class, () -> p.connectBack(new byte[] {1}, new byte[] {2}));
            assertTrue(e.getMessage().contains("connect"), e.getMessage());
            assertArrayEquals(new byte[] {7, 7}, p.read(1998, 2));
            assertTrue(progressed.get() > 0, "waits must progress the test side");
        } finally {
            p.close();
        }
    }

    /** The CPU time below which a 500 ms window of a peer counts as idle (a spinning peer uses ~500 ms). */
    private static final long IDLE_CPU_MS = 50;

    @Test
    void peerProcessExitsWhenStdinClosesAndIdlesWithoutSpinning() throws Exception {
        final ProcessPeer p = ProcessPeer.spawn(anyDevice());
        try {
            final ProcessHandle h = p.handle();
            // the quietest of up to ten 500 ms windows: start-up (JIT, class loading) may take several on a
            // busy machine, while a spinning peer uses most of a core in every window (~500 ms)
            final java.util.List<Long> used = new java.util.ArrayList<>();
            long quietest = Long.MAX_VALUE;
            for (int w = 0; w < 10 && quietest >= IDLE_CPU_MS; w++) {
                final Duration cpu0 = h.info().totalCpuDuration().orElseThrow();
                Thread.sleep(500);
                final long ms = h.info().totalCpuDuration().orElseThrow().minus(cpu0).toMillis();
                used.add(ms);
                quietest = Math.min(quietest, ms);
            }
            assertTrue(quietest < IDLE_CPU_MS, "an idle peer used " + IDLE_CPU_MS + " ms of CPU or more in every 500 ms "
                + "window (spinning?): " + used + " ms");
            assertTrue(p.exitsWhenStdinCloses(10_000), "the peer must exit by itself when its stdin closes");
            assertFalse(h.isAlive());
        } finally {
            p.close();
        }
    }

    @Test
    void hygieneCheckSeesALeakedFileDescriptor() throws Exception {
        final Resources.Snapshot before = Resources.take();
        final java.io.File f = java.io.File.createTempFile("hygiene", ".tmp");
        try (RandomAccessFile leak = new RandomAccessFile(f, "r")) {
            final AssertionError e = assertThrows(AssertionError.class, () -> Resources.assertBackTo(before, "leak", 50));
            assertTrue(e.getMessage().contains(f.getName()), e.getMessage());
            assertTrue(leak.length() >= 0);
        } finally {
            assertTrue(f.delete());
        }
        Resources.assertBackTo(before, "closed file", 1_000);
    }

    @Test
    void hygieneCheckSeesALeakedThread() throws Exception {
        final Resources.Snapshot before = Resources.take();
        final java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
        final Thread t = Thread.ofPlatform().name("leaky").start(() -> {
            try {
                stop.await();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        final AssertionError e = assertThrows(AssertionError.class, () -> Resources.assertBackTo(before, "leak", 50));
        assertTrue(e.getMessage().contains("leaky"), e.getMessage());
        stop.countDown();
        t.join();
        Resources.assertBackTo(before, "joined thread", 1_000);
    }

    @Test
    void hygieneCheckSeesALeakedSharedMapping() {
        final Resources.Snapshot before = Resources.take();
        final weft.ucs.memory.SharedMemory m = weft.ucs.memory.SharedMemory.create("weft-hygiene", 4096);
        final java.lang.foreign.MemorySegment view;
        final weft.ucs.memory.SharedMemory attached;
        try {
            // a second mapping of the same memory without its own fd: only the maps check sees it
            attached = weft.ucs.memory.SharedMemory.attach((int) ProcessHandle.current().pid(), m.fd(), m.name(),
                m.size());
            view = attached.segment();
            final AssertionError e = assertThrows(AssertionError.class, () -> Resources.assertBackTo(before, "leak", 50));
            assertTrue(e.getMessage().contains("memfd mappings"), e.getMessage());
            assertTrue(view.byteSize() >= 4096);
            attached.close();
        } finally {
            m.close();
        }
        Resources.assertBackTo(before, "unmapped memory", 1_000);
    }
}
