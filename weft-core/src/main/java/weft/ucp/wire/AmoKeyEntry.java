package weft.ucp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The {@code ucp-amo} entry every packed memory key ends with: what a SOFT_AMO request names so that the
 * target finds the map ({@link SoftAmoRequest}).
 *
 * <pre>
 *   0               8               16
 *   +---------------+---------------+
 *   | nonce (u64)   | map id (u64)  |
 *   +---------------+---------------+
 *
 * nonce : the owning context's random odd nonce, or for symmetric maps an even stamp of the job
 * map id: the map's id in that context
 * </pre>
 */
public final class AmoKeyEntry {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    public static final int NONCE_OFFSET = 0;
    public static final int MAP_ID_OFFSET = 8;
    public static final int LENGTH = 16;

    private AmoKeyEntry() {
    }

    public static long nonce(final MemorySegment m) {
        return m.get(LONG, NONCE_OFFSET);
    }

    public static long mapId(final MemorySegment m) {
        return m.get(LONG, MAP_ID_OFFSET);
    }

    /** The entry's bytes. */
    public static byte[] pack(final long nonce, final long mapId) {
        final byte[] b = new byte[LENGTH];
        final MemorySegment s = MemorySegment.ofArray(b);
        s.set(LONG, NONCE_OFFSET, nonce);
        s.set(LONG, MAP_ID_OFFSET, mapId);
        return b;
    }
}
