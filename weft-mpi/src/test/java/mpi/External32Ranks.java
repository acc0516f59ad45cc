package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Rank program: MPI-IO in the "external32" data representation ({@code args[0]} is the directory). Each rank
 * first checks, on a file of its own (COMM_SELF), the exact bytes external32 puts in the file (big-endian,
 * pairs unpadded), derived memory types, filetypes with holes, every way to address data and the errors; then
 * the ranks write an interleaved array of structs collectively through external32 views and each reads back
 * another's part. Prints {@code OK external32 ...} when every check held.
 */
public final class External32Ranks {
    private static final HexFormat HEX = HexFormat.ofDelimiter(" ");
    /** A struct of an int, a double and a short as memory lays it out (C's offsets; extent 24). */
    private static final int[] MEM_AT = {0, 8, 16};
    /** The same values back to back, as a file of external32 data holds them (14 bytes). */
    private static final int[] FILE_AT = {0, 4, 12};
    private static final int B = 2;
    private static final int K = 5;
    private static final long DISP = 8;

    private External32Ranks() {
    }

    public static void main(final String[] args) throws Exception {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final Checks c = new Checks("external32", rank);
        final String mine = args[0] + "/own" + rank + ".dat";
        final File f = new File(MPI.COMM_SELF, mine, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        bytesInTheFile(c, f);
        derivedMemoryTypes(c, f);
        filetypesWithHoles(c, f);
        everyAccessPath(c, f);
        errors(c, f);
        f.close();
        structArray(c, w, args[0] + "/structs.dat", rank, w.getSize());
        c.done();
        MPI.Finalize();
    }

    /** Empties the file and sets a view. */
    private static void fresh(final File f, final long disp, final Datatype etype, final Datatype filetype)
        throws MPIException {
        f.setSize(0);
        f.setView(disp, etype, filetype, External32.NAME);
    }

    /** The whole file's bytes, through the native byte view (which stays set). */
    private static byte[] raw(final File f) throws MPIException {
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        final byte[] b = new byte[(int) f.getSize()];
        f.readAt(0, b, b.length, MPI.BYTE);
        return b;
    }

    private static void bytesAre(final Checks c, final String want, final byte[] got, final String what) {
        c.that(Arrays.equals(HEX.parseHex(want), got), what + ": expected " + want + ", got " + HEX.formatHex(got));
    }

    private static ByteBuffer nativeBytes(final int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.nativeOrder());
    }

