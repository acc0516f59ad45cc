package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A fragment placed by its offset: EAGER_MIDDLE and AM_MIDDLE (the id is the receiver's endpoint, whose
 * message being rebuilt it continues) and RNDV_DATA (the id is the receiver's request, named in its RTR).
 *
 * <pre>
 *   0               8               16
 *   +---------------+---------------+------------- ... --+
 *   | id (u64)      | offset (u64)  | data               |
 *   +---------------+---------------+------------- ... --+
 *
 * offset: where the data goes in the message (EAGER_MIDDLE and AM_MIDDLE: exactly where the previous
 *         fragment ended; RNDV_DATA: anywhere inside the message when the receiver allowed any order)
 * </pre>
 */
public final class FragmentHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int ID_OFFSET = 0;
    public static final int OFFSET_OFFSET = 8;
    /** Header length: the data follows. */
    public static final int LENGTH = 16;

    private FragmentHeader() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long id(final MemorySegment m, final long o) {
        return m.get(LONG, o + ID_OFFSET);
    }

    public static long offset(final MemorySegment m, final long o) {
        return m.get(LONG, o + OFFSET_OFFSET);
    }

    public static void write(final MemorySegment m, final long o, final long id, final long offset) {
        m.set(LONG, o + ID_OFFSET, id);
        m.set(LONG, o + OFFSET_OFFSET, offset);
    }
}
