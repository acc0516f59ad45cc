package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * SOFT_GET: a get emulated at the target, sent am short with the initiator's request id as the header: the
 * {@link SoftTarget} prefix (read the request id, endpoint, map and address there), then the length. The
 * target answers with the data (an internal active message whose user header is {@link SoftRmaHeader}'s
 * SOFT_GET_DATA form) or with SOFT_AMO_NAK (status code).
 *
 * <pre>
 *   0 .. 40: SoftTarget prefix | 40: length (u64) | 48
 * </pre>
 */
public final class SoftGetRequest {
    public static final int LENGTH_OFFSET = SoftTarget.LENGTH;
    public static final int LENGTH = LENGTH_OFFSET + 8;
    /** What the sender passes as the am-short payload (everything after the header). */
    public static final int PAYLOAD_LENGTH = LENGTH - ControlMessage.HEADER_LENGTH;

    private SoftGetRequest() {
    }

    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long length(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, o + LENGTH_OFFSET);
    }

    /** Fills the am-short payload (the request without its header) at {@code payload[0]}. */
    public static void writePayload(final MemorySegment payload, final long dstEp, final long nonce, final long mapId,
                                    final long address, final long length) {
        SoftTarget.writeAfterId(payload, 0, dstEp, nonce, mapId, address);
        payload.set(ValueLayout.JAVA_LONG_UNALIGNED, LENGTH_OFFSET - ControlMessage.HEADER_LENGTH, length);
    }
}
