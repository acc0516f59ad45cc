package weft.ucp.wire;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The packed remote keys that close RNDV_RTS, AM_RTS and RNDV_RTR_PUT: {@code n} entries (n in the
 * message's header), one per rendezvous lane, in lane order.
 *
 * <pre>
 *   0       2                2+len
 *   +-------+------ ... -----+-------+------ ... --+
 *   | len   | packed key     | len   | packed key  | ...
 *   | (u16) | (len bytes)    | (u16) |             |
 *   +-------+------ ... -----+-------+------ ... --+
 * </pre>
 * Readers check that every entry ends inside the message.
 */
public final class KeyList {
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    /** Bytes of an entry's length field. */
    public static final int LENGTH_SIZE = 2;

    private KeyList() {
    }

    /** Bytes {@code keys} take on the wire. */
    public static long wireLength(final byte[][] keys) {
        long n = 0;
        for (final byte[] k : keys) {
            n += LENGTH_SIZE + k.length;
        }
        return n;
    }

    /** The length of the key whose entry starts at {@code m[p]} (the caller checked {@code p + LENGTH_SIZE}). */
    public static int keyLength(final MemorySegment m, final long p) {
        return m.get(SHORT, p) & 0xffff;
    }

    /**
     * Writes {@code keys} from {@code m[p]} on, no byte past {@code limit}; returns where the list ends.
     *
     * @throws WeftException BUFFER_TOO_SMALL if the keys do not fit before {@code limit}
     */
    public static long write(final MemorySegment m, final long p, final long limit, final byte[][] keys) {
        long q = p;
        for (final byte[] key : keys) {
            if (q + LENGTH_SIZE + key.length > limit) {
                throw new WeftException(Status.BUFFER_TOO_SMALL, "rendezvous keys do not fit in one message");
            }
            m.set(SHORT, q, (short) key.length);
            MemorySegment.copy(key, 0, m, ValueLayout.JAVA_BYTE, q + LENGTH_SIZE, key.length); // no wrapper segment
            q += LENGTH_SIZE + key.length;
        }
        return q;
    }
}
