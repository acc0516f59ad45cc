package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * STREAM_DATA: the next bytes of an endpoint's byte stream (sent short with the id as the am header,
 * copied, or zero-copy); the receiver answers with STREAM_ACK, a {@link ControlMessage} carrying the bytes
 * it consumed so far.
 *
 * <pre>
 *   0               8
 *   +---------------+------------- ... --+
 *   | dst ep (u64)  | stream bytes       |
 *   +---------------+------------- ... --+
 * </pre>
 */
public final class StreamHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int DST_EP_OFFSET = 0;
    /** Header length: the bytes follow. */
    public static final int LENGTH = 8;

    private StreamHeader() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long dstEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + DST_EP_OFFSET);
    }

    public static void write(final MemorySegment m, final long o, final long dstEp) {
        m.set(LONG, o + DST_EP_OFFSET, dstEp);
    }
}
