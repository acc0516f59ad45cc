package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A short control message, sent am short with an id as the header and one 64-bit value as the payload:
 * SYNC_ACK, RNDV_ATS, RNDV_RTR, RNDV_ATP, FLOW, EP_REMOVED, KEEPALIVE, STREAM_ACK, SOFT_AMO_REP,
 * SOFT_AMO_NAK, EAGER_GET_DONE (what the id names and what the value holds is in {@code AmId}).
 *
 * <pre>
 * as received:
 *   0               8               16
 *   +---------------+---------------+
 *   | id (u64)      | value (u64)   |
 *   +---------------+---------------+
 * as sent: header = id, payload = value (PAYLOAD_LENGTH bytes)
 * </pre>
 */
public final class ControlMessage {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    /** The am-short header every am-short message starts with on receipt. */
    public static final int HEADER_LENGTH = 8;
    public static final int ID_OFFSET = 0;
    public static final int VALUE_OFFSET = 8;
    public static final int LENGTH = 16;
    /** What the sender passes as the am-short payload. */
    public static final int PAYLOAD_LENGTH = LENGTH - HEADER_LENGTH;

    private ControlMessage() {
    }

    /** True if a message of {@code len} bytes holds the id and the value. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long id(final MemorySegment m, final long o) {
        return m.get(LONG, o + ID_OFFSET);
    }

    public static long value(final MemorySegment m, final long o) {
        return m.get(LONG, o + VALUE_OFFSET);
    }

    /** Fills the payload buffer of an am-short control message with {@code value}. */
    public static void writePayload(final MemorySegment payload, final long value) {
        payload.set(LONG, VALUE_OFFSET - HEADER_LENGTH, value);
    }
}
