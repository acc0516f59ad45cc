package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RNDV_RTR_PUT: the receiver of a rendezvous asks the sender to put the data into its registered buffer.
 *
 * <pre>
 *   0            8            16           24           32       36
 *   +------------+------------+------------+------------+--------+----- ... --+
 *   | sender req | recv req   | address    | length     | n (u32)| key list    |
 *   | (u64)      | (u64)      | (u64)      | (u64)      |        | (KeyList)   |
 *   +------------+------------+------------+------------+--------+----- ... --+
 *
 * sender req: the sender's request (from the RTS); recv req: the receiver's, named by ATP
 * address, length: where the data goes and how many bytes the receive takes
 * n         : packed keys of the receive buffer, one per rendezvous lane
 * </pre>
 */
public final class RtrPutHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int SENDER_REQ_OFFSET = 0;
    public static final int RECV_REQ_OFFSET = 8;
    public static final int ADDRESS_OFFSET = 16;
    public static final int LENGTH_OFFSET = 24;
    public static final int KEY_COUNT_OFFSET = 32;
    /** Header length: the key list follows. */
    public static final int LENGTH = 36;

    private RtrPutHeader() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long senderReq(final MemorySegment m, final long o) {
        return m.get(LONG, o + SENDER_REQ_OFFSET);
    }

    public static long recvReq(final MemorySegment m, final long o) {
        return m.get(LONG, o + RECV_REQ_OFFSET);
    }

    public static long address(final MemorySegment m, final long o) {
        return m.get(LONG, o + ADDRESS_OFFSET);
    }

    public static long length(final MemorySegment m, final long o) {
        return m.get(LONG, o + LENGTH_OFFSET);
    }

    public static int keyCount(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_INT_UNALIGNED, o + KEY_COUNT_OFFSET);
    }

    /** Writes the header; the caller writes the key list at {@code o + LENGTH}. */
    public static void write(final MemorySegment m, final long o, final long senderReq, final long recvReq,
                             final long address, final long length, final int keyCount) {
        m.set(LONG, o + SENDER_REQ_OFFSET, senderReq);
        m.set(LONG, o + RECV_REQ_OFFSET, recvReq);
        m.set(LONG, o + ADDRESS_OFFSET, address);
        m.set(LONG, o + LENGTH_OFFSET, length);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, o + KEY_COUNT_OFFSET, keyCount);
    }
}
