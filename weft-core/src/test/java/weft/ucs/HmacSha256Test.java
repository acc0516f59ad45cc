package weft.ucs;

import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HmacSha256Test {
    @Test
    void matchesRfc4231TestCase2() {
        final byte[] mac = new HmacSha256("Jefe".getBytes(StandardCharsets.US_ASCII))
            .update("what do ya want ".getBytes(StandardCharsets.US_ASCII))
            .update("for nothing?".getBytes(StandardCharsets.US_ASCII))
            .doFinal();
        assertEquals("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", HexFormat.of().formatHex(mac));
    }

    @Test
    void matchesRfc4231TestCase6WithAKeyLongerThanABlock() {
        final byte[] key = new byte[131];
        Arrays.fill(key, (byte) 0xaa);
        final byte[] mac = new HmacSha256(key)
            .update("Test Using Larger Than Block-Size Key - Hash Key First".getBytes(StandardCharsets.US_ASCII))
            .doFinal();
        assertEquals("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", HexFormat.of().formatHex(mac));
    }

    @Test
    void agreesWithTheJdksMacForKeysAndMessagesOfManyLengths() throws Exception {
        final Random random = new Random(20261127);
        for (final int keyLength : new int[] {0, 1, 31, 32, 63, 64, 65, 100, 200}) {
            for (final int parts : new int[] {0, 1, 3}) {
                final byte[] key = new byte[keyLength];
                random.nextBytes(key);
                final Mac jdk = Mac.getInstance("HmacSHA256");
                // SecretKeySpec refuses an empty key; HMAC pads a key with zeros, so one zero byte is the same key
                jdk.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
                final HmacSha256 ours = new HmacSha256(key);
                for (int p = 0; p < parts; p++) {
                    final byte[] data = new byte[random.nextInt(150)];
                    random.nextBytes(data);
                    jdk.update(data);
                    ours.update(data);
                    jdk.update((byte) p);
                    ours.update((byte) p);
                }
                assertArrayEquals(jdk.doFinal(), ours.doFinal(), "key " + keyLength + " bytes, " + parts + " parts");
            }
        }
    }

    @Test
    void aDifferentKeyOrMessageGivesADifferentMac() {
        final byte[] m = new HmacSha256(new byte[] {1, 2, 3}).update(new byte[] {4}).doFinal();
        assertEquals(HmacSha256.LENGTH, m.length);
        assertFalse(Arrays.equals(m, new HmacSha256(new byte[] {1, 2, 4}).update(new byte[] {4}).doFinal()));
        assertFalse(Arrays.equals(m, new HmacSha256(new byte[] {1, 2, 3}).update(new byte[] {5}).doFinal()));
    }

    @Test
    void aMacIsComputedOnce() {
        final HmacSha256 mac = new HmacSha256(new byte[] {1});
        mac.doFinal();
        assertThrows(IllegalStateException.class, mac::doFinal);
        assertThrows(IllegalStateException.class, () -> mac.update(new byte[] {1}));
    }
}