    private static void bytesInTheFile(final Checks c, final File f) throws MPIException {
        fresh(f, 0, MPI.INT, MPI.INT);
        f.writeAt(0, new int[] {0x01020304, -2}, 2, MPI.INT);
        final byte[] ints = raw(f);
        bytesAre(c, "01 02 03 04 ff ff ff fe", ints, "ints are big-endian in the file");
        final int[] seen = new int[2];
        f.setView(0, MPI.INT, MPI.INT, "native");
        f.readAt(0, seen, 2, MPI.INT);
        final boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        c.equal(little ? 0x04030201 : 0x01020304, seen[0], "the native view reads the big-endian bytes as they are");
        f.setView(0, MPI.INT, MPI.INT, External32.NAME);
        f.readAt(0, seen, 2, MPI.INT);
        c.that(seen[0] == 0x01020304 && seen[1] == -2, "the external32 view reads the ints back");

        fresh(f, 0, MPI.DOUBLE, MPI.DOUBLE);
        f.writeAt(0, new double[] {1.0}, 1, MPI.DOUBLE);
        bytesAre(c, "3f f0 00 00 00 00 00 00", raw(f), "a double 1.0");
        fresh(f, 0, MPI.CHAR, MPI.CHAR);
        f.writeAt(0, new char[] {'A', '\u00e9'}, 2, MPI.CHAR);
        bytesAre(c, "00 41 00 e9", raw(f), "Java chars are 2 big-endian bytes");
        fresh(f, 0, MPI.LONG, MPI.LONG);
        f.writeAt(0, new long[] {0x0102030405060708L}, 1, MPI.LONG);
        bytesAre(c, "01 02 03 04 05 06 07 08", raw(f), "a long is 8 bytes");
        fresh(f, 0, MPI.BOOLEAN, MPI.BOOLEAN);
        f.writeAt(0, new boolean[] {true, false}, 2, MPI.BOOLEAN);
        bytesAre(c, "01 00", raw(f), "booleans are one byte");

        // DOUBLE_INT: 16 bytes in memory (the int padded), 12 in the file
        final ByteBuffer pairs = nativeBytes(32).putDouble(0, 1.0).putInt(8, 0x01020304).putDouble(16, -2.5)
            .putInt(24, 7);
        fresh(f, 0, MPI.DOUBLE_INT, MPI.DOUBLE_INT);
        c.equal(12, f.getTypeExtent(MPI.DOUBLE_INT), "getTypeExtent of DOUBLE_INT in external32");
        c.equal(6, f.getTypeExtent(MPI.SHORT_INT), "getTypeExtent of SHORT_INT in external32");
        f.writeAt(0, pairs, 2, MPI.DOUBLE_INT);
        c.equal(12, f.getByteOffset(1), "the second pair starts 12 bytes in");
        final byte[] two = raw(f);
        c.equal(16, f.getTypeExtent(MPI.DOUBLE_INT), "getTypeExtent of DOUBLE_INT in native");
        bytesAre(c, "3f f0 00 00 00 00 00 00 01 02 03 04 c0 04 00 00 00 00 00 00 00 00 00 07", two,
            "two DOUBLE_INT pairs are 24 bytes");
        f.setView(0, MPI.DOUBLE_INT, MPI.DOUBLE_INT, External32.NAME);
        final ByteBuffer back = nativeBytes(32);
        c.equal(24, f.readAt(0, back, 2, MPI.DOUBLE_INT).getCount(MPI.BYTE), "the status counts 24 bytes");
        c.that(back.getDouble(16) == -2.5 && back.getInt(24) == 7 && back.getInt(8) == 0x01020304,
            "DOUBLE_INT pairs read back");
    }

    private static Datatype struct(final int[] at) throws MPIException {
        final Datatype t = Datatype.createStruct(new int[] {1, 1, 1}, at, new Datatype[] {MPI.INT, MPI.DOUBLE,
            MPI.SHORT});
        t.commit();
        return t;
    }

    private static void putElement(final ByteBuffer b, final int index, final int id) {
        final int at = index * 24;
        b.putInt(at + MEM_AT[0], id).putDouble(at + MEM_AT[1], id + 0.5).putShort(at + MEM_AT[2], (short) -id);
    }

    private static boolean isElement(final ByteBuffer b, final int index, final int id) {
        final int at = index * 24;
        return b.getInt(at + MEM_AT[0]) == id && b.getDouble(at + MEM_AT[1]) == id + 0.5
            && b.getShort(at + MEM_AT[2]) == (short) -id;
    }

