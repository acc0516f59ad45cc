package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * WIREUP: pairs two endpoints. A request carries the sender's worker address and the connection number
 * (the n-th endpoint its worker made to ours); the reply carries no address.
 *
 * <pre>
 *   0      1               9               17              25
 *   +------+---------------+---------------+---------------+------------- ... --+
 *   | type | src ep (u64)  | dst ep (u64)  | conn sn (u64) | worker address     |
 *   | (u8) |               |               |               | (requests only)    |
 *   +------+---------------+---------------+---------------+------------- ... --+
 *
 * type   : REQUEST or REPLY
 * src ep : the sender's endpoint id (the receiver names it from now on)
 * dst ep : the receiver's endpoint id (a reply), -1 in a request
 * </pre>
 */
public final class WireupMessage {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final byte REQUEST = 1;
    public static final byte REPLY = 2;
    public static final int TYPE_OFFSET = 0;
    public static final int SRC_EP_OFFSET = 1;
    public static final int DST_EP_OFFSET = 9;
    public static final int CONN_SN_OFFSET = 17;
    /** Header length: the worker address follows. */
    public static final int LENGTH = 25;

    private WireupMessage() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static byte type(final MemorySegment m, final long o) {
        return m.get(ValueLayout.JAVA_BYTE, o + TYPE_OFFSET);
    }

    public static long srcEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + SRC_EP_OFFSET);
    }

    public static long dstEp(final MemorySegment m, final long o) {
        return m.get(LONG, o + DST_EP_OFFSET);
    }

    public static long connSn(final MemorySegment m, final long o) {
        return m.get(LONG, o + CONN_SN_OFFSET);
    }

    /** Writes the header and {@code address} after it; returns the message length. */
    public static long write(final MemorySegment m, final long o, final byte type, final long srcEp, final long dstEp,
                             final long connSn, final byte[] address) {
        m.set(ValueLayout.JAVA_BYTE, o + TYPE_OFFSET, type);
        m.set(LONG, o + SRC_EP_OFFSET, srcEp);
        m.set(LONG, o + DST_EP_OFFSET, dstEp);
        m.set(LONG, o + CONN_SN_OFFSET, connSn);
        MemorySegment.copy(address, 0, m, ValueLayout.JAVA_BYTE, o + LENGTH, address.length);
        return LENGTH + address.length;
    }
}
