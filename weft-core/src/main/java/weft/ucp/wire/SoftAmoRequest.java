package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * SOFT_AMO: an atomic emulated at the target, sent am short with the initiator's request id as the
 * header; it starts with the {@link SoftTarget} prefix (read the request id, endpoint, map and address there);
 * answered by SOFT_AMO_REP (old value, or the ack of a post) or SOFT_AMO_NAK (status code), both
 * {@link ControlMessage}s naming that request.
 *
 * <pre>
 * as received:
 *   0          8          16         24         32         40         48         56   57   58   59    64
 *   +----------+----------+----------+----------+----------+----------+----------+----+----+----+-----+
 *   | req id   | dst ep   | nonce    | map id   | address  | value    | compare  | op |size|post| pad |
 *   | (u64)    | (u64)    | (u64)    | (u64)    | (u64)    | (u64)    | (u64)    | u8 | u8 | u8 |     |
 *   +----------+----------+----------+----------+----------+----------+----------+----+----+----+-----+
 *
 * nonce, map id: the key's "ucp-amo" entry ({@link AmoKeyEntry}): which context and which map
 * op          : AtomicOp ordinal; size: 4 or 8; post: 1 for an atomic without result
 * </pre>
 */
public final class SoftAmoRequest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int VALUE_OFFSET = SoftTarget.LENGTH;
    public static final int COMPARE_OFFSET = 48;
    public static final int OP_OFFSET = 56;
    public static final int SIZE_OFFSET = 57;
    public static final int POST_OFFSET = 58;
    public static final int LENGTH = 64;
    /** What the sender passes as the am-short payload (everything after the header). */
    public static final int PAYLOAD_LENGTH = LENGTH - ControlMessage.HEADER_LENGTH;

    private SoftAmoRequest() {
    }

    /** True if a message of {@code len} bytes holds the whole request. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long value(final MemorySegment m, final long o) {
        return m.get(LONG, o + VALUE_OFFSET);
    }

    public static long compare(final MemorySegment m, final long o) {
        return m.get(LONG, o + COMPARE_OFFSET);
    }

    public static int op(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_BYTE, o + OP_OFFSET);
    }

    public static int size(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_BYTE, o + SIZE_OFFSET);
    }

    public static boolean post(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_BYTE, o + POST_OFFSET) != 0;
    }

    /** Fills the am-short payload (the request without its header) at {@code payload[0]}. */
    public static void writePayload(final MemorySegment payload, final long dstEp, final long nonce, final long mapId,
                                    final long address, final long value, final long compare, final int op,
                                    final int size, final boolean post) {
        final int h = ControlMessage.HEADER_LENGTH;
        SoftTarget.writeAfterId(payload, 0, dstEp, nonce, mapId, address);
        payload.set(LONG, VALUE_OFFSET - h, value);
        payload.set(LONG, COMPARE_OFFSET - h, compare);
        payload.set(ValueLayout.JAVA_BYTE, OP_OFFSET - h, (byte) op);
        payload.set(ValueLayout.JAVA_BYTE, SIZE_OFFSET - h, (byte) size);
        payload.set(ValueLayout.JAVA_BYTE, POST_OFFSET - h, (byte) (post ? 1 : 0));
    }
}
