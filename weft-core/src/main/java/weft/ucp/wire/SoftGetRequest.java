package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * SOFT_GET: a get emulated at the target, sent am short with the initiator's request id as the header.
 * The target answers with the data (an internal active message, eager or rendezvous, whose user header is
 * the request id: {@link SoftRmaHeader}) or with SOFT_AMO_NAK (status code).
 *
 * <pre>
 * as received:
 *   0          8          16         24         32         40         48
 *   +----------+----------+----------+----------+----------+----------+
 *   | req id   | dst ep   | nonce    | map id   | address  | length   |
 *   +----------+----------+----------+----------+----------+----------+
 *
 * nonce, map id: the key's "ucp-amo" entry ({@link AmoKeyEntry}): which context and which map
 * </pre>
 */
public final class SoftGetRequest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int REQ_ID_OFFSET = 0;
    public static final int DST_EP_OFFSET = 8;
    public static final int NONCE_OFFSET = 16;
    public static final int MAP_ID_OFFSET = 24;
    public static final int ADDRESS_OFFSET = 32;
    public static final int LENGTH_OFFSET = 40;
    public static final int LENGTH = 48;
    /** What the sender passes as the am-short payload (everything after the header). */
    public static final int PAYLOAD_LENGTH = LENGTH - ControlMessage.HEADER_LENGTH;

    private SoftGetRequest() {
    }

    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long reqId(final MemorySegment m, final long o) {
        return m.get(LONG, o + REQ_ID_OFFSET);
    }

    public static long dstEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + DST_EP_OFFSET);
    }

    public static long nonce(final MemorySegment m, final long o) {
        return m.get(LONG, o + NONCE_OFFSET);
    }

    public static long mapId(final MemorySegment m, final long o) {
        return m.get(LONG, o + MAP_ID_OFFSET);
    }

    public static long address(final MemorySegment m, final long o) {
        return m.get(LONG, o + ADDRESS_OFFSET);
    }

    public static long length(final MemorySegment m, final long o) {
        return m.get(LONG, o + LENGTH_OFFSET);
    }

    /** Fills the am-short payload (the request without its header) at {@code payload[0]}. */
    public static void writePayload(final MemorySegment payload, final long dstEp, final long nonce, final long mapId,
                                    final long address, final long length) {
        final int h = ControlMessage.HEADER_LENGTH;
        payload.set(LONG, DST_EP_OFFSET - h, dstEp);
        payload.set(LONG, NONCE_OFFSET - h, nonce);
        payload.set(LONG, MAP_ID_OFFSET - h, mapId);
        payload.set(LONG, ADDRESS_OFFSET - h, address);
        payload.set(LONG, LENGTH_OFFSET - h, length);
    }
}
