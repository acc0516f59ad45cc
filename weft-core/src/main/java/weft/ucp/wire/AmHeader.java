package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The headers of user active messages sent eager: AM_SHORT (the am word only, sent as the am-short
 * header), AM_SINGLE (one message) and AM_FIRST (the first of several; the rest are AM_MIDDLE
 * {@link FragmentHeader}s, offsets counted in user header + data). The user header travels before the
 * data, as one run of bytes.
 *
 * <pre>
 *   0            8            16           24           32           40
 *   +------------+------------+------------+------------+------------+------------- ... --+
 *   | am word    | hdr length | reply ep   | dst ep     | total      | user header + data |
 *   +------------+------------+------------+------------+------------+------------- ... --+
 *   |&lt;------------- AM_SINGLE: SINGLE_LENGTH --&gt;|&lt;-- AM_FIRST only: FIRST_LENGTH -&gt;|
 *   AM_SHORT: [am word][data]
 *
 * am word   : [u32 user id][u32 send flags]
 * hdr length: bytes of the user header at the front of the bytes that follow
 * reply ep  : the sender's endpoint id when it asked for a reply endpoint (SEND_REPLY), else -1
 * dst ep    : the receiver's id for its endpoint to the sender; total: user header + data, all fragments
 * </pre>
 * AM_RTS, a rendezvous active message, is an {@link RtsHeader} whose first word is the am word, then the
 * key list, then {@code [u64 hdr length][u64 reply ep]} ({@link #RTS_TRAILER}) and the user header.
 */
public final class AmHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int WORD_OFFSET = 0;
    public static final int HEADER_LENGTH_OFFSET = 8;
    public static final int REPLY_EP_OFFSET = 16;
    public static final int DST_EP_OFFSET = 24;
    public static final int TOTAL_OFFSET = 32;
    /** AM_SHORT: the am word, then the data. */
    public static final int SHORT_LENGTH = 8;
    public static final int SINGLE_LENGTH = 24;
    public static final int FIRST_LENGTH = 40;
    /** AM_RTS's trailer after the key list: header length and reply endpoint. */
    public static final int RTS_TRAILER = 16;
    /** Offsets in AM_RTS's trailer. */
    public static final int RTS_HEADER_LENGTH_OFFSET = 0;
    public static final int RTS_REPLY_EP_OFFSET = 8;

    private AmHeader() {
    }

    /** The am word of user id {@code id} and send flags {@code flags}. */
    public static long word(final int id, final int flags) {
        return (id & 0xFFFFFFFFL) | (long) flags << 32;
    }

    public static int id(final long word) {
        return (int) word;
    }

    public static int flags(final long word) {
        return (int) (word >>> 32);
    }

    public static long word(final MemorySegment m, final long o) {
        return m.get(LONG, o + WORD_OFFSET);
    }

    public static long headerLength(final MemorySegment m, final long o) {
        return m.get(LONG, o + HEADER_LENGTH_OFFSET);
    }

    public static long replyEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + REPLY_EP_OFFSET);
    }

    public static long dstEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + DST_EP_OFFSET);
    }

    public static long total(final MemorySegment m, final long o) {
        return m.get(LONG, o + TOTAL_OFFSET);
    }

    /** Writes AM_SINGLE's header (AM_FIRST's first three words). */
    public static void writeSingle(final MemorySegment m, final long o, final long word, final long headerLength,
                                   final long replyEp) {
        m.set(LONG, o + WORD_OFFSET, word);
        m.set(LONG, o + HEADER_LENGTH_OFFSET, headerLength);
        m.set(LONG, o + REPLY_EP_OFFSET, replyEp);
    }

    public static void writeFirst(final MemorySegment m, final long o, final long word, final long headerLength,
                                  final long replyEp, final long dstEp, final long total) {
        writeSingle(m, o, word, headerLength, replyEp);
        m.set(LONG, o + DST_EP_OFFSET, dstEp);
        m.set(LONG, o + TOTAL_OFFSET, total);
    }

    /** AM_RTS trailer at {@code m[p]}: the user header's length. */
    public static long rtsHeaderLength(final MemorySegment m, final long p) {
        return m.get(LONG, p + RTS_HEADER_LENGTH_OFFSET);
    }

    /** AM_RTS trailer at {@code m[p]}: the reply endpoint or -1. */
    public static long rtsReplyEp(final MemorySegment m, final long p) {
        return m.get(LONG, p + RTS_REPLY_EP_OFFSET);
    }

    public static void writeRtsTrailer(final MemorySegment m, final long p, final long headerLength,
                                       final long replyEp) {
        m.set(LONG, p + RTS_HEADER_LENGTH_OFFSET, headerLength);
        m.set(LONG, p + RTS_REPLY_EP_OFFSET, replyEp);
    }
}
