package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The user headers of the internal active messages that carry emulated put/get data, the data following
 * as the message's data (eager). SOFT_PUT (initiator to target, the data to write) carries the whole
 * {@link SoftTarget} prefix (read it there); SOFT_GET_DATA (target to initiator, the data read) carries the
 * request id and the address the piece was read from.
 *
 * <pre>
 *   SOFT_PUT:      | req id | dst ep | nonce | map id | address |    (SoftTarget, 5 x u64)
 *   SOFT_GET_DATA: | req id | address |                               (2 x u64)
 * </pre>
 */
public final class SoftRmaHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int PUT_LENGTH = SoftTarget.LENGTH;
    public static final int GET_DATA_LENGTH = 16;
    private static final int GET_DATA_ADDRESS_OFFSET = 8;

    private SoftRmaHeader() {
    }

    /** Writes a SOFT_PUT header at the start of {@code m} (at least {@link #PUT_LENGTH} bytes); returns m. */
    public static MemorySegment put(final MemorySegment m, final long reqId, final long dstEp, final long nonce,
                                    final long mapId, final long address) {
        m.set(LONG, SoftTarget.REQ_ID_OFFSET, reqId);
        SoftTarget.writeAfterId(m, SoftTarget.DST_EP_OFFSET, dstEp, nonce, mapId, address);
        return m;
    }

    /** The request id of a SOFT_GET_DATA header. */
    public static long getDataReqId(final MemorySegment m, final long o) {
        return m.get(LONG, o);
    }

    /** The address of the piece a SOFT_GET_DATA carries. */
    public static long getDataAddress(final MemorySegment m, final long o) {
        return m.get(LONG, o + GET_DATA_ADDRESS_OFFSET);
    }

    /** Writes a SOFT_GET_DATA header at the start of {@code m} (at least {@link #GET_DATA_LENGTH} bytes); returns m. */
    public static MemorySegment getData(final MemorySegment m, final long reqId, final long address) {
        m.set(LONG, 0, reqId);
        m.set(LONG, GET_DATA_ADDRESS_OFFSET, address);
        return m;
    }
}
