package weft.ucs;

/**
 * HMAC-SHA256 (RFC 2104) over {@link Sha256}: the MAC of the launcher's and the listeners' handshakes.
 * {@code javax.crypto.Mac} computes the same value, but finding its provider walks the JDK's provider list and
 * initializes the providers before SunJCE (about 15 ms of CPU), and even the JDK's SHA-256 loads the first
 * provider (about 10 ms of a PE's main thread as it starts). One use per
 * instance: the key, then {@code update}s, then {@link #doFinal()}. Not thread-safe.
 */
public final class HmacSha256 {
    /** Length of the MAC in bytes. */
    public static final int LENGTH = 32;
    private static final int BLOCK = 64;
    private static final byte IPAD = 0x36;
    private static final byte OPAD = 0x5c;

    private final Sha256 digest = new Sha256();
    private final byte[] outerPad = new byte[BLOCK];
    private boolean done;

    /** Starts a MAC keyed by {@code key} (any length; a key longer than a block is hashed first, as RFC 2104 says). */
    public HmacSha256(final byte[] key) {
        final byte[] k = key.length > BLOCK ? digest.digest(key) : key;
        final byte[] innerPad = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            final byte b = i < k.length ? k[i] : 0;
            innerPad[i] = (byte) (b ^ IPAD);
            outerPad[i] = (byte) (b ^ OPAD);
        }
        digest.update(innerPad);
    }

    /** Adds {@code data} to the message. */
    public HmacSha256 update(final byte[] data) {
        checkOpen();
        digest.update(data);
        return this;
    }

    /** Adds one byte to the message. */
    public HmacSha256 update(final byte b) {
        checkOpen();
        digest.update(b);
        return this;
    }

    /** The MAC of the message ({@value #LENGTH} bytes); the instance is then used up. */
    public byte[] doFinal() {
        checkOpen();
        done = true;
        final byte[] inner = digest.digest();
        digest.update(outerPad);
        return digest.digest(inner);
    }

    private void checkOpen() {
        if (done) {
            throw new IllegalStateException("this MAC is already computed; start another");
        }
    }
}
