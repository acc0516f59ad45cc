package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The prefix every emulated one-sided request starts with (SOFT_AMO {@link SoftAmoRequest}, SOFT_GET
 * {@link SoftGetRequest}, and SOFT_PUT's header {@link SoftRmaHeader}): which request answers, which of the
 * target's endpoints it came on, which map and where.
 *
 * <pre>
 *   0          8          16         24         32         40
 *   +----------+----------+----------+----------+----------+
 *   | req id   | dst ep   | nonce    | map id   | address  |
 *   +----------+----------+----------+----------+----------+
 *
 * nonce, map id: the key's "ucp-amo" entry ({@link AmoKeyEntry}): which context and which map
 * </pre>
 */
public final class SoftTarget {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int REQ_ID_OFFSET = 0;
    public static final int DST_EP_OFFSET = 8;
    public static final int NONCE_OFFSET = 16;
    public static final int MAP_ID_OFFSET = 24;
    public static final int ADDRESS_OFFSET = 32;
    public static final int LENGTH = 40;

    private SoftTarget() {
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

    /** Writes the prefix after its request id at {@code m[o]} (an am-short payload: the id goes as the header). */
    public static void writeAfterId(final MemorySegment m, final long o, final long dstEp, final long nonce,
                                    final long mapId, final long address) {
        m.set(LONG, o, dstEp);
        m.set(LONG, o + (NONCE_OFFSET - DST_EP_OFFSET), nonce);
        m.set(LONG, o + (MAP_ID_OFFSET - DST_EP_OFFSET), mapId);
        m.set(LONG, o + (ADDRESS_OFFSET - DST_EP_OFFSET), address);
    }
}