    private static void derivedMemoryTypes(final Checks c, final File f) throws MPIException {
        final Datatype evens = Datatype.createVector(3, 1, 2, MPI.INT);
        evens.commit();
        fresh(f, 0, MPI.INT, MPI.INT);
        f.writeAt(0, new int[] {1, -1, 2, -1, 3}, 1, evens);
        bytesAre(c, "00 00 00 01 00 00 00 02 00 00 00 03", raw(f), "a vector memory type");
        f.setView(0, MPI.INT, MPI.INT, External32.NAME);
        final int[] spread = new int[5];
        f.readAt(0, spread, 1, evens);
        c.that(Arrays.equals(new int[] {1, 0, 2, 0, 3}, spread), "read into a vector: " + Arrays.toString(spread));

        final Datatype picks = Datatype.createIndexed(new int[] {2, 1}, new int[] {0, 3}, MPI.SHORT);
        picks.commit();
        fresh(f, 0, MPI.SHORT, MPI.SHORT);
        f.writeAt(0, new short[] {0x0102, 0x0304, 9, 0x0506}, 1, picks);
        bytesAre(c, "01 02 03 04 05 06", raw(f), "an indexed memory type");

        // a struct mixing kinds: each value converted as its own kind, the memory padding left out
        final Datatype mem = struct(MEM_AT);
        final ByteBuffer out = nativeBytes(3 * 24);
        for (int i = 0; i < 3; i++) {
            putElement(out, i, 0x01020304 + i);
        }
        fresh(f, 0, MPI.BYTE, MPI.BYTE);
        f.writeAt(0, out, 3, mem);
        final byte[] bytes = raw(f);
        c.equal(42, bytes.length, "three structs are 3 x 14 bytes in the file");
        bytesAre(c, "01 02 03 05 41 70 20 30 58 00 00 00 fc fb", Arrays.copyOfRange(bytes, 14, 28),
            "the second struct's int, double and short");
        f.setView(0, MPI.BYTE, MPI.BYTE, External32.NAME);
        final ByteBuffer in = nativeBytes(3 * 24);
        f.readAt(0, in, 3, mem);
        c.that(isElement(in, 0, 0x01020304) && isElement(in, 2, 0x01020306), "structs read back");
        c.equal(0, in.getInt(4), "the memory padding is not written to");

        // file extents: byte displacements stay as they are, only the padding at the end goes
        final Datatype packed = struct(FILE_AT);
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        c.equal(16, f.getTypeExtent(packed), "a packed struct's native extent is padded to its double");
        f.setView(0, MPI.BYTE, MPI.BYTE, External32.NAME);
        c.equal(14, f.getTypeExtent(packed), "a packed struct's external32 extent");
        c.equal(18, f.getTypeExtent(mem), "a memory-laid struct keeps its holes in external32");
    }

    private static void filetypesWithHoles(final Checks c, final File f) throws MPIException {
        // two ints, then a hole of 8 bytes (an extent in bytes stays as it is)
        final Datatype holes = Datatype.createResized(Datatype.createContiguous(2, MPI.INT), 0, 16);
        holes.commit();
        fresh(f, 0, MPI.INT, holes);
        f.writeAt(0, new int[] {1, 2, 3, 4}, 4, MPI.INT);
        bytesAre(c, "00 00 00 01 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 03 00 00 00 04", raw(f),
            "a filetype with a hole");

        // every other DOUBLE_INT: the stride in elements scales to 12-byte pairs (24 bytes, not 32)
        final Datatype alternate = Datatype.createVector(2, 1, 2, MPI.DOUBLE_INT);
        alternate.commit();
        fresh(f, 4, MPI.DOUBLE_INT, alternate);
        final ByteBuffer pairs = nativeBytes(48);
        for (int i = 0; i < 3; i++) {
            pairs.putDouble(16 * i, i + 1).putInt(16 * i + 8, 0x0a0b0c00 + i);
        }
        f.writeAt(0, pairs, 3, MPI.DOUBLE_INT);
        c.equal(4 + 24, f.getByteOffset(1), "the second pair of a tile");
        c.equal(4 + 36, f.getByteOffset(2), "the first pair of the second tile");
        f.seek(0, MPI.SEEK_END);
        c.equal(3, f.getPosition(), "SEEK_END counts the pairs the file holds");
        final byte[] b = raw(f);
        c.equal(52, b.length, "a file of three spread pairs");
        bytesAre(c, "00 00 00 00 3f f0 00 00 00 00 00 00 0a 0b 0c 00", Arrays.copyOfRange(b, 0, 16), "pair 0");
        c.that(Arrays.equals(new byte[12], Arrays.copyOfRange(b, 16, 28)), "the hole between the pairs");
        bytesAre(c, "40 00 00 00 00 00 00 00 0a 0b 0c 01", Arrays.copyOfRange(b, 28, 40), "pair 1");
        bytesAre(c, "40 08 00 00 00 00 00 00 0a 0b 0c 02", Arrays.copyOfRange(b, 40, 52), "pair 2");
        f.setView(4, MPI.DOUBLE_INT, alternate, External32.NAME);
        final ByteBuffer back = nativeBytes(48);
        f.readAt(0, back, 3, MPI.DOUBLE_INT);
        c.that(back.getDouble(32) == 3.0 && back.getInt(40) == 0x0a0b0c02, "pairs read back through the holes");
    }

