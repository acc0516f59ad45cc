package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.TagInfo;
import weft.ucp.TagMessage;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.IoVector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tag receive whose message is already here completes inside the call; the received length and the
 * sender's tag must still be there: in the request a receive without {@link TagInfo} returns (its own,
 * not the shared {@code Request.done}), or in the TagInfo.
 */
@Timeout(60)
class ImmediateReceiveInfoTest {
    static {
        Two.warmUp();
    }

    /** Sends {@code n} bytes with {@code tag} and progresses until the receiver holds the whole message. */
    private static void arrive(final Two t, final Endpoint ab, final MemorySegment src, final long n, final long tag) {
        final Request s = ab.sendTag(tag, src, 0, n);
        t.progressUntil(() -> {
            final TagMessage m = t.b.probeTag(tag, -1L, false);
            return m != null && s.isCompleted();
        }, 10, "message " + Long.toHexString(tag) + " to arrive");
        s.release();
        for (int i = 0; i < 100; i++) {
            t.progressBoth(); // the last fragments of a multi-fragment message
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void plainReceivesOfMessagesAlreadyHereCarryLengthAndTag(final String tls) {
        try (Two t = new Two(tls, Config.global()); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = t.connectByAddress()[0];
            final MemorySegment src = arena.allocate(64 * 1024);
            for (long i = 0; i < src.byteSize(); i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            final MemorySegment dst = arena.allocate(64 * 1024);
            final long[] sizes = {0, 8, 100, 5000, 20_000};
            for (final long n : sizes) {
                // exact tag, whole buffer
                arrive(t, ab, src, n, 0x100 + n);
                Request r = t.b.recvTag(dst, 0, dst.byteSize(), 0x100 + n, -1L);
                assertTrue(r.isCompleted(), n + " B: completes inside the call");
                assertEquals(Status.OK, r.status());
                assertNotSame(Request.done(Status.OK), r, n + " B: the shared done request knows no length");
                assertEquals(n, r.length(), n + " B: received length");
                assertEquals(0x100 + n, r.senderTag(), n + " B: sender's tag");
                assertEquals(-1L, dst.asSlice(0, n).mismatch(src.asSlice(0, n)));
                r.release();

                // any tag (mask 0): the tag says which message it was
                arrive(t, ab, src, n, 0x5_0000 + n);
                r = t.b.recvTag(dst, 0, dst.byteSize(), 0, 0L);
                assertEquals(n, r.length(), n + " B wildcard: received length");
                assertEquals(0x5_0000 + n, r.senderTag(), n + " B wildcard: sender's tag");
                r.release();

                // the three-argument form
                arrive(t, ab, src, n, 0x200 + n);
                r = t.b.recvTag(dst, 0x200 + n, -1L);
                assertEquals(n, r.length(), n + " B: received length (whole-buffer form)");
                assertEquals(0x200 + n, r.senderTag());
                r.release();

                // an iov receive
                arrive(t, ab, src, n, 0x300 + n);
                final IoVector iov = new IoVector(2).add(dst, 0, 10).add(dst, 10, dst.byteSize() - 10);
                r = t.b.recvTag(iov, 0x300 + n, -1L, null, null);
                assertEquals(n, r.length(), n + " B: received length (iov)");
                assertEquals(0x300 + n, r.senderTag());
                r.release();

                // a probed-out message
                arrive(t, ab, src, n, 0x400 + n);
                final TagMessage m = t.b.probeTag(0x400 + n, -1L, true);
                r = t.b.recvTag(m, dst, 0, dst.byteSize());
                assertEquals(n, r.length(), n + " B: received length (probed message)");
                assertEquals(0x400 + n, r.senderTag());
                r.release();
            }
            // truncated: the status says so and the length is the sender's
            arrive(t, ab, src, 100, 0x77);
            final Request r = t.b.recvTag(dst, 0, 10, 0x77, -1L);
            assertEquals(Status.MESSAGE_TRUNCATED, r.status());
            assertEquals(100, r.length(), "the sender's length");
            assertEquals(0x77, r.senderTag());
            r.release();

            // with a TagInfo the info carries it (the request may be the shared done one)
            final TagInfo info = new TagInfo();
            arrive(t, ab, src, 8, 0x88);
            final Request q = t.b.recvTag(dst, 0, dst.byteSize(), 0x88, -1L, info, null);
            assertSame(Request.done(Status.OK), q, "with a TagInfo nothing is taken from the pool");
            assertEquals(8, info.length());
            assertEquals(0x88, info.senderTag());
        }
    }
}
