package weft.ucs;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link Sha256} and {@link HmacSha256} give the JDK's values: the standard vectors, and random inputs. */
class Sha256Test {
    private static String hex(final byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    void theStandardVectors() {
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            hex(Sha256.of(new byte[0])));
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            hex(Sha256.of("abc".getBytes(StandardCharsets.US_ASCII))));
        assertEquals("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            hex(Sha256.of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".getBytes(StandardCharsets.US_ASCII))));
        final Sha256 million = new Sha256();
        for (int i = 0; i < 1_000_000; i++) {
            million.update((byte) 'a');
        }
        assertEquals("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", hex(million.digest()));
    }

    @Test
    void randomInputsGiveTheJdksDigestAndMac() throws Exception {
        final SplittableRandom r = new SplittableRandom(20261129);
        for (int round = 0; round < 300; round++) {
            final byte[] data = new byte[r.nextInt(0, 600)];
            r.nextBytes(data);
            // in pieces, so that the block boundary falls everywhere
            final Sha256 s = new Sha256();
            int at = 0;
            while (at < data.length) {
                final int n = r.nextInt(0, data.length - at + 1);
                s.update(data, at, n);
                at += n;
            }
            assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(data), s.digest(), "length " + data.length);
            final byte[] key = new byte[r.nextInt(0, 130)];
            r.nextBytes(key);
            final javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
            if (key.length > 0) {
                assertArrayEquals(mac.doFinal(data), new HmacSha256(key).update(data).doFinal(), "key " + key.length);
            }
        }
    }

    @Test
    void digestStartsANewMessage() {
        final Sha256 s = new Sha256();
        s.update("something else".getBytes(StandardCharsets.US_ASCII)).digest();
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            hex(s.digest("abc".getBytes(StandardCharsets.US_ASCII))));
    }
}
