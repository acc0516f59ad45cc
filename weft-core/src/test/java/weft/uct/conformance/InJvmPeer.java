package weft.uct.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;

import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.MemoryAtomics;
import weft.uct.Transport;
import weft.uct.UctWorker;

/**
 * A peer in this JVM: its own worker and interface, progressed by the test thread from
 * {@link #progress()} (so no extra thread touches UCT objects). When the transport cannot reach
 * a second interface ({@link Interface#isReachable} is false), the peer is the test interface
 * itself ({@link #isLoopback()}): messages then arrive directly at the test's handlers.
 */
final class InJvmPeer implements Peer {
    private final Transport transport;
    private final UctWorker worker; // null in loopback
    private final Interface iface;
    private final EchoAgent echo; // null in loopback
    private final MemoryDomain md;
    private final MemoryHandle region;
    private final Arena arena; // for registered (not allocated) regions
    private final MemorySegment mem;
    private boolean paused;
    private boolean ifaceClosed;

    private InJvmPeer(final Transport transport, final UctWorker worker, final Interface iface, final boolean loopback) {
        this.transport = transport;
        this.worker = worker;
        this.iface = iface;
        this.echo = loopback ? null : new EchoAgent(iface);
        this.md = transport.memoryDomain();
        if (md.attributes().has(MemoryDomainAttributes.ALLOC)) {
            arena = null;
            region = md.allocate(REGION_LENGTH);
        } else {
            arena = Arena.ofShared();
            region = md.register(arena.allocate(REGION_LENGTH, 4096));
        }
        mem = region.segment();
    }

    /**
     * A second interface of {@code device} if {@code testIface} can reach it, else a loopback peer
     * on {@code testIface}.
     */
    static InJvmPeer open(final Transport transport, final Device device, final Interface testIface) {
        final UctWorker w = new UctWorker();
        Interface i = null;
        try {
            i = transport.openInterface(w, device, InterfaceParams.defaults());
            if (testIface.isReachable(i.deviceAddress(), i.interfaceAddress())) {
                return new InJvmPeer(transport, w, i, false);
            }
        } catch (final RuntimeException e) {
            w.close();
            throw e;
        }
        w.close();
        return new InJvmPeer(transport, null, testIface, true);
    }

    @Override
    public String describe() {
        return (isLoopback() ? "loopback peer on the test interface of " : "in-JVM peer interface of ")
            + iface.device();
    }

    @Override
    public boolean isLoopback() {
        return echo == null;
    }

    @Override
    public boolean isRemoteProcess() {
        return false;
    }

    @Override
    public byte[] deviceAddress() {
        return iface.deviceAddress();
    }

    @Override
    public byte[] interfaceAddress() {
        return iface.interfaceAddress();
    }

    @Override
    public byte[] packedRkey() {
        return md.packRkey(region);
    }

    @Override
    public long regionAddress() {
        return region.address();
    }

    @Override
    public long regionLength() {
        return REGION_LENGTH;
    }

    @Override
    public void connectBack(final byte[] deviceAddress, final byte[] interfaceAddress) {
        if (echo != null) {
            echo.connect(iface.connect(deviceAddress, interfaceAddress));
        }
    }

    @Override
    public void disconnect() {
        if (echo != null && !ifaceClosed) {
            echo.disconnect();
        }
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
    }

    @Override
    public int progress() {
        if (worker == null || paused || ifaceClosed) {
            return 0;
        }
        return worker.progress() + echo.pump();
    }

    @Override
    public byte[] read(final long offset, final int length) {
        return mem.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public void write(final long offset, final byte[] data) {
        MemorySegment.copy(data, 0, mem, ValueLayout.JAVA_BYTE, offset, data.length);
    }

    @Override
    public void fill(final long offset, final long length, final byte value) {
        mem.asSlice(offset, length).fill(value);
    }

    @Override
    public long word(final long offset) {
        return MemoryAtomics.getAcquire64(mem, offset);
    }

    @Override
    public Task localAdd(final long offset, final int width, final long value, final int count) {
        return FutureTask.start("local-add", () -> {
            PeerOps.localAdd(mem, offset, width, value, count);
            return "OK";
        });
    }

    @Override
    public Task watch(final long dataOffset, final int words, final long flagOffset, final long expect,
                      final long timeoutMs) {
        return FutureTask.start("watch", () -> PeerOps.watch(mem, dataOffset, words, flagOffset, expect, timeoutMs));
    }

    @Override
    public void closeInterface() {
        if (isLoopback()) {
            throw new IllegalStateException("a loopback peer is the test interface");
        }
        echo.close();
        worker.close();
        ifaceClosed = true;
    }

    @Override
    public void kill() {
        throw new UnsupportedOperationException("an in-JVM peer cannot be killed");
    }

    @Override
    public String error() {
        return echo == null ? null : echo.error();
    }

    @Override
    public void close() {
        if (echo != null && !ifaceClosed) {
            echo.close();
        }
        if (worker != null) {
            worker.close();
        }
        md.deregister(region);
        if (arena != null) {
            arena.close();
        }
    }

    /** A task on a plain thread (not a UCT object: it only touches memory). */
    static final class FutureTask implements Task {
        private final CompletableFuture<String> future = new CompletableFuture<>();
        private final Thread thread;

        private FutureTask(final String name, final java.util.concurrent.Callable<String> body) {
            thread = Thread.ofPlatform().name("conformance-" + name).daemon().unstarted(() -> {
                try {
                    future.complete(body.call());
                } catch (final Exception | AssertionError e) {
                    future.complete("FAILED " + e);
                }
            });
        }

        static FutureTask start(final String name, final java.util.concurrent.Callable<String> body) {
            final FutureTask t = new FutureTask(name, body);
            t.thread.start();
            return t;
        }

        @Override
        public boolean isDone() {
            if (future.isDone()) {
                try {
                    thread.join(); // so that the thread is gone before hygiene checks
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return true;
            }
            return false;
        }

        @Override
        public String result() {
            return future.getNow("NOT DONE");
        }
    }
}
