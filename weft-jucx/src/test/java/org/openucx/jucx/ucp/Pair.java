package org.openucx.jucx.ucp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

/** Two workers of one context, connected both ways by worker address; progresses both while waiting. */
final class Pair implements AutoCloseable {
    static final long WAIT_NS = 60_000_000_000L; // a hang guard, not a speed bound

    final UcpContext context;
    final UcpWorker a;
    final UcpWorker b;
    final UcpEndpoint ab;
    final UcpEndpoint ba;
    final Arena arena = Arena.ofShared();

    Pair(final String tls) {
        final UcpParams p = new UcpParams().requestTagFeature().requestStreamFeature().requestAmFeature()
            .requestRmaFeature().requestAtomic64BitFeature().requestWakeupFeature();
        if (tls != null) {
            p.setConfig("TLS", tls);
        }
        context = new UcpContext(p);
        a = context.newWorker(new UcpWorkerParams());
        b = context.newWorker(new UcpWorkerParams());
        ab = a.newEndpoint(new UcpEndpointParams().setUcpAddress(b.getAddress()).setName("a-to-b"));
        ba = b.newEndpoint(new UcpEndpointParams().setUcpAddress(a.getAddress()).setName("b-to-a"));
    }

    MemorySegment alloc(final long n) {
        return arena.allocate(Math.max(1, n), 64);
    }

    void progress() {
        try {
            a.progress();
            b.progress();
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    void await(final UcpRequest r) {
        until(r::isCompleted, "request " + r);
    }

    void until(final BooleanSupplier done, final String what) {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!done.getAsBoolean()) {
            progress();
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not done within the hang guard: " + what);
            }
        }
    }

    static void fill(final MemorySegment s, final long n, final int seed) {
        for (long i = 0; i < n; i++) {
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
    }

    static void check(final MemorySegment s, final long n, final int seed, final String what) {
        for (long i = 0; i < n; i++) {
            if (s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != (byte) (i * 31 + seed)) {
                throw new AssertionError(what + ": byte " + i + " of " + n + " differs");
            }
        }
    }

    @Override
    public void close() {
        ab.close();
        ba.close();
        a.close();
        b.close();
        context.close();
        arena.close();
    }
}
