package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * EAGER: a whole tag message in one active message (sent short with the tag as the am header, or
 * copied).
 *
 * <pre>
 *   0               8
 *   +---------------+------------- ... --+
 *   | tag (u64)     | data               |
 *   +---------------+------------- ... --+
 * </pre>
 */
public final class EagerHeader {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int TAG_OFFSET = 0;
    /** Header length: the data follows. */
    public static final int LENGTH = 8;

    private EagerHeader() {
    }

    /** True if a message of {@code len} bytes holds the whole header. */
    public static boolean fits(final long len) {
        return len >= LENGTH;
    }

    public static long tag(final MemorySegment m, final long o) {
        return m.get(LONG, o + TAG_OFFSET);
    }

    public static void write(final MemorySegment m, final long o, final long tag) {
        m.set(LONG, o + TAG_OFFSET, tag);
    }
}
