package mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The external32 data representation: the converter ({@link External32}) on every predefined type in this
 * JVM (no MPI needed), view arithmetic in the file's sizes ({@link FileLayout}), and files written and read
 * through external32 views by jobs of separate JVMs ({@link External32Ranks}).
 */
class External32Test {
    private static final HexFormat HEX = HexFormat.ofDelimiter(" ");

    /** A predefined type and the kinds of its values in order: b byte, c char, s short, i int, l long, f, d. */
    private record Kinds(Datatype type, String values) {
    }

    private static final Kinds[] PREDEFINED = {
        new Kinds(MPI.BYTE, "b"), new Kinds(MPI.BOOLEAN, "b"), new Kinds(MPI.PACKED, "b"), new Kinds(MPI.CHAR, "c"),
        new Kinds(MPI.SHORT, "s"), new Kinds(MPI.INT, "i"), new Kinds(MPI.LONG, "l"), new Kinds(MPI.FLOAT, "f"),
        new Kinds(MPI.DOUBLE, "d"), new Kinds(MPI.INT2, "ii"), new Kinds(MPI.SHORT_INT, "si"),
        new Kinds(MPI.LONG_INT, "li"), new Kinds(MPI.FLOAT_INT, "fi"), new Kinds(MPI.DOUBLE_INT, "di"),
        new Kinds(MPI.FLOAT_COMPLEX, "ff"), new Kinds(MPI.DOUBLE_COMPLEX, "dd"),
    };

    /** {@code n} elements of distinct values packed (no padding) in the given byte order. */
    private static byte[] packed(final String kinds, final int n, final ByteOrder order) {
        final ByteBuffer b = ByteBuffer.allocate(64 * n).order(order);
        int v = 0x11;
        for (int e = 0; e < n; e++) {
            for (final char k : kinds.toCharArray()) {
                v += 0x01030507;
                switch (k) {
                    case 'b' -> b.put((byte) v);
                    case 'c' -> b.putChar((char) v);
                    case 's' -> b.putShort((short) v);
                    case 'i' -> b.putInt(v);
                    case 'l' -> b.putLong((long) v << 29 ^ v);
                    case 'f' -> b.putFloat(v / 7f);
                    default -> b.putDouble(v / 7.0);
                }
            }
        }
        final byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    @Test
    void everyPredefinedTypeRoundTrips() throws MPIException {
        for (final Kinds k : PREDEFINED) {
            final byte[] mem = packed(k.values(), 3, ByteOrder.nativeOrder());
            final byte[] file = packed(k.values(), 3, ByteOrder.BIG_ENDIAN);
            assertEquals(3 * k.type().size, mem.length, k.type() + ": packed data are as long as in the file");
            final MemorySegment seg = MemorySegment.ofArray(mem.clone());
            External32.toExternal(seg, 3, k.type());
            assertArrayEquals(file, seg.toArray(JAVA_BYTE), k.type() + " to external32");
            assertEquals(mem.length, External32.toNative(seg, 3, k.type(), mem.length), k.type() + " converted");
            assertArrayEquals(mem, seg.toArray(JAVA_BYTE), k.type() + " back");
            assertEquals(k.type().size, External32.layout(k.type()).extent(), k.type() + ": no padding in the file");
        }
    }

    /** The converted bytes of one element written natively by {@code put}. */
    private static String external(final Datatype type, final int bytes, final Consumer<ByteBuffer> put)
        throws MPIException {
        final ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.nativeOrder());
        put.accept(b);
        final MemorySegment seg = MemorySegment.ofArray(b.array());
        External32.toExternal(seg, 1, type);
        return HEX.formatHex(b.array());
    }

    @Test
    void bytesAreTheBigEndianEncoding() throws MPIException {
        assertEquals("01 02 03 04", external(MPI.INT, 4, b -> b.putInt(0x01020304)));
        assertEquals("3f f0 00 00 00 00 00 00", external(MPI.DOUBLE, 8, b -> b.putDouble(1.0)));
        assertEquals("3f 80 00 00", external(MPI.FLOAT, 4, b -> b.putFloat(1.0f)));
        assertEquals("01 02 03 04 05 06 07 08", external(MPI.LONG, 8, b -> b.putLong(0x0102030405060708L)));
        assertEquals("ff fe", external(MPI.SHORT, 2, b -> b.putShort((short) -2)));
        assertEquals("00 e9", external(MPI.CHAR, 2, b -> b.putChar('\u00e9')));
        assertEquals("3f f0 00 00 00 00 00 00 01 02 03 04",
            external(MPI.DOUBLE_INT, 12, b -> b.putDouble(1.0).putInt(0x01020304)), "DOUBLE_INT is 12 bytes");
        assertEquals("01 02 03 04 05 06", external(MPI.SHORT_INT, 6, b -> b.putShort((short) 0x0102).putInt(0x03040506)));
        assertEquals("00 00 00 00 00 00 00 07 00 00 00 09", external(MPI.LONG_INT, 12, b -> b.putLong(7).putInt(9)));
        assertEquals("40 00 00 00 c0 00 00 00", external(MPI.FLOAT_COMPLEX, 8, b -> b.putFloat(2).putFloat(-2)));
        assertEquals("01 7f", external(MPI.BYTE, 2, b -> b.put((byte) 1).put((byte) 0x7f)));
    }

