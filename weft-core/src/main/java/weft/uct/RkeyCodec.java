package weft.uct;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The common envelope of every packed remote key, so that garbage, truncated or foreign bytes
 * are rejected before a transport looks at them.
 *
 * <pre>
 *  0      4        5         6                6+n      8+n
 *  +------+--------+---------+----------------+--------+-----------------+
 *  | WFTK | ver=1  | name len| transport name | body len| body (transport)|
 *  +------+--------+---------+----------------+--------+-----------------+
 *   u32 BE   u8       u8        ASCII            u16 LE
 * </pre>
 * Setup path only (allocates).
 */
public final class RkeyCodec {
    private static final int MAGIC = 0x5746544B; // "WFTK"
    private static final int VERSION = 1;

    private RkeyCodec() {
    }

    /** Wraps a transport's key body in the envelope. */
    public static byte[] pack(final String transport, final byte[] body) {
        final byte[] name = transport.getBytes(StandardCharsets.US_ASCII);
        if (name.length > 255 || body.length > 0xFFFF) {
            throw new IllegalArgumentException("rkey too large");
        }
        final ByteBuffer b = ByteBuffer.allocate(4 + 1 + 1 + name.length + 2 + body.length);
        b.putInt(MAGIC).put((byte) VERSION).put((byte) name.length).put(name);
        b.order(ByteOrder.LITTLE_ENDIAN).putShort((short) body.length).put(body);
        return b.array();
    }

    /**
     * Validates the envelope and returns the body as a little-endian buffer.
     *
     * @throws WeftException INVALID_RKEY for bad magic, version, transport or length
     */
    public static ByteBuffer open(final String transport, final byte[] packed) {
        if (packed == null) {
            throw invalid(transport, "null remote key");
        }
        try {
            final ByteBuffer b = ByteBuffer.wrap(packed);
            if (b.getInt() != MAGIC) {
                throw invalid(transport, "not a Weft remote key (bad magic)");
            }
            final int ver = b.get() & 0xFF;
            if (ver != VERSION) {
                throw invalid(transport, "unsupported remote key version " + ver);
            }
            final byte[] name = new byte[b.get() & 0xFF];
            b.get(name);
            final String n = new String(name, StandardCharsets.US_ASCII);
            if (!n.equals(transport)) {
                throw invalid(transport, "remote key belongs to transport '" + n + "'");
            }
            b.order(ByteOrder.LITTLE_ENDIAN);
            final int len = b.getShort() & 0xFFFF;
            if (b.remaining() != len) {
                throw invalid(transport, "remote key body has " + b.remaining() + " bytes, header says " + len);
            }
            return b.slice().order(ByteOrder.LITTLE_ENDIAN);
        } catch (final BufferUnderflowException e) {
            throw invalid(transport, "truncated remote key (" + packed.length + " bytes)");
        }
    }

    /** Reads the body with {@code reader}, turning underflow into INVALID_RKEY. */
    public static <T> T read(final String transport, final byte[] packed,
                             final java.util.function.Function<ByteBuffer, T> reader) {
        final ByteBuffer body = open(transport, packed);
        try {
            final T t = reader.apply(body);
            if (body.hasRemaining()) {
                throw invalid(transport, "remote key has " + body.remaining() + " trailing bytes");
            }
            return t;
        } catch (final BufferUnderflowException e) {
            throw invalid(transport, "truncated remote key body");
        }
    }

    public static WeftException invalid(final String transport, final String why) {
        return new WeftException(Status.INVALID_RKEY, transport + ": " + why);
    }
}
