package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.Endpoint;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Endpoint#unpackRkey} on a closed or failed endpoint fails with the endpoint's status, as every other
 * call on it does, instead of giving a key bound to a dead endpoint.
 */
@Timeout(60)
class UnpackRkeyOnDeadEndpointTest {
    static {
        Two.warmUp();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,cma,self", "shm,self", "tcp,self"})
    void closedAndFailedEndpointsRefuseToUnpack(final String tls) {
        try (Two t = new Two(tls, Config.global()); Arena arena = Arena.ofConfined();
             MemoryMap map = t.ctxB.memMap(4096, MemoryMap.ALLOCATE)) {
            final byte[] packed = map.packRkey();
            final Endpoint[] e = t.connectByAddress();
            final MemorySegment src = arena.allocate(8).fill((byte) 9);
            wire(t, e, arena);

            // alive: the key works
            final Rkey live = e[0].unpackRkey(packed);
            final Status started = e[0].putNbi(src, 0, 8, map.segment().address(), live);
            assertTrue(!started.isError(), "put: " + started);
            final Request flushed = e[0].flush(); // remote completion
            t.await(flushed, 5, "flush");
            assertEquals(Status.OK, flushed.status());
            flushed.release();
            assertEquals((byte) 9, map.segment().get(ValueLayout.JAVA_BYTE, 7));
            live.close();

            // the peer closes its endpoint: ours fails with CONNECTION_RESET
            e[1].close();
            t.progressUntil(() -> e[0].status().isError(), 5, "our endpoint to fail");
            final Status failed = e[0].status();
            assertEquals(Status.CONNECTION_RESET, failed);
            final WeftException f = assertThrows(WeftException.class, () -> e[0].unpackRkey(packed),
                "a failed endpoint gave a key");
            assertEquals(failed, f.status());
            assertTrue(f.getMessage().contains("unpackRkey"), f.getMessage());

            // then closed by us: the same status a send gets (the failure it had)
            e[0].close();
            final Request s = e[0].sendTag(1, src, 0, 8);
            final WeftException c = assertThrows(WeftException.class, () -> e[0].unpackRkey(packed),
                "a closed endpoint gave a key");
            assertEquals(s.status(), c.status());
            s.release();
        }
    }

    /** A synchronous send each way: both endpoints know their peer's id (the peer is told when one closes). */
    private static void wire(final Two t, final Endpoint[] e, final Arena arena) {
        for (int i = 0; i < 2; i++) {
            final MemorySegment buf = arena.allocate(8);
            final Request r = (i == 0 ? t.b : t.a).recvTag(buf, 0, 8, 77, -1L);
            final Request s = e[i].sendTagSync(77, buf, 0, 8);
            t.await(s, 5, "sync send");
            t.await(r, 5, "receive");
            assertEquals(Status.OK, s.status());
            s.release();
            r.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void anEndpointClosedByItsOwnerRefusesAtOnce(final String tls) {
        try (Two t = new Two(tls, Config.global()); MemoryMap map = t.ctxB.memMap(4096, MemoryMap.ALLOCATE)) {
            final Endpoint[] e = t.connectByAddress();
            e[0].close();
            assertEquals(Status.CLOSED, e[0].status());
            assertEquals(Status.CLOSED, assertThrows(WeftException.class, () -> e[0].unpackRkey(map.packRkey()))
                .status(), "a closed endpoint gave a key");
        }
    }
}