    @Test
    void aValueCutShortIsNotConverted() throws MPIException {
        final ByteBuffer b = ByteBuffer.allocate(24).order(ByteOrder.BIG_ENDIAN).putDouble(1.0).putInt(5)
            .putDouble(2.0).putInt(6);
        final MemorySegment seg = MemorySegment.ofArray(b.array());
        assertEquals(20, External32.toNative(seg, 2, MPI.DOUBLE_INT, 22), "the second pair's int is cut");
        final ByteBuffer n = ByteBuffer.wrap(b.array()).order(ByteOrder.nativeOrder());
        assertTrue(n.getDouble(0) == 1.0 && n.getInt(8) == 5 && n.getDouble(12) == 2.0, "the whole values");
        assertEquals(8, External32.toNative(MemorySegment.ofArray(new byte[12]), 3, MPI.INT, 11));
    }

    @Test
    void pairsArePaddedInMemoryButNotInTheFile() throws MPIException {
        final long[][] memoryAndFile = {{16, 12}, {8, 6}, {16, 12}, {8, 8}, {8, 8}};
        final Datatype[] pairs = {MPI.DOUBLE_INT, MPI.SHORT_INT, MPI.LONG_INT, MPI.FLOAT_INT, MPI.INT2};
        for (int i = 0; i < pairs.length; i++) {
            assertEquals(memoryAndFile[i][0], pairs[i].extent(), pairs[i] + " in memory");
            assertEquals(memoryAndFile[i][1], External32.layout(pairs[i]).extent(), pairs[i] + " in the file");
        }
        final FileLayout nat = FileLayout.of(100, MPI.DOUBLE_INT, MPI.DOUBLE_INT, "native");
        final FileLayout ext = FileLayout.of(100, MPI.DOUBLE_INT, MPI.DOUBLE_INT, External32.NAME);
        assertEquals(100 + 16, nat.fileOffset(12), "the second pair, natively");
        assertEquals(100 + 12, ext.fileOffset(12), "the second pair in external32");
        assertEquals(2 * 12, ext.dataBefore(100 + 24), "a file of two pairs");
        assertEquals(12, ext.extent(MPI.DOUBLE_INT));
        assertEquals(16, nat.extent(MPI.DOUBLE_INT));
        assertTrue(ext.external32 && !nat.external32 && !FileLayout.of(0, MPI.INT, MPI.INT, "internal").external32);
    }

    @Test
    void whatCannotBeConvertedIsRefused() {
        for (final String rep : new String[] {"external64", "EXTERNAL32", "", null}) {
            final MPIException e = assertThrows(MPIException.class, () -> FileLayout.of(0, MPI.INT, MPI.INT, rep));
            assertEquals(MPI.ERR_UNSUPPORTED_DATAREP, e.getErrorClass(), "data representation " + rep);
        }
        final MemorySegment seg = MemorySegment.ofArray(new byte[16]);
        assertEquals(MPI.ERR_CONVERSION, assertThrows(MPIException.class,
            () -> External32.toExternal(seg, 1, MPI.DATATYPE_NULL)).getErrorClass(), "a type of no values");
        assertEquals(MPI.ERR_CONVERSION, assertThrows(MPIException.class,
            () -> External32.checkMatch(MPI.DOUBLE, MPI.INT)).getErrorClass(), "doubles through ints");
        assertEquals(MPI.ERR_CONVERSION, assertThrows(MPIException.class,
            () -> External32.checkMatch(MPI.DOUBLE_INT, MPI.DOUBLE)).getErrorClass(), "pairs through doubles");
    }

    @Test
    void matchingValuesConvert() throws MPIException {
        External32.checkMatch(MPI.INT2, MPI.INT); // two ints are ints
        External32.checkMatch(MPI.FLOAT, MPI.INT); // 4-byte values swap alike
        External32.checkMatch(MPI.LONG, MPI.BYTE); // bytes are untyped
        External32.checkMatch(MPI.PACKED, MPI.DOUBLE);
        External32.checkMatch(MPI.CHAR, MPI.SHORT);
    }

    @ParameterizedTest(name = "np {0} over {1}")
    @CsvSource({"2, shm", "3, tcp"})
    void filesInExternal32(final int np, final String tls, @TempDir final Path dir) throws Exception {
        final MpiJob.Result r = MpiJob.run(np, Map.of("WEFT_TLS", tls), External32Ranks.class, dir.toString());
        System.out.println(r.describe());
        assertTrue(r.allZero(), r.describe());
        for (int rank = 0; rank < np; rank++) {
            assertTrue(r.output()[rank].contains("OK external32 rank " + rank), r.describe());
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count(), "the files were deleted on close");
        }
    }
}
