package org.openucx.jucx.ucp;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.Request;
import weft.ucs.Status;
import weft.uct.AllocationMeter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Short operations of JUCX's API allocate nothing in steady state when they finish inside their call: an
 * 8-byte tag send, an implicit put, a get and a flush return the shared completed request. (JUCX allocates a
 * request object per operation.) The receiving worker drains with Weft's own receive, which allocates
 * nothing, so the window measures the JUCX layer.
 */
@Timeout(120)
@Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
class JucxAllocationTest {
    private static final int N = 10_000;

    @ParameterizedTest
    @ValueSource(strings = {"shm,self"})
    void shortOperationsAllocateNothing(final String tls) {
        try (Pair p = new Pair(tls)) {
            final UcpMemory mem = p.context.memoryMap(new UcpMemMapParams().allocate().setLength(4096));
            final ByteBuffer key = mem.getRemoteKeyBuffer();
            final UcpRemoteKey rk = p.ab.unpackRemoteKey(key);
            final MemorySegment buf = p.alloc(64);
            final long addr = buf.address();
            final long remote = mem.getAddress();
            // warm: the first operations make the lanes' state
            assertSame(UcpRequest.DONE, p.ab.sendTaggedNonBlocking(addr, 8, 1, null), "an immediate send is shared");
            drain(p, buf);
            final long bytes = AllocationMeter.fewestBytes("JUCX " + tls + ": " + N + " x (tag send 8 B + implicit put"
                + " + get + flush)", () -> {
                    for (int i = 0; i < N; i++) {
                        buf.set(ValueLayout.JAVA_LONG, 0, i);
                        check(p.ab.sendTaggedNonBlocking(addr, 8, 1, null));
                        drain(p, buf);
                        p.ab.putNonBlockingImplicit(addr, 8, remote, rk);
                        check(p.ab.getNonBlocking(remote, rk, addr + 16, 8, null));
                        if (buf.get(ValueLayout.JAVA_LONG, 16) != i) {
                            throw new AssertionError("get " + i + " read " + buf.get(ValueLayout.JAVA_LONG, 16));
                        }
                        check(p.ab.flushNonBlocking(null));
                    }
                }, 400, 30_000);
            System.out.println("JUCX short operations: " + (double) bytes / N + " B/op (" + bytes + " B per window)");
            rk.close();
            mem.close();
        }
    }

    private static void check(final UcpRequest r) {
        if (r != UcpRequest.DONE) {
            throw new AssertionError("not finished inside the call: " + r);
        }
    }

    /** Receives the tag message on worker b with Weft's receive (no allocation). */
    private static void drain(final Pair p, final MemorySegment buf) {
        final Request r = p.b.weft.recvTag(buf, 32, 8, 1, -1L);
        while (!r.isCompleted()) {
            p.progress();
        }
        assertEquals(Status.OK, r.status());
        r.release();
    }
}
