package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * SOFT_GET: a get emulated at the target, sent am short with the initiator's request id as the header: the
 * {@link SoftTarget} prefix (read the request id, endpoint, map and address there), the length, and the most
 * bytes one answer may carry. The target answers with {@link #answers} internal active messages, each with
 * {@link SoftRmaHeader}'s SOFT_GET_DATA header and the next bytes (the initiator sizes them to fit one message of
 * its AM lane, so it copies each straight from the lane's buffer, with nothing to reassemble), or with as many
 * SOFT_AMO_NAKs (status code).
 *
 * <pre>
 *   0 .. 40: SoftTarget prefix | 40: length (u64) | 48: answer max (u64) | 56
 * </pre>
 */
public final class SoftGetRequest {
    public static final int LENGTH_OFFSET = SoftTarget.LENGTH;
    public static final int ANSWER_MAX_OFFSET = LENGTH_OFFSET + 8;
    public static final int LENGTH = ANSWER_MAX_OFFSET + 8;
    /** The smallest answer a target accepts to cut a piece into (bounds the answers one request costs it). */
    public static final long MIN_ANSWER = 1024;
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

    public static long answerMax(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, o + ANSWER_MAX_OFFSET);
    }

    /** How many answers a piece of {@code length} bytes gets, at most {@code answerMax} bytes each (one if empty). */
    public static long answers(final long length, final long answerMax) {
        return length <= answerMax ? 1 : (length + answerMax - 1) / answerMax;
    }

    /** Fills the am-short payload (the request without its header) at {@code payload[0]}. */
    public static void writePayload(final MemorySegment payload, final long dstEp, final long nonce, final long mapId,
                                    final long address, final long length, final long answerMax) {
        SoftTarget.writeAfterId(payload, 0, dstEp, nonce, mapId, address);
        payload.set(ValueLayout.JAVA_LONG_UNALIGNED, LENGTH_OFFSET - ControlMessage.HEADER_LENGTH, length);
        payload.set(ValueLayout.JAVA_LONG_UNALIGNED, ANSWER_MAX_OFFSET - ControlMessage.HEADER_LENGTH, answerMax);
    }
}
