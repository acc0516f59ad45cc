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

    /** A SOFT_PUT header. */
    public static MemorySegment put(final long reqId, final long dstEp, final long nonce, final long mapId,
                                    final long address) {
        final MemorySegment m = MemorySegment.ofArray(new long[PUT_LENGTH / 8]);
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

    /** A SOFT_GET_DATA header. */
    public static MemorySegment getData(final long reqId, final long address) {
        final MemorySegment m = MemorySegment.ofArray(new long[2]);
        m.set(LONG, 0, reqId);
        m.set(LONG, GET_DATA_ADDRESS_OFFSET, address);
        return m;
    }
}
