package org.openucx.jucx.ucp;

import org.openucx.jucx.ucs.UcsConstants;
import weft.runtime.Runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * One PE of {@link JucxCrossProcessTest}: two processes connect by worker address (swapped through the
 * launcher's runtime) and exchange tag messages of every size class, an eager and a rendezvous active
 * message, and put/get on each other's registered and allocated memory. Exits non-zero on any mismatch.
 */
public final class JucxPeerMain {
    private JucxPeerMain() {
    }

    public static void main(final String[] args) throws Exception {
        try (Runtime rt = Runtime.init(); Arena arena = Arena.ofShared();
             UcpContext ctx = new UcpContext(new UcpParams().requestTagFeature().requestAmFeature()
                 .requestRmaFeature().requestStreamFeature());
             UcpWorker w = ctx.newWorker(new UcpWorkerParams())) {
            final int me = rt.rank();
            final int peer = 1 - me;
            final long len = 4 << 20;
            final UcpMemory reg = ctx.registerMemory(ByteBuffer.allocateDirect((int) len));
            final UcpMemory alloc = ctx.memoryMap(new UcpMemMapParams().allocate().setLength(len));
            final byte[][] addrs = rt.allgather(Jucx.bytes(w.getAddress()));
            final byte[][] keyReg = rt.allgather(Jucx.bytes(reg.getRemoteKeyBuffer()));
            final byte[][] keyAlloc = rt.allgather(Jucx.bytes(alloc.getRemoteKeyBuffer()));
            final byte[][] bases = rt.allgather(longs(reg.getAddress(), alloc.getAddress()));
            final UcpEndpoint ep = w.newEndpoint(new UcpEndpointParams().setUcpAddress(Jucx.direct(addrs[peer]))
                .setPeerErrorHandlingMode().setName("pe" + me + "-to-pe" + peer));
            // tag: each PE sends every size to the other
            for (final long n : new long[] {0, 8, 5000, 100_000, 2 << 20}) {
                final MemorySegment src = arena.allocate(Math.max(1, n));
                final MemorySegment dst = arena.allocate(Math.max(1, n));
                Pair.fill(src, n, (int) n + me);
                final UcpRequest r = w.recvTaggedNonBlocking(dst.address(), n, n, -1L, null);
                final UcpRequest s = ep.sendTaggedNonBlocking(src.address(), n, n, null);
                wait(w, s);
                wait(w, r);
                check(r.getStatus() == UcsConstants.STATUS.UCS_OK && r.getRecvSize() == n, "tag " + n + ": " + r);
                Pair.check(dst, n, (int) n + peer, "tag " + n);
            }
            // active messages: eager and rendezvous, data checked in the handler
            final int[] got = new int[1];
            final MemorySegment into = arena.allocate(1 << 20);
            final UcpRequest[] rndv = new UcpRequest[1];
            w.setAmRecvHandler(1, (h, hl, data, reply) -> {
                if (data.isDataValid()) {
                    Pair.check(MemorySegment.ofAddress(data.getDataAddress()).reinterpret(data.getLength()),
                        data.getLength(), 40 + peer, "eager AM");
                } else {
                    rndv[0] = data.receive(into.address(), null);
                }
                got[0]++;
                return UcsConstants.STATUS.UCS_OK;
            });
            final MemorySegment amData = arena.allocate(1 << 20);
            Pair.fill(amData, 1 << 20, 40 + me);
            sync(w, ep, arena); // both handlers set
            wait(w, ep.sendAmNonBlocking(1, 0, 0, amData.address(), 300, 0, null));
            wait(w, ep.sendAmNonBlocking(1, 0, 0, amData.address(), 1 << 20, UcpConstants.UCP_AM_SEND_FLAG_RNDV, null));
            while (got[0] < 2 || rndv[0] == null || !rndv[0].isCompleted()) {
                w.progress();
            }
            Pair.check(into, 1 << 20, 40 + peer, "rendezvous AM");
            // put into the peer's registered and allocated memory, flush, read back with get
            final long[] b = unlongs(bases[peer]);
            final byte[][] keys = {keyReg[peer], keyAlloc[peer]};
            for (int k = 0; k < 2; k++) {
                final UcpRemoteKey rk = ep.unpackRemoteKey(Jucx.direct(keys[k]));
                final MemorySegment src = arena.allocate(len / 2);
                Pair.fill(src, len / 2, 60 + me + k);
                final long at = b[k] + me * (len / 2);
                wait(w, ep.putNonBlocking(src.address(), len / 2, at, rk, null));
                wait(w, ep.flushNonBlocking(null));
                final MemorySegment back = arena.allocate(len / 2);
                wait(w, ep.getNonBlocking(at, rk, back.address(), len / 2, null));
                Pair.check(back, len / 2, 60 + me + k, (k == 0 ? "registered" : "allocated") + " put/get");
                rk.close();
            }
            sync(w, ep, arena); // progressing: over tcp the target's progress serves the peer's put/get
            // the peer's puts landed in this PE's memory
            Pair.check(MemorySegment.ofAddress(reg.getAddress() + peer * (len / 2)).reinterpret(len / 2), len / 2,
                60 + peer, "peer's put into registered memory");
            Pair.check(MemorySegment.ofAddress(alloc.getAddress() + peer * (len / 2)).reinterpret(len / 2), len / 2,
                61 + peer, "peer's put into allocated memory");
            sync(w, ep, arena);
            ep.close();
            reg.deregister();
            alloc.deregister();
            System.out.println("PE " + me + " OK");
        }
    }

    /** A barrier of the two PEs through the endpoint itself, progressing the worker while it waits. */
    private static void sync(final UcpWorker w, final UcpEndpoint ep, final Arena arena) throws Exception {
        final MemorySegment b = arena.allocate(8);
        final UcpRequest r = w.recvTaggedNonBlocking(b.address(), 8, SYNC_TAG, -1L, null);
        wait(w, ep.sendTaggedNonBlocking(b.address(), 8, SYNC_TAG, null));
        wait(w, r);
    }

    private static final long SYNC_TAG = 0x5EC0_0000_0000_0000L;

    private static void wait(final UcpWorker w, final UcpRequest r) throws Exception {
        w.progressRequest(r);
        check(r.getStatus() == UcsConstants.STATUS.UCS_OK, "request failed: " + r);
    }

    private static void check(final boolean ok, final String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    private static byte[] longs(final long a, final long b) {
        final MemorySegment m = MemorySegment.ofArray(new byte[16]);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, a);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, b);
        return m.toArray(ValueLayout.JAVA_BYTE);
    }

    private static long[] unlongs(final byte[] x) {
        final MemorySegment m = MemorySegment.ofArray(x);
        return new long[] {m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), m.get(ValueLayout.JAVA_LONG_UNALIGNED, 8)};
    }
}
