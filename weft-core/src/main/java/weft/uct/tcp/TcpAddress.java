package weft.uct.tcp;

import weft.ucs.sys.NodeIdentity;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Device and interface addresses of the tcp transport (setup path only: allocates).
 *
 * <pre>
 *  device address:    u8 flags (1 = loopback) | u32 IPv4 (big endian) | [16 bytes boot id if loopback]
 *  interface address: u8 version (1) | u32 IPv4 | u16 port | u8 token length (0 or 16) | token
 * </pre>
 * A loopback device is reachable only from the same boot of the same host, which the boot id of
 * {@code /proc/sys/kernel/random/boot_id} identifies.
 */
final class TcpAddress {
    static final int FLAG_LOOPBACK = 1;
    static final int TOKEN_LEN = 16;
    static final byte[] BOOT_ID = bootId();

    private TcpAddress() {
    }

    /** A parsed interface address. */
    record Iface(int ip, int port, byte[] token) {
    }

    static boolean isLoopback(final int ip) {
        return (ip >>> 24) == 127;
    }

    static byte[] device(final int ip) {
        final boolean lo = isLoopback(ip);
        final ByteBuffer b = ByteBuffer.allocate(5 + (lo ? BOOT_ID.length : 0));
        b.put((byte) (lo ? FLAG_LOOPBACK : 0)).putInt(ip);
        if (lo) {
            b.put(BOOT_ID);
        }
        return b.array();
    }

    static byte[] iface(final int ip, final int port, final byte[] token) {
        final int tl = token == null ? 0 : token.length;
        final ByteBuffer b = ByteBuffer.allocate(8 + tl);
        b.put((byte) 1).putInt(ip).putShort((short) port).put((byte) tl);
        if (tl > 0) {
            b.put(token);
        }
        return b.array();
    }

    /** Parses an interface address; throws WeftException(INVALID_ADDRESS) on garbage. */
    static Iface parseIface(final byte[] a) {
        if (a == null || a.length < 8) {
            throw bad("interface address too short");
        }
        try {
            final ByteBuffer b = ByteBuffer.wrap(a);
            if (b.get() != 1) {
                throw bad("unknown interface address version");
            }
            final int ip = b.getInt();
            final int port = b.getShort() & 0xFFFF;
            final int tl = b.get() & 0xFF;
            if ((tl != 0 && tl != TOKEN_LEN) || b.remaining() != tl || port == 0) {
                throw bad("inconsistent interface address");
            }
            final byte[] token = tl == 0 ? null : new byte[tl];
            if (token != null) {
                b.get(token);
            }
            return new Iface(ip, port, token);
        } catch (final BufferUnderflowException e) {
            throw bad("truncated interface address");
        }
    }

    /** True if a local device with address {@code localIp} can reach the remote device address. */
    static boolean reachable(final int localIp, final byte[] remoteDevice) {
        if (remoteDevice == null || remoteDevice.length < 5) {
            return false;
        }
        final boolean remoteLo = (remoteDevice[0] & FLAG_LOOPBACK) != 0;
        final int rip = ByteBuffer.wrap(remoteDevice, 1, 4).getInt();
        if (remoteLo != isLoopback(rip)) {
            return false;
        }
        if (remoteLo) {
            // a loopback address means "this host": only the same boot of the same host may use it
            return isLoopback(localIp) && remoteDevice.length == 5 + BOOT_ID.length
                && Arrays.equals(remoteDevice, 5, remoteDevice.length, BOOT_ID, 0, BOOT_ID.length);
        }
        return remoteDevice.length == 5 && !isLoopback(localIp);
    }

    /** The IPv4 address of a device address that {@link #reachable} accepted. */
    static int deviceIp(final byte[] remoteDevice) {
        return ByteBuffer.wrap(remoteDevice, 1, 4).getInt();
    }

    static String ipString(final int ip) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }

    private static WeftException bad(final String why) {
        return new WeftException(Status.INVALID_ADDRESS, "tcp: " + why);
    }

    /**
     * Who "this host" is for a loopback address: the boot id plus the network namespace, since two
     * network namespaces of one machine (containers, `ip netns`) each have their own 127.0.0.1.
     */
    private static byte[] bootId() {
        byte[] boot = NodeIdentity.bootId();
        if (boot == null) {
            // no boot id (not Linux?): use the host name hash so that loopback stays host-local
            final String host = String.valueOf(System.getenv("HOSTNAME"));
            boot = ByteBuffer.allocate(16).putLong(host.hashCode()).putLong(0x5746L).array();
        }
        return ByteBuffer.allocate(boot.length + 8).put(boot).putLong(NodeIdentity.namespaceInode("net")).array();
    }
}
