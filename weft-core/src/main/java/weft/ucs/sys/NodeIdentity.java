package weft.ucs.sys;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * What identifies this node and its namespaces, for transports that must tell "same machine"
 * from "other machine": the kernel boot id and the inodes of this process's namespaces. Setup
 * path only (reads /proc, allocates).
 */
public final class NodeIdentity {
    private NodeIdentity() {
    }

    /** The 16 bytes of the kernel boot id ({@code /proc/sys/kernel/random/boot_id}), or null if unknown. */
    public static byte[] bootId() {
        final String s = LibC.readSmallFile("/proc/sys/kernel/random/boot_id");
        if (s == null) {
            return null;
        }
        try {
            final UUID u = UUID.fromString(s.trim());
            return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits())
                .array();
        } catch (final IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Inode of this process's namespace {@code kind} ("pid", "net", ...), read from the link
     * {@code /proc/self/ns/<kind>} ({@code pid:[4026531836]}), or 0 if unknown.
     */
    public static long namespaceInode(final String kind) {
        try {
            final String link = Files.readSymbolicLink(Path.of("/proc/self/ns/" + kind)).toString();
            final int open = link.indexOf('[');
            final int close = link.indexOf(']');
            return open < 0 || close < open ? 0 : Long.parseLong(link.substring(open + 1, close));
        } catch (final IOException | UnsupportedOperationException | NumberFormatException e) {
            return 0;
        }
    }
}
