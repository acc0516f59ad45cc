package weft.uct;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RkeyCodecTest {
    private static final byte[] BODY = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

    private static void assertInvalid(final String transport, final byte[] packed, final String why) {
        final WeftException e = assertThrows(WeftException.class, () -> RkeyCodec.open(transport, packed), why);
        assertEquals(Status.INVALID_RKEY, e.status(), why);
        assertTrue(e.getMessage().startsWith(transport + ":"), e.getMessage());
    }

    @Test
    void shouldRoundTripTheBody() {
        final byte[] packed = RkeyCodec.pack("shm", BODY);
        final ByteBuffer body = RkeyCodec.open("shm", packed);
        final byte[] out = new byte[body.remaining()];
        body.get(out);
        assertArrayEquals(BODY, out);
        final long v = RkeyCodec.read("shm", packed, b -> b.getLong() + b.getInt());
        assertEquals(ByteBuffer.wrap(BODY).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong()
            + ByteBuffer.wrap(BODY, 8, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(), v);
        assertEquals(0, RkeyCodec.open("x", RkeyCodec.pack("x", new byte[0])).remaining());
    }

    @Test
    void shouldRejectGarbageTruncatedAndForeignKeys() {
        final byte[] packed = RkeyCodec.pack("shm", BODY);
        assertInvalid("shm", null, "null");
        assertInvalid("shm", new byte[0], "empty");
        for (int n = 1; n < packed.length; n++) {
            assertInvalid("shm", Arrays.copyOf(packed, n), "truncated to " + n);
        }
        assertInvalid("shm", Arrays.copyOf(packed, packed.length + 1), "trailing byte");
        assertInvalid("tcp", packed, "another transport's key");
        assertInvalid("sh", packed, "a prefix of the transport name");
        final byte[] badMagic = packed.clone();
        badMagic[0] ^= 0x20;
        assertInvalid("shm", badMagic, "magic");
        final byte[] badVersion = packed.clone();
        badVersion[4] = 2;
        assertInvalid("shm", badVersion, "version");
        final byte[] longName = packed.clone();
        longName[5] = (byte) 200;
        assertInvalid("shm", longName, "name length beyond the key");
        final Random rnd = new Random(42);
        for (int i = 0; i < 2000; i++) {
            final byte[] junk = new byte[rnd.nextInt(64)];
            rnd.nextBytes(junk);
            assertInvalid("shm", junk, "random bytes");
        }
    }

    @Test
    void shouldRejectABodyTheReaderDoesNotConsumeExactly() {
        final byte[] packed = RkeyCodec.pack("cma", BODY);
        final WeftException tooShort = assertThrows(WeftException.class,
            () -> RkeyCodec.read("cma", packed, b -> b.getLong() + b.getLong()));
        assertEquals(Status.INVALID_RKEY, tooShort.status());
        assertTrue(tooShort.getMessage().contains("truncated"), tooShort.getMessage());
        final WeftException trailing = assertThrows(WeftException.class,
            () -> RkeyCodec.read("cma", packed, ByteBuffer::getLong));
        assertEquals(Status.INVALID_RKEY, trailing.status());
        assertTrue(trailing.getMessage().contains("trailing"), trailing.getMessage());
    }

    @Test
    void shouldRefuseOversizedInput() {
        assertThrows(IllegalArgumentException.class, () -> RkeyCodec.pack("x".repeat(256), BODY));
        assertThrows(IllegalArgumentException.class, () -> RkeyCodec.pack("x", new byte[0x10000]));
        assertEquals(Status.INVALID_RKEY, RkeyCodec.invalid("x", "why").status());
    }
}
