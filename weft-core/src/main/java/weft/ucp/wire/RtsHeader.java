package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RNDV_RTS (and the front of AM_RTS, whose first word is the am word instead of a tag): a rendezvous
 * send is ready; the data stays with the sender until the receiver gets it, asks for a put, or asks for it
 * over AM. The first four words are laid out as {@link EagerFirstHeader}'s, and read and written by it.
 *
 * <pre>
 *   0            8            16           24           32           40       44
 *   +------------+------------+------------+------------+------------+--------+----- ... --+
 *   | tag (u64)  | dst ep     | total      | sender req | address    | n (u32)| key list    |
 *   |            | (u64)      | (u64)      | (u64)      | (u64)      |        | (KeyList)   |
 *   +------------+------------+------------+------------+------------+--------+----- ... --+
 *
 * dst ep    : the receiver's id for its endpoint to the sender
 * total     : the message's length
 * sender req: the sender's request id, named by ATS, RTR and RTR_PUT
 * address   : the data's address in the sender when it is one off-heap region (offered for a put), else 0
 * n         : packed keys that follow, one per rendezvous lane (0: no get offered), at most MAX_KEYS
 * </pre>
 */
public final class RtsHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int TAG_OFFSET = EagerFirstHeader.TAG_OFFSET;
    public static final int DST_EP_OFFSET = EagerFirstHeader.DST_EP_OFFSET;
    public static final int TOTAL_OFFSET = EagerFirstHeader.TOTAL_OFFSET;
    public static final int SENDER_REQ_OFFSET = EagerFirstHeader.SYNC_OFFSET;
    public static final int ADDRESS_OFFSET = 32;
    public static final int KEY_COUNT_OFFSET = 40;
    /** Header length: the key list follows. */
    public static final int LENGTH = 44;
    /** The most keys a reader accepts. */
    public static final int MAX_KEYS = 16;

    private RtsHeader() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    /**
     * True if the header's counts are possible (a key count in [0, MAX_KEYS], a total length not negative);
     * the key list itself is checked against the message where it is read.
     */
    public static boolean fieldsValid(final MemorySegment m, final long o) {
        final int n = keyCount(m, o);
        return n >= 0 && n <= MAX_KEYS && total(m, o) >= 0;
    }

    public static long tag(final MemorySegment m, final long o) {
        return EagerFirstHeader.tag(m, o);
    }

    public static long dstEp(final MemorySegment m, final long o) {
        return EagerFirstHeader.dstEp(m, o);
    }

    public static long total(final MemorySegment m, final long o) {
        return EagerFirstHeader.total(m, o);
    }

    public static long senderReq(final MemorySegment m, final long o) {
        return EagerFirstHeader.syncReq(m, o);
    }

    public static long address(final MemorySegment m, final long o) {
        return m.get(LONG, o + ADDRESS_OFFSET);
    }

    public static int keyCount(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_INT_UNALIGNED, o + KEY_COUNT_OFFSET);
    }

    /** Writes the header; the caller writes the key list at {@code o + LENGTH}. */
    public static void write(final MemorySegment m, final long o, final long tag, final long dstEp, final long total,
                             final long senderReq, final long address, final int keyCount) {
        EagerFirstHeader.write(m, o, tag, dstEp, total, senderReq);
        m.set(LONG, o + ADDRESS_OFFSET, address);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, o + KEY_COUNT_OFFSET, keyCount);
    }
}
