package weft.ucs;

/**
 * SHA-256 (FIPS 180-4) in plain Java, for the handshakes' MACs and digests ({@link HmacSha256}). The JDK's
 * {@code MessageDigest.getInstance("SHA-256")} is the same function, but the first lookup of any JCA service
 * in a process loads the security providers: about 10 ms of each PE's main thread as it starts, for a few
 * hashes of a few hundred bytes. {@code Sha256Test} checks it against the JDK's on the standard vectors and
 * on random inputs. One message per instance unless {@link #digest()} is called, which resets it. Not
 * thread-safe.
 */
public final class Sha256 {
    /** Digest length in bytes. */
    public static final int LENGTH = 32;
    private static final int BLOCK = 64;
    private static final int[] K = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

    private final int[] h = new int[8];
    private final int[] w = new int[64];
    private final byte[] block = new byte[BLOCK];
    private int filled;
    private long length;

    public Sha256() {
        reset();
    }

    /** The digest of {@code data}. */
    public static byte[] of(final byte[] data) {
        return new Sha256().update(data).digest();
    }

    private void reset() {
        h[0] = 0x6a09e667;
        h[1] = 0xbb67ae85;
        h[2] = 0x3c6ef372;
        h[3] = 0xa54ff53a;
        h[4] = 0x510e527f;
        h[5] = 0x9b05688c;
        h[6] = 0x1f83d9ab;
        h[7] = 0x5be0cd19;
        filled = 0;
        length = 0;
    }

    /** Adds {@code data} to the message. */
    public Sha256 update(final byte[] data) {
        return update(data, 0, data.length);
    }

    /** Adds {@code n} bytes of {@code data} from {@code off}. */
    public Sha256 update(final byte[] data, final int off, final int n) {
        java.util.Objects.checkFromIndexSize(off, n, data.length);
        length += n;
        int i = off;
        final int end = off + n;
        while (i < end) {
            final int take = Math.min(BLOCK - filled, end - i);
            System.arraycopy(data, i, block, filled, take);
            filled += take;
            i += take;
            if (filled == BLOCK) {
                compress();
                filled = 0;
            }
        }
        return this;
    }

    /** Adds one byte. */
    public Sha256 update(final byte b) {
        length++;
        block[filled++] = b;
        if (filled == BLOCK) {
            compress();
            filled = 0;
        }
        return this;
    }

    /** The digest of the message so far ({@value #LENGTH} bytes); the instance starts a new message. */
    public byte[] digest() {
        final long bits = length * 8;
        block[filled++] = (byte) 0x80;
        if (filled > BLOCK - 8) {
            java.util.Arrays.fill(block, filled, BLOCK, (byte) 0);
            compress();
            filled = 0;
        }
        java.util.Arrays.fill(block, filled, BLOCK - 8, (byte) 0);
        for (int i = 0; i < 8; i++) {
            block[BLOCK - 1 - i] = (byte) (bits >>> (8 * i));
        }
        compress();
        final byte[] out = new byte[LENGTH];
        for (int i = 0; i < 8; i++) {
            out[4 * i] = (byte) (h[i] >>> 24);
            out[4 * i + 1] = (byte) (h[i] >>> 16);
            out[4 * i + 2] = (byte) (h[i] >>> 8);
            out[4 * i + 3] = (byte) h[i];
        }
        reset();
        return out;
    }

    /** The digest of the message so far followed by {@code data}. */
    public byte[] digest(final byte[] data) {
        return update(data).digest();
    }

    private void compress() {
        for (int t = 0; t < 16; t++) {
            w[t] = (block[4 * t] & 0xff) << 24 | (block[4 * t + 1] & 0xff) << 16 | (block[4 * t + 2] & 0xff) << 8
                | block[4 * t + 3] & 0xff;
        }
        for (int t = 16; t < 64; t++) {
            final int s0 = Integer.rotateRight(w[t - 15], 7) ^ Integer.rotateRight(w[t - 15], 18) ^ w[t - 15] >>> 3;
            final int s1 = Integer.rotateRight(w[t - 2], 17) ^ Integer.rotateRight(w[t - 2], 19) ^ w[t - 2] >>> 10;
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        int a = h[0];
        int b = h[1];
        int c = h[2];
        int d = h[3];
        int e = h[4];
        int f = h[5];
        int g = h[6];
        int k = h[7];
        for (int t = 0; t < 64; t++) {
            final int t1 = k + (Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25))
                + (e & f ^ ~e & g) + K[t] + w[t];
            final int t2 = (Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22))
                + (a & b ^ a & c ^ b & c);
            k = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += k;
    }
}
