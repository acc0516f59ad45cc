package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker's address: what a peer needs to reach it and to choose lanes to it. Packed (little endian):
 *
 * <pre>
 *   0      4      5         13          14
 *   +------+------+---------+-----------+-------------------- ... --+
 *   | WFTA | ver  | uuid    | n entries | entry 0 | entry 1 | ...    |
 *   +------+------+---------+-----------+-------------------- ... --+
 *   entry: u8 len + transport name, u8 len + device name, u32 md flags, u64 capability flags,
 *          f64 latency ns, f64 overhead ns, f64 bandwidth B/s, u8 priority, u32 am max short,
 *          u64 am max bcopy, u16 len + device address, u16 len + interface address
 * </pre>
 *
 * Both sides select lanes from their own resources and the peer's advertised figures, so the choice
 * is the same on both ends for the same inputs.
 */
public record WorkerAddress(long uuid, List<Entry> entries) {
    static final int MAGIC = 0x41544657; // "WFTA" little endian
    /**
     * The protocol layer's wire version, carried by every worker address: raised whenever a message format of
     * {@link weft.ucp.wire} or the meaning of an {@link AmId} changes, so that two builds that would misread
     * each other's messages refuse to connect (UNSUPPORTED, naming both versions) instead of dropping them
     * as malformed and waiting. {@code WireVersionTest} fails when a format's constants change and this
     * did not. 2: SOFT_GET carries the answer size.
     */
    static final int VERSION = 2;

    /** One resource (transport × device) of the worker. */
    public record Entry(String transport, String device, int mdFlags, long capabilities, double latencyNs,
                        double overheadNs, double bandwidth, int priority, int amMaxShort, long amMaxBcopy,
                        byte[] deviceAddress, byte[] interfaceAddress) {
    }

    /** Packs this address into bytes. */
    public byte[] pack() {
        int size = 4 + 1 + 8 + 1;
        for (final Entry e : entries) {
            size += 2 + utf8(e.transport).length + utf8(e.device).length + 4 + 8 + 24 + 1 + 4 + 8 + 4
                + e.deviceAddress.length + e.interfaceAddress.length;
        }
        final ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).put((byte) VERSION).putLong(uuid).put((byte) entries.size());
        for (final Entry e : entries) {
            putShortString(b, e.transport);
            putShortString(b, e.device);
            b.putInt(e.mdFlags).putLong(e.capabilities).putDouble(e.latencyNs).putDouble(e.overheadNs)
                .putDouble(e.bandwidth).put((byte) e.priority).putInt(e.amMaxShort).putLong(e.amMaxBcopy);
            b.putShort((short) e.deviceAddress.length).put(e.deviceAddress);
            b.putShort((short) e.interfaceAddress.length).put(e.interfaceAddress);
        }
        return b.array();
    }

    /**
     * Reads a packed address.
     *
     * @throws WeftException INVALID_PARAM naming what is wrong with the bytes
     */
    public static WorkerAddress unpack(final byte[] bytes) {
        if (bytes == null || bytes.length < 14) {
            throw new WeftException(Status.INVALID_PARAM, "not a Weft worker address: "
                + (bytes == null ? "null" : bytes.length + " bytes") + " (too short)");
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt() != MAGIC) {
            throw new WeftException(Status.INVALID_PARAM, "not a Weft worker address (bad magic)");
        }
        final int ver = b.get() & 0xff;
        if (ver != VERSION) {
            throw new WeftException(Status.UNSUPPORTED, "worker address version " + ver
                + " is not supported (this Weft reads version " + VERSION + "): the peer runs another Weft "
                + "release, whose messages this one would misread");
        }
        try {
            final long uuid = b.getLong();
            final int n = b.get() & 0xff;
            final List<Entry> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                final String tl = getShortString(b);
                final String dev = getShortString(b);
                final int mdFlags = b.getInt();
                final long caps = b.getLong();
                final double lat = b.getDouble();
                final double ovh = b.getDouble();
                final double bw = b.getDouble();
                final int prio = b.get() & 0xff;
                final int amShort = b.getInt();
                final long amBcopy = b.getLong();
                final byte[] da = getBytes(b, b.getShort() & 0xffff);
                final byte[] ia = getBytes(b, b.getShort() & 0xffff);
                if (!(bw > 0) || lat < 0 || ovh < 0) {
                    throw new WeftException(Status.INVALID_PARAM, "worker address entry " + i + " (" + tl
                        + ") has an invalid performance model");
                }
                list.add(new Entry(tl, dev, mdFlags, caps, lat, ovh, bw, prio, amShort, amBcopy, da, ia));
            }
            if (b.hasRemaining()) {
                throw new WeftException(Status.INVALID_PARAM, "worker address has " + b.remaining()
                    + " trailing bytes");
            }
            return new WorkerAddress(uuid, List.copyOf(list));
        } catch (final BufferUnderflowException e) {
            throw new WeftException(Status.INVALID_PARAM, "worker address is truncated (" + bytes.length + " bytes)");
        }
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void putShortString(final ByteBuffer b, final String s) {
        final byte[] u = utf8(s);
        b.put((byte) u.length).put(u);
    }

    private static String getShortString(final ByteBuffer b) {
        final byte[] u = getBytes(b, b.get() & 0xff);
        if (ascii(u)) {
            // transport and device names are ASCII: no decoder (each unpack of a peer's address read several
            // names, a decoder each, 2.6 % of a 64-PE all-pairs job's CPU on a crowded node)
            return new String(u, StandardCharsets.US_ASCII);
        }
        try {
            // strict: a name that is not UTF-8 would be read as another name (replacement characters)
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(u)).toString();
        } catch (final CharacterCodingException e) {
            throw new WeftException(Status.INVALID_PARAM, "worker address has a name that is not UTF-8");
        }
    }

    private static boolean ascii(final byte[] u) {
        for (final byte x : u) {
            if (x < 0) {
                return false;
            }
        }
        return true;
    }

    /** The next {@code n} bytes; underflow before allocating when fewer are left. */
    private static byte[] getBytes(final ByteBuffer b, final int n) {
        if (n > b.remaining()) {
            throw new BufferUnderflowException();
        }
        final byte[] u = new byte[n];
        b.get(u);
        return u;
    }

    @Override
    public String toString() {
        final StringBuilder sb = new StringBuilder("WorkerAddress[uuid=").append(Long.toHexString(uuid));
        for (final Entry e : entries) {
            sb.append(", ").append(e.transport).append('/').append(e.device);
        }
        return sb.append(']').toString();
    }
}
