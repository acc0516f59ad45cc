package weft.ucs.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;

/**
 * Random bytes for nonces, tokens and job secrets, from the kernel's CSPRNG ({@code getrandom(2)}, the source
 * of {@code /dev/urandom}). A first {@code new SecureRandom()} walks and loads the JCA providers: 10 ms of a
 * PE's main thread as it started, and 2.5 % of a 64-PE job's CPU on a crowded node, for a few bytes. Where the
 * call is refused (a kernel without it, a seccomp filter) the bytes come from {@link SecureRandom}.
 */
public final class KernelRandom {
    private KernelRandom() {
    }

    /** Fills {@code out} with random bytes. */
    public static void nextBytes(final byte[] out) {
        if (out.length == 0) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment buf = a.allocate(out.length);
            long done = 0;
            while (done < out.length) {
                final long n = LibC.getrandom(buf.address() + done, out.length - done);
                if (n == -LibC.EINTR) {
                    continue;
                }
                if (n <= 0) {
                    new SecureRandom().nextBytes(out);
                    return;
                }
                done += n;
            }
            MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, out, 0, out.length);
        }
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
