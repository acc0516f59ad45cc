package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * EAGER_GET: a medium tag message sent by reference (GET-based eager), am short with the tag as the
 * header; the data waits in a slot of the sender's pool, which the receiver maps, until the receiver
 * answers EAGER_GET_DONE (a {@link ControlMessage} whose id is the slot token).
 *
 * <pre>
 * as received:
 *   0               8               16              24              32              40
 *   +---------------+---------------+---------------+---------------+---------------+
 *   | tag (u64)     | dst ep (u64)  | offset (u64)  | length (u64)  | token (u64)   |
 *   +---------------+---------------+---------------+---------------+---------------+
 *
 * offset, length: where the message lies in the sender's pool
 * token         : slot | generation &lt;&lt; 32, returned with EAGER_GET_DONE
 * </pre>
 * EAGER_GET_KEY, sent once per endpoint ahead of the first header (am bcopy), is
 * {@code [u64 dst ep][packed key of the pool]}: {@link #KEY_DST_EP_OFFSET}, {@link #KEY_HEADER}.
 */
public final class EagerGetHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int TAG_OFFSET = 0;
    public static final int DST_EP_OFFSET = 8;
    public static final int OFFSET_OFFSET = 16;
    public static final int LENGTH_OFFSET = 24;
    public static final int TOKEN_OFFSET = 32;
    public static final int LENGTH = 40;
    /** What the sender passes as the am-short payload (everything after the tag). */
    public static final int PAYLOAD_LENGTH = LENGTH - ControlMessage.HEADER_LENGTH;
    /** EAGER_GET_KEY: the receiver's endpoint id, then the packed key. */
    public static final int KEY_DST_EP_OFFSET = 0;
    /** EAGER_GET_KEY: where the packed key starts. */
    public static final int KEY_HEADER = 8;

    private EagerGetHeader() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    /** True if an EAGER_GET_KEY message of {@code len} bytes holds the endpoint id and a key. */
    public static boolean keyFits(final long len) {
        return len > KEY_HEADER;
    }

    public static long tag(final MemorySegment m, final long o) {
        return m.get(LONG, o + TAG_OFFSET);
    }

    public static long dstEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + DST_EP_OFFSET);
    }

    public static long offset(final MemorySegment m, final long o) {
        return m.get(LONG, o + OFFSET_OFFSET);
    }

    public static long length(final MemorySegment m, final long o) {
        return m.get(LONG, o + LENGTH_OFFSET);
    }

    public static long token(final MemorySegment m, final long o) {
        return m.get(LONG, o + TOKEN_OFFSET);
    }

    /** Fills the am-short payload (the header without the tag) at {@code payload[0]}. */
    public static void writePayload(final MemorySegment payload, final long dstEp, final long offset, final long length,
                                    final long token) {
        final int h = ControlMessage.HEADER_LENGTH;
        payload.set(LONG, DST_EP_OFFSET - h, dstEp);
        payload.set(LONG, OFFSET_OFFSET - h, offset);
        payload.set(LONG, LENGTH_OFFSET - h, length);
        payload.set(LONG, TOKEN_OFFSET - h, token);
    }

    public static long keyDstEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + KEY_DST_EP_OFFSET);
    }

    /** Writes EAGER_GET_KEY's endpoint id and {@code key}; returns the message length. */
    public static long writeKey(final MemorySegment m, final long o, final long dstEp, final byte[] key) {
        m.set(LONG, o + KEY_DST_EP_OFFSET, dstEp);
        MemorySegment.copy(key, 0, m, ValueLayout.JAVA_BYTE, o + KEY_HEADER, key.length);
        return KEY_HEADER + key.length;
    }
}
