package weft.uct.conformance;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

import weft.ucs.Status;
import weft.uct.Completion;
import weft.uct.IoVector;

/**
 * Sends active messages of each class with a checkable image: the bytes a receiver sees are
 * {@link #image(int, long)}: a size- and sequence-dependent pattern whose first 8 bytes are the
 * sequence number (little endian). For short messages the header is the sequence number.
 */
final class AmTraffic {
    /** AM classes. */
    enum Kind { SHORT, BCOPY, ZCOPY }

    private AmTraffic() {
    }

    /** The image of a message of {@code length} bytes with sequence {@code seq}. */
    static byte[] image(final int length, final long seq) {
        final byte[] b = Patterns.bytes(length, seq);
        for (int i = 0; i < Math.min(8, length); i++) {
            b[i] = (byte) (seq >>> (8 * i));
        }
        return b;
    }

    /** Image length of a message of {@code kind} with {@code size} payload bytes and a zcopy header. */
    static int imageLength(final Kind kind, final int size, final int zcopyHeader) {
        return switch (kind) {
            case SHORT -> size + 8;
            case BCOPY -> size;
            case ZCOPY -> size + zcopyHeader;
        };
    }

    /**
     * Sends one message, retrying NO_RESOURCE; zcopy sources come from the fixture arena and stay
     * valid, and their completion is counted on {@code zc}.
     *
     * @param size    payload bytes (for zcopy: iov bytes)
     * @param zHeader zcopy header bytes
     * @param iovs    zcopy iov entries to split the payload into
     * @return the image the receiver must see
     */
    static byte[] send(final Fixture f, final Kind kind, final int id, final int size, final int zHeader,
                       final int iovs, final long seq, final Completion zc) {
        final int len = imageLength(kind, size, zHeader);
        final byte[] img = image(len, seq);
        final String what = kind + " AM of " + size + " bytes on id " + id;
        switch (kind) {
            case SHORT -> {
                final MemorySegment src = f.local(size + 3);
                MemorySegment.copy(img, 8, src, ValueLayout.JAVA_BYTE, 3, size); // odd source offset
                final Status st = f.retry(() -> f.ep.amShort(id, seq, src, 3, size), what);
                check(st, what);
            }
            case BCOPY -> {
                final long r = f.retryLength(() -> f.ep.amBcopy(id, (dest, off, cap) -> {
                    if (cap < len) {
                        throw new AssertionError("bcopy capacity " + cap + " < " + len + " (amMaxBcopy "
                            + f.attrs.amMaxBcopy() + ")");
                    }
                    MemorySegment.copy(img, 0, dest, ValueLayout.JAVA_BYTE, off, len);
                    return len;
                }), what);
                if (r < 0) {
                    throw new AssertionError(what + " failed: " + Status.of((int) r));
                }
                if (r != len) {
                    throw new AssertionError(what + " returned length " + r + ", packed " + len);
                }
            }
            case ZCOPY -> {
                final MemorySegment hdr = f.local(zHeader + 1);
                MemorySegment.copy(img, 0, hdr, ValueLayout.JAVA_BYTE, 1, zHeader);
                final MemorySegment src = f.local(size + 5);
                MemorySegment.copy(img, zHeader, src, ValueLayout.JAVA_BYTE, 5, size);
                final IoVector iov = new IoVector(iovs);
                final int n = Math.max(1, Math.min(iovs, size));
                long pos = 0;
                for (int i = 0; i < n; i++) {
                    final long part = i == n - 1 ? size - pos : size / n;
                    iov.add(src, 5 + pos, part);
                    pos += part;
                }
                zc.expect(1);
                final Status st = f.retry(() -> f.ep.amZcopy(id, hdr, 1, zHeader, iov, zc), what);
                if (st != Status.IN_PROGRESS) {
                    zc.expect(-1);
                }
                check(st, what);
            }
            default -> throw new IllegalStateException();
        }
        return img;
    }

    private static void check(final Status st, final String what) {
        if (st != Status.OK && st != Status.IN_PROGRESS) {
            throw new AssertionError(what + " failed: " + st);
        }
    }

    /** Describes the first difference between {@code expected} and {@code actual}, or null. */
    static String diff(final byte[] expected, final byte[] actual) {
        if (Arrays.equals(expected, actual)) {
            return null;
        }
        if (expected.length != actual.length) {
            return "length " + actual.length + ", expected " + expected.length;
        }
        final int i = Arrays.mismatch(expected, actual);
        final int to = Math.min(expected.length, i + 8);
        return "byte " + i + " differs: got " + HexFormat.of().formatHex(actual, i, to) + ", expected "
            + HexFormat.of().formatHex(expected, i, to);
    }
}
