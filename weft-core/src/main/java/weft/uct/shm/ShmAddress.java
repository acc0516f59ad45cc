package weft.uct.shm;

import weft.ucs.sys.NodeIdentity;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Wire forms of the shm device and interface addresses (little endian).
 *
 * <pre>
 * device address (32 B): boot id (16 B, /proc/sys/kernel/random/boot_id) | pid namespace inode (u64)
 *                        | network namespace inode (u64: the abstract wakeup socket lives there)
 *
 * interface address:
 *   magic u32 | pid u32 | start time u64 | fifo fd u32 | fifo file id u64 | fifo length u64
 *   | desc fd u32 | desc file id u64 | desc length u64 | desc count u32 | desc stride u32
 *   | seg size u32 | wakeup name length u8 | wakeup abstract socket name
 * </pre>
 * Setup path only.
 */
final class ShmAddress {
    private static final int MAGIC = 0x41485357; // "WSHA"
    private static final int FIXED = 4 + 4 + 8 + 4 + 8 + 8 + 4 + 8 + 8 + 4 + 4 + 4 + 1;

    /**
     * This node: same boot and pid namespace means /proc/pid/fd of a peer can be opened; same
     * network namespace means its abstract wakeup socket can be reached.
     */
    static final byte[] DEVICE_ADDRESS = deviceAddress();

    private ShmAddress() {
    }

    /** A decoded interface address. */
    record Iface(int pid, long startTime, int fifoFd, long fifoId, long fifoLength, int descFd, long descId,
                 long descLength, int descCount, int descStride, int segSize, byte[] wakeupName) {
        byte[] encode() {
            final ByteBuffer b = ByteBuffer.allocate(FIXED + wakeupName.length).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(MAGIC).putInt(pid).putLong(startTime).putInt(fifoFd).putLong(fifoId).putLong(fifoLength)
                .putInt(descFd).putLong(descId).putLong(descLength).putInt(descCount).putInt(descStride)
                .putInt(segSize).put((byte) wakeupName.length).put(wakeupName);
            return b.array();
        }

        static Iface decode(final byte[] a) {
            if (a == null) {
                throw new WeftException(Status.INVALID_ADDRESS, "shm: null interface address");
            }
            try {
                final ByteBuffer b = ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN);
                if (b.getInt() != MAGIC) {
                    throw new WeftException(Status.INVALID_ADDRESS, "shm: not an shm interface address");
                }
                final Iface i = new Iface(b.getInt(), b.getLong(), b.getInt(), b.getLong(), b.getLong(), b.getInt(),
                    b.getLong(), b.getLong(), b.getInt(), b.getInt(), b.getInt(), new byte[b.get() & 0xFF]);
                b.get(i.wakeupName);
                if (b.hasRemaining()) {
                    throw new WeftException(Status.INVALID_ADDRESS, "shm: interface address has trailing bytes");
                }
                if (i.pid <= 0 || i.fifoFd < 0 || i.descFd < 0 || i.descCount <= 0 || i.descStride <= 0
                    || i.segSize <= 0 || i.segSize > i.descStride
                    || (long) i.descCount * i.descStride > i.descLength) {
                    throw new WeftException(Status.INVALID_ADDRESS, "shm: inconsistent interface address");
                }
                return i;
            } catch (final BufferUnderflowException e) {
                throw new WeftException(Status.INVALID_ADDRESS, "shm: truncated interface address (" + a.length
                    + " bytes)");
            }
        }
    }

    /** True if {@code a} is this node's device address. */
    static boolean sameNode(final byte[] a) {
        return a != null && Arrays.equals(a, DEVICE_ADDRESS);
    }

    private static byte[] deviceAddress() {
        final byte[] boot = NodeIdentity.bootId();
        final ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        b.put(boot == null ? new byte[16] : boot);
        b.putLong(NodeIdentity.namespaceInode("pid")).putLong(NodeIdentity.namespaceInode("net"));
        return b.array();
    }
}
