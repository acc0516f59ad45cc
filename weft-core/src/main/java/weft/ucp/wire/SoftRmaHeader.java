package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The user header of the internal active messages that carry emulated put/get data: SOFT_PUT (initiator
 * to target, the data to write) and SOFT_GET_DATA (target to initiator, the data read; only the request id
 * and the address are meaningful: where the piece was read). The data follows as the message's data, eager.
 *
 * <pre>
 *   SOFT_PUT:      | req id | dst ep | nonce | map id | address |    (5 x u64)
 *   SOFT_GET_DATA: | req id | address |                               (2 x u64)
 * </pre>
 */
public final class SoftRmaHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int REQ_ID_OFFSET = 0;
    public static final int DST_EP_OFFSET = 8;
    public static final int NONCE_OFFSET = 16;
    public static final int MAP_ID_OFFSET = 24;
    public static final int ADDRESS_OFFSET = 32;
    public static final int PUT_LENGTH = 40;
    public static final int GET_DATA_LENGTH = 16;
    private static final int GET_DATA_ADDRESS_OFFSET = 8;

    private SoftRmaHeader() {
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

    /** A SOFT_PUT header. */
    public static MemorySegment put(final long reqId, final long dstEp, final long nonce, final long mapId,
                                    final long address) {
        final MemorySegment m = MemorySegment.ofArray(new long[PUT_LENGTH / 8]);
        m.set(LONG, REQ_ID_OFFSET, reqId);
        m.set(LONG, DST_EP_OFFSET, dstEp);
        m.set(LONG, NONCE_OFFSET, nonce);
        m.set(LONG, MAP_ID_OFFSET, mapId);
        m.set(LONG, ADDRESS_OFFSET, address);
        return m;
    }

    /** The address of the piece a SOFT_GET_DATA carries. */
    public static long getDataAddress(final MemorySegment m, final long o) {
        return m.get(LONG, o + GET_DATA_ADDRESS_OFFSET);
    }

    /** A SOFT_GET_DATA header. */
    public static MemorySegment getData(final long reqId, final long address) {
        final MemorySegment m = MemorySegment.ofArray(new long[2]);
        m.set(LONG, REQ_ID_OFFSET, reqId);
        m.set(LONG, GET_DATA_ADDRESS_OFFSET, address);
        return m;
    }
}
