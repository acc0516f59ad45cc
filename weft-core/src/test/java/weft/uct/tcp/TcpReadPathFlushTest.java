package weft.uct.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.Completion;
import weft.uct.IoVector;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.uct.tcp.TcpTestSupport.progressUntil;

/**
 * On a shared socket the server role's replies flush the whole write queue, the local requester's queued
 * zero-copy sends included; the socket then stops watching writability, so the requester's completions must
 * be checked after the read too (a perftest tag_bw of 128 KiB over tcp waited for them until its 60-s watchdog).
 */
@Timeout(60)
class TcpReadPathFlushTest extends TcpInterfaceFixture {
    private static final int AM = 5;

    @Test
    void aZeroCopySendWrittenByAKeepaliveReplyCompletes() {
        final TcpInterface a = open(Config.global());
        final TcpInterface b = open(Config.global());
        final long[] got = new long[1];
        b.setAmHandler(AM, (d, o, l, f) -> {
            got[0]++;
            return Status.OK;
        });
        final TcpEndpoint ab = (TcpEndpoint) a.connect(b.deviceAddress(), b.interfaceAddress());
        progressUntil(() -> ab.conn.acceptDone && b.connectionsForTest().size() == 1
            && b.connectionsForTest().get(0).helloDone, 20000, "the handshake", a, b);
        final TcpEndpoint ba = (TcpEndpoint) b.connect(a.deviceAddress(), a.interfaceAddress());
        assertSame(b.connectionsForTest().get(0).ch, ba.ch, "one socket for the pair");
        final MemorySegment hdr = arena.allocate(8, 8);
        final MemorySegment data = arena.allocate(4096, 64);
        final Completion c = new Completion().reset(1);
        ab.ch.held = true; // queued, not written, as behind a full socket
        assertEquals(Status.IN_PROGRESS, ab.amZcopy(AM, hdr, 0, 8, new IoVector(1).add(data, 0, 4096), c));
        ab.ch.held = false; // no writability event follows: only a's replies write the queue now
        assertEquals(Status.OK, ba.check()); // b's KEEPALIVE: a's server answers it and flushes the queue
        progressUntil(() -> got[0] == 1, 20000, "the message", a, b);
        assertTrue(ab.ch.bytesWritten >= ab.ch.bytesQueued, "the queue was written by the keepalive's reply");
        progressUntil(c::isDone, 20000, "the zero-copy send's completion", a, b);
        assertEquals(Status.OK, c.status());
        assertTrue(errors.isEmpty(), errors.toString());
    }
}
