package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * EAGER_FIRST: the first fragment of a tag message sent in several (copied or zero-copy; the receiver
 * sees no difference), or of a synchronous send.
 *
 * <pre>
 *   0               8               16              24              32
 *   +---------------+---------------+---------------+---------------+------------- ... --+
 *   | tag (u64)     | dst ep (u64)  | total (u64)   | sync req (u64)| data (a prefix)    |
 *   +---------------+---------------+---------------+---------------+------------- ... --+
 *
 * dst ep  : the receiver's id for its endpoint to the sender (learned in wireup)
 * total   : the message's length, every fragment together (0 .. the data of this one is the prefix)
 * sync req: the sender's request id, answered by SYNC_ACK once a receive matched; -1 if not synchronous
 * </pre>
 * The rest follows in EAGER_MIDDLE fragments ({@link EagerMiddleHeader}), back to back on the same lane.
 */
public final class EagerFirstHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int TAG_OFFSET = 0;
    public static final int DST_EP_OFFSET = 8;
    public static final int TOTAL_OFFSET = 16;
    public static final int SYNC_OFFSET = 24;
    /** Header length: the data follows. */
    public static final int LENGTH = 32;

    private EagerFirstHeader() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long tag(final MemorySegment m, final long o) {
        return m.get(LONG, o + TAG_OFFSET);
    }

    public static long dstEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + DST_EP_OFFSET);
    }

    public static long total(final MemorySegment m, final long o) {
        return m.get(LONG, o + TOTAL_OFFSET);
    }

    public static long syncReq(final MemorySegment m, final long o) {
        return m.get(LONG, o + SYNC_OFFSET);
    }

    public static void write(final MemorySegment m, final long o, final long tag, final long dstEp, final long total,
                             final long syncReq) {
        m.set(LONG, o + TAG_OFFSET, tag);
        m.set(LONG, o + DST_EP_OFFSET, dstEp);
        m.set(LONG, o + TOTAL_OFFSET, total);
        m.set(LONG, o + SYNC_OFFSET, syncReq);
    }
}