    /** SHORT_INT pair {@code i}: (100 + i, 1000 + i), at its place in a buffer of memory pairs (8 bytes each). */
    private static ByteBuffer pairs(final ByteBuffer b, final int from, final int n) {
        for (int i = 0; i < n; i++) {
            b.putShort(8 * i, (short) (100 + from + i)).putInt(8 * i + 4, 1000 + from + i);
        }
        return b;
    }

    private static boolean holds(final ByteBuffer b, final int from, final int n) {
        for (int i = 0; i < n; i++) {
            if (b.getShort(8 * i) != 100 + from + i || b.getInt(8 * i + 4) != 1000 + from + i) {
                return false;
            }
        }
        return true;
    }

    /** Offsets, both file pointers, the collective, ordered, split and non-blocking forms: 6-byte SHORT_INTs. */
    private static void everyAccessPath(final Checks c, final File f) throws MPIException {
        final Datatype si = MPI.SHORT_INT;
        fresh(f, 10, si, si);
        f.writeAt(0, pairs(nativeBytes(16), 0, 2), 2, si);
        f.seek(2, MPI.SEEK_SET);
        f.write(pairs(nativeBytes(16), 2, 2), 2, si);
        c.equal(4, f.getPosition(), "the individual pointer after a write");
        f.seekShared(4, MPI.SEEK_SET);
        f.writeShared(pairs(nativeBytes(8), 4, 1), 1, si);
        f.writeOrdered(pairs(nativeBytes(8), 5, 1), 1, si);
        c.equal(6, f.getPositionShared(), "the shared pointer after writeShared and writeOrdered");
        f.writeAtAll(6, pairs(nativeBytes(8), 6, 1), 1, si);
        f.iWriteAt(7, pairs(MPI.newByteBuffer(8).order(ByteOrder.nativeOrder()), 7, 1), 1, si).waitFor();
        f.seek(8, MPI.SEEK_SET);
        f.writeAll(pairs(nativeBytes(8), 8, 1), 1, si);
        f.iWrite(pairs(MPI.newByteBuffer(8).order(ByteOrder.nativeOrder()), 9, 1), 1, si).waitFor();
        final ByteBuffer split = pairs(nativeBytes(8), 10, 1);
        f.writeAtAllBegin(10, split, 1, si);
        f.writeAtAllEnd(split);
        final byte[] b = raw(f);
        c.equal(10 + 11 * 6, b.length, "eleven SHORT_INT pairs of 6 bytes after a displacement of 10");
        bytesAre(c, "00 6b 00 00 03 ef", Arrays.copyOfRange(b, 10 + 7 * 6, 10 + 8 * 6), "pair 7 in the file");

        f.setView(10, si, si, External32.NAME);
        final ByteBuffer all = nativeBytes(11 * 8);
        c.equal(11 * 6, f.readAt(0, all, 11, si).getCount(MPI.BYTE), "readAt counts the packed bytes");
        c.that(holds(all, 0, 11), "every pair read back at an explicit offset");
        final ByteBuffer one = nativeBytes(16);
        f.seek(3, MPI.SEEK_SET);
        f.read(one, 2, si);
        c.that(holds(one, 3, 2), "read at the individual pointer");
        f.seekShared(5, MPI.SEEK_SET);
        f.readShared(one, 1, si);
        c.that(holds(one, 5, 1), "readShared");
        f.readOrdered(one, 1, si);
        c.that(holds(one, 6, 1), "readOrdered");
        f.readAtAll(8, one, 2, si);
        c.that(holds(one, 8, 2), "readAtAll");
        f.seek(1, MPI.SEEK_SET);
        f.readAll(one, 1, si);
        c.that(holds(one, 1, 1), "readAll");
        final ByteBuffer direct = MPI.newByteBuffer(16).order(ByteOrder.nativeOrder());
        f.iReadAt(9, direct, 2, si).waitFor();
        c.that(holds(direct, 9, 2), "iReadAt");
        final ByteBuffer tail = nativeBytes(16);
        c.equal(6, f.readAt(10, tail, 2, si).getCount(MPI.BYTE), "a read past the end stops at the last pair");
        c.that(holds(tail, 10, 1), "the last pair");
        f.setSize(10 + 11 * 6 - 1);
        final ByteBuffer cut = nativeBytes(8);
        c.equal(2, f.readAt(10, cut, 1, si).getCount(MPI.BYTE), "an int cut by the end of the file is not read");
        c.that(cut.getShort(0) == 110 && cut.getInt(4) == 0, "only the whole short of a cut pair");
    }

