package weft.ucs.sys;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;

/**
 * Random bytes for nonces, tokens and job secrets, from the kernel's CSPRNG ({@code /dev/urandom}). A first
 * {@code new SecureRandom()} walks and loads the JCA providers: 10 ms of a PE's main thread as it started,
 * and 2.5 % of a 64-PE job's CPU on a crowded node, for a few bytes. A plain read rather than a
 * {@code getrandom(2)} downcall: the first nonce is wanted before the PE has linked any libc call. Where the
 * device cannot be read the bytes come from {@link SecureRandom}.
 */
public final class KernelRandom {
    private static final String DEVICE = "/dev/urandom";

    private KernelRandom() {
    }

    /** Fills {@code out} with random bytes. */
    public static void nextBytes(final byte[] out) {
        if (out.length == 0) {
            return;
        }
        try (InputStream in = new FileInputStream(DEVICE)) {
            if (in.readNBytes(out, 0, out.length) == out.length) {
                return;
            }
        } catch (final IOException e) {
            // no device: the JDK's generator below
        }
        new SecureRandom().nextBytes(out);
    }

    /** A random long. */
    public static long nextLong() {
        final byte[] b = new byte[Long.BYTES];
        nextBytes(b);
        long v = 0;
        for (final byte x : b) {
            v = v << 8 | (x & 0xff);
        }
        return v;
    }
}