    private static void errors(final Checks c, final File f) throws MPIException {
        c.fails(MPI.ERR_UNSUPPORTED_DATAREP, "an unknown data representation",
            () -> f.setView(0, MPI.INT, MPI.INT, "external64"));
        c.fails(MPI.ERR_UNSUPPORTED_DATAREP, "the names are case sensitive",
            () -> f.setView(0, MPI.INT, MPI.INT, "EXTERNAL32"));
        f.setView(0, MPI.INT, MPI.INT, External32.NAME);
        c.fails(MPI.ERR_CONVERSION, "doubles through a view of ints",
            () -> f.writeAt(0, new double[] {1}, 1, MPI.DOUBLE));
        c.fails(MPI.ERR_CONVERSION, "DOUBLE_INT through a view of ints",
            () -> f.readAt(0, nativeBytes(32), 2, MPI.DOUBLE_INT));
        f.writeAt(0, new float[] {1.5f}, 1, MPI.FLOAT); // 4-byte values on 4-byte etypes convert alike
    }

    /**
     * Rank r's structs lie in blocks of B at DISP + (j * size + r) * B * 14 bytes: a packed struct (14 bytes in
     * the file) tiled with a resized extent of a round of blocks. Written collectively, then each rank reads
     * the next rank's part through a view of it.
     */
    private static void structArray(final Checks c, final Intracomm w, final String name, final int rank,
                                    final int size) throws MPIException {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        final Datatype mem = struct(MEM_AT);
        final Datatype packed = struct(FILE_AT);
        final Datatype tile = Datatype.createResized(Datatype.createContiguous(B, packed), 0, size * B * 14);
        tile.commit();
        final ByteBuffer out = nativeBytes(K * B * 24);
        for (int i = 0; i < K * B; i++) {
            putElement(out, i, rank * 1000 + i);
        }
        f.setView(DISP + (long) rank * B * 14, packed, tile, External32.NAME);
        c.equal(K * B * 14, f.writeAtAll(0, out, K * B, mem).getCount(MPI.BYTE), "writeAtAll of the structs");
        c.equal(DISP + (long) K * size * B * 14, f.getSize(), "the file holds every rank's structs, unpadded");
        final int next = (rank + 1) % size;
        f.setView(DISP + (long) next * B * 14, packed, tile, External32.NAME);
        final ByteBuffer in = nativeBytes(K * B * 24);
        f.readAtAll(0, in, K * B, mem);
        int bad = 0;
        for (int i = 0; i < K * B; i++) {
            bad += isElement(in, i, next * 1000 + i) ? 0 : 1;
        }
        c.equal(0, bad, "structs of rank " + next + " read back wrong");
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        final byte[] first = new byte[14];
        f.readAtAll(DISP + (long) next * B * 14, first, 14, MPI.BYTE);
        final ByteBuffer be = ByteBuffer.wrap(first); // big-endian, as Java reads it by default
        c.that(be.getInt(0) == next * 1000 && be.getDouble(4) == next * 1000 + 0.5
            && be.getShort(12) == (short) -(next * 1000), "the first struct's bytes are big-endian and unpadded");
        f.close();
    }
}
