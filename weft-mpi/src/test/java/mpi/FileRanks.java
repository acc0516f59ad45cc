package mpi;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rank program: MPI-IO on a file every rank opens ({@code args[0]} is the directory): explicit offsets,
 * a view whose filetype interleaves the ranks' blocks written collectively and checked byte by byte, the
 * individual file pointer and seek, derived memory types, non-blocking forms, split collectives, sizes,
 * hints and atomic mode. Prints {@code OK file ...} when every check held.
 */
public final class FileRanks {
    private static final int N = 1000;
    private static final int B = 3;
    private static final int K = 50;
    private static final long DISP = 16;

    private FileRanks() {
    }

    public static void main(final String[] args) throws Exception {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("file", rank);
        final String dir = args[0];

        explicitOffsets(c, w, dir + "/at.dat", rank, size);
        interleavedView(c, w, dir + "/view.dat", rank, size);
        pointersAndForms(c, w, dir + "/ptr.dat", rank, size);
        c.done();
        MPI.Finalize();
    }

    private static int value(final int rank, final int i) {
        return rank * 1_000_000 + i;
    }

    /** Each rank writes its N ints at its own offset; every rank then reads the whole file back. */
    private static void explicitOffsets(final Checks c, final Intracomm w, final String name, final int rank,
                                        final int size) throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR);
        c.that(f.getErrhandler() == MPI.ERRORS_RETURN, "a file's default error handler is ERRORS_RETURN");
        c.equal(MPI.MODE_CREATE | MPI.MODE_RDWR, f.getAMode(), "getAMode");
        c.equal(size, f.getGroup().getSize(), "getGroup");
        f.setView(0, MPI.INT, MPI.INT, "native");
        final int[] mine = new int[N];
        for (int i = 0; i < N; i++) {
            mine[i] = value(rank, i);
        }
        final Status ws = f.writeAt((long) rank * N, mine, N, MPI.INT);
        c.equal(N, ws.getCount(MPI.INT), "writeAt status counts ints");
        f.sync();
        c.equal((long) size * N * 4, f.getSize(), "file size after every rank wrote");
        final int[] all = new int[size * N];
        final Status rs = f.readAt(0, all, size * N, MPI.INT);
        c.equal((long) size * N, rs.getCount(MPI.INT), "readAt of the whole file");
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < N; i++) {
                if (all[r * N + i] != value(r, i)) {
                    c.equal(value(r, i), all[r * N + i], "int " + i + " of rank " + r);
                }
            }
        }
        // a read that crosses the end of the file reads what is there
        final int[] tail = new int[5];
        final Status ts = f.readAt((long) size * N - 2, tail, 5, MPI.INT);
        c.equal(2, ts.getCount(MPI.INT), "a read across the end of file counts what it read");
        c.equal(value(size - 1, N - 1), tail[1], "the last int");
        // a strided memory type: every other int of a buffer goes to the file contiguously
        final Datatype evens = Datatype.createVector(4, 1, 2, MPI.INT);
        evens.commit();
        final int[] spread = {11, -1, 12, -1, 13, -1, 14};
        w.barrier();
        f.writeAt((long) rank * N, spread, 1, evens);
        final int[] back = new int[4];
        f.readAt((long) rank * N, back, 4, MPI.INT);
        c.that(back[0] == 11 && back[1] == 12 && back[2] == 13 && back[3] == 14, "write from a vector memory type");
        final int[] scattered = new int[7];
        f.readAt((long) rank * N, scattered, 1, evens);
        c.that(scattered[0] == 11 && scattered[2] == 12 && scattered[4] == 13 && scattered[6] == 14
            && scattered[1] == 0, "read into a vector memory type");
        f.close();
        c.fails(MPI.ERR_FILE, "a closed file", () -> f.getSize());
        if (rank == 0) {
            File.delete(name);
        }
        w.barrier();
        c.that(!Files.exists(Path.of(name)), "File.delete removed the file");
    }

    /**
     * The ranks' views interleave: rank r sees blocks of B ints at DISP + (j * size + r) * B ints, a vector
     * filetype resized to a whole round of blocks. Written collectively, then checked byte by byte through the
     * default view, then read back collectively through the views.
     */
    private static void interleavedView(final Checks c, final Intracomm w, final String name, final int rank,
                                        final int size) throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        final Datatype block = Datatype.createVector(1, B, size * B, MPI.INT);
        final Datatype tile = Datatype.createResized(block, 0, size * B * 4);
        tile.commit();
        final long disp = DISP + (long) rank * B * 4;
        f.setView(disp, MPI.INT, tile, "native");
        final FileView v = f.getView();
        c.that(v.getDisp() == disp && v.getEType() == MPI.INT && v.getFileType() == tile
            && "native".equals(v.getDataRep()), "getView");
        c.equal(disp + (long) size * B * 4, f.getByteOffset(B), "getByteOffset of the second block");
        c.equal(disp + (long) size * B * 4 + 4, f.getByteOffset(B + 1), "getByteOffset inside a block");
        final int[] data = new int[K * B];
        for (int i = 0; i < data.length; i++) {
            data[i] = value(rank, i);
        }
        final Status st = f.writeAll(data, K * B, MPI.INT);
        c.equal(K * B, st.getCount(MPI.INT), "writeAll status");
        c.equal(K * B, f.getPosition(), "the individual pointer moved past what was written");

        // byte by byte through the default view
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        final long total = DISP + (long) K * size * B * 4;
        c.equal(total, f.getSize(), "size of the interleaved file");
        final byte[] bytes = new byte[(int) total];
        c.equal(total, f.readAtAll(0, bytes, bytes.length, MPI.BYTE).getCount(MPI.BYTE), "read every byte");
        final ByteBuffer bb = ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.nativeOrder());
        for (int i = 0; i < DISP; i++) {
            c.that(bytes[i] == 0, "the bytes before the views are a hole");
        }
        int bad = 0;
        for (int j = 0; j < K; j++) {
            for (int r = 0; r < size; r++) {
                for (int i = 0; i < B; i++) {
                    final int at = (int) DISP + ((j * size + r) * B + i) * 4;
                    bad += bb.getInt(at) == value(r, j * B + i) ? 0 : 1;
                }
            }
        }
        c.equal(0, bad, "ints out of place in the interleaved file");

        // back through the views, collectively, and by the individual pointer
        f.setView(disp, MPI.INT, tile, "native");
        c.equal(0, f.getPosition(), "setView resets the pointer");
        final int[] again = new int[K * B];
        f.readAll(again, K * B, MPI.INT);
        c.that(java.util.Arrays.equals(data, again), "readAll through the interleaving view");
        f.seek(B, MPI.SEEK_SET);
        final int[] one = new int[B];
        f.read(one, B, MPI.INT);
        c.equal(value(rank, B), one[0], "read after seek(SEEK_SET)");
        c.equal(2L * B, f.getPosition(), "position after the read");
        f.seek(-1, MPI.SEEK_CUR);
        f.read(one, 1, MPI.INT);
        c.equal(value(rank, 2 * B - 1), one[0], "read after seek(SEEK_CUR)");
        f.seek(0, MPI.SEEK_END);
        c.equal((long) K * B, f.getPosition(), "seek(SEEK_END) is the view's data before the end of the file");
        c.equal(0, f.read(one, B, MPI.INT).getCount(MPI.INT), "nothing to read at the end");
        c.fails(MPI.ERR_ARG, "seek before the start", () -> f.seek(-1, MPI.SEEK_SET));
        c.fails(MPI.ERR_ARG, "unknown whence", () -> f.seek(0, 12345));
        c.fails(MPI.ERR_TYPE, "a type that is not whole etypes", () -> f.write(new byte[3], 3, MPI.BYTE));
        f.close();
        w.barrier();
        c.that(!Files.exists(Path.of(name)), "MODE_DELETE_ON_CLOSE removed the file");
    }

    /** Non-blocking and split-collective forms, sizes, hints, atomic mode. */
    private static void pointersAndForms(final Checks c, final Intracomm w, final String name, final int rank,
                                         final int size) throws Exception {
        final Info hints = new Info();
        hints.set("access_style", "read_mostly");
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR, hints);
        c.that("read_mostly".equals(f.getInfo().get("access_style")), "getInfo keeps the hints");
        f.setView(0, MPI.INT, MPI.INT, "native");
        final IntBuffer out = MPI.newIntBuffer(8);
        for (int i = 0; i < 8; i++) {
            out.put(i, value(rank, i));
        }
        final Request wr = f.iWriteAt(rank * 8L, out, 8, MPI.INT);
        c.equal(8, wr.waitStatus().getCount(MPI.INT), "iWriteAt completes");
        w.barrier();
        final IntBuffer in = MPI.newIntBuffer(8);
        final int peer = (rank + 1) % size;
        c.equal(8, f.iReadAt(peer * 8L, in, 8, MPI.INT).waitStatus().getCount(MPI.INT), "iReadAt completes");
        c.equal(value(peer, 7), in.get(7), "iReadAt read the neighbour's ints");
        f.seek(rank * 8L + 2, MPI.SEEK_SET);
        final Request rr = f.iRead(in, 2, MPI.INT);
        c.equal(rank * 8L + 4, f.getPosition(), "iRead moved the pointer when called");
        c.equal(2, rr.waitStatus().getCount(MPI.INT), "iRead's status");
        c.equal(value(rank, 2), in.get(0), "iRead at the individual pointer");
        out.put(0, -7);
        f.iWrite(out, 1, MPI.INT).waitFor();
        final int[] check = new int[1];
        f.readAt(rank * 8L + 4, check, 1, MPI.INT);
        c.equal(-7, check[0], "iWrite at the individual pointer");
        boolean refused = false;
        try {
            f.iWrite(IntBuffer.allocate(1), 1, MPI.INT);
        } catch (final IllegalArgumentException e) {
            refused = true;
        }
        c.that(refused, "a heap buffer for a non-blocking write is refused");
        manyInFlight(c, f, rank);

        // split collectives
        final int[] blk = {rank, rank, rank};
        f.writeAtAllBegin(size * 8L + rank * 3L, blk, 3, MPI.INT);
        c.equal(3, f.writeAtAllEnd(blk).getCount(MPI.INT), "writeAtAllEnd's status");
        final int[] got = new int[3 * size];
        f.readAtAllBegin(size * 8L, got, got.length, MPI.INT);
        c.equal(3L * size, f.readAtAllEnd(got).getCount(MPI.INT), "readAtAllEnd's status");
        for (int r = 0; r < size; r++) {
            c.equal(r, got[3 * r + 2], "split collective data of rank " + r);
        }
        c.fails(MPI.ERR_REQUEST, "an end without a begin", () -> f.readAllEnd(got));

        // the non-blocking collective forms, at offsets and at the individual pointer
        final IntBuffer two = MPI.newIntBuffer(2);
        two.put(0, 5000 + rank).put(1, 6000 + rank);
        final long at2 = size * 11L + rank * 2L;
        c.equal(2, f.iWriteAtAll(at2, two, 2, MPI.INT).waitStatus().getCount(MPI.INT), "iWriteAtAll");
        w.barrier();
        final IntBuffer back2 = MPI.newIntBuffer(2);
        final int other = (rank + size - 1) % size;
        f.iReadAtAll(size * 11L + other * 2L, back2, 2, MPI.INT).waitFor();
        c.equal(6000 + other, back2.get(1), "iReadAtAll reads another rank's ints");
        f.seek(at2, MPI.SEEK_SET);
        two.put(0, 7000 + rank);
        f.iWriteAll(two, 1, MPI.INT).waitFor();
        f.seek(at2, MPI.SEEK_SET);
        f.iReadAll(back2, 2, MPI.INT).waitFor();
        c.that(back2.get(0) == 7000 + rank && back2.get(1) == 6000 + rank, "iWriteAll then iReadAll");
        f.seek(at2, MPI.SEEK_SET);
        final int[] viaBegin = new int[2];
        f.readAllBegin(viaBegin, 2, MPI.INT);
        c.equal(2, f.readAllEnd(viaBegin).getCount(MPI.INT), "readAllEnd's status");
        c.equal(7000 + rank, viaBegin[0], "readAllBegin read");
        final Info more = new Info();
        more.set("striping_factor", "4");
        f.setInfo(more);
        c.that("4".equals(f.getInfo().get("striping_factor")), "setInfo");

        // atomic mode: every rank writes its rank over the same 64 ints, many times; a read never sees a mix
        // (a view of every other int makes each access 64 separate writes or reads of the file)
        c.that(!f.getAtomicity(), "non-atomic by default");
        f.setAtomicity(true);
        c.that(f.getAtomicity(), "setAtomicity(true)");
        f.setView(0, MPI.INT, Datatype.createResized(MPI.INT, 0, 8), "native");
        final int[] fill = new int[64];
        java.util.Arrays.fill(fill, rank);
        final int[] seen = new int[64];
        int mixed = 0;
        for (int round = 0; round < 30; round++) {
            f.writeAt(1000, fill, 64, MPI.INT);
            f.readAt(1000, seen, 64, MPI.INT);
            for (int i = 1; i < 64; i++) {
                mixed += seen[i] == seen[0] ? 0 : 1;
            }
        }
        c.equal(0, mixed, "atomic writes do not interleave");
        f.setAtomicity(false);
        f.setView(0, MPI.INT, MPI.INT, "native");

        // sizes
        f.setSize(40);
        c.equal(40, f.getSize(), "setSize shrinks");
        f.preallocate(400);
        c.equal(400, f.getSize(), "preallocate extends");
        f.preallocate(100);
        c.equal(400, f.getSize(), "preallocate never shrinks");
        f.setSize(1000);
        c.equal(1000, f.getSize(), "setSize extends");
        final int[] zeros = new int[4];
        java.util.Arrays.fill(zeros, 9);
        f.readAt(200, zeros, 4, MPI.INT);
        c.that(zeros[0] == 0 && zeros[3] == 0, "an extension reads as zeros");
        c.equal(3, f.getTypeExtent(Datatype.createContiguous(3, MPI.INT)), "getTypeExtent");
        c.fails(MPI.ERR_UNSUPPORTED_DATAREP, "an unknown data representation",
            () -> f.setView(0, MPI.INT, MPI.INT, "external64"));
        c.fails(MPI.ERR_TYPE, "a filetype that is not whole etypes",
            () -> f.setView(0, MPI.INT, Datatype.createContiguous(3, MPI.SHORT), "native"));
        // a write left in flight: close waits for it (else the I/O thread would write to a closed channel)
        final IntBuffer last = MPI.newIntBuffer(1);
        last.put(0, 4242 + rank);
        f.iWriteAt(500 + rank, last, 1, MPI.INT);
        f.close();
        final File again = new File(w, name, MPI.MODE_RDONLY);
        again.setView(0, MPI.INT, MPI.INT, "native");
        final int[] landed = new int[1];
        again.readAt(500 + rank, landed, 1, MPI.INT);
        c.equal(4242 + rank, landed[0], "a write left in flight landed before close returned");
        again.close();
        if (rank == 0) {
            File.delete(name);
        }
        w.barrier();
    }

    /**
     * Non-blocking accesses in flight together: 16 writes of 64 KiB started before any is waited for (the I/O
     * thread runs them while this thread goes on), completed by waitAll with their counts; then 16 reads of them
     * tested until done; an access checked at its call fails at once.
     */
    private static void manyInFlight(final Checks c, final File f, final int rank) throws Exception {
        final int n = 16;
        final int ints = 16 * 1024;
        final long base = 1_000_000L + (long) rank * n * ints;
        final Request[] writes = new Request[n];
        final IntBuffer[] bufs = new IntBuffer[n];
        for (int k = 0; k < n; k++) {
            bufs[k] = MPI.newIntBuffer(ints);
            for (int i = 0; i < ints; i += 1024) {
                bufs[k].put(i, value(rank, k * ints + i));
            }
            writes[k] = f.iWriteAt(base + (long) k * ints, bufs[k], ints, MPI.INT);
        }
        final Status[] ws = Request.waitAllStatus(writes);
        for (int k = 0; k < n; k++) {
            c.equal(ints, ws[k].getCount(MPI.INT), "write " + k + " in flight with the others");
        }
        final Request[] reads = new Request[n];
        final IntBuffer[] backs = new IntBuffer[n];
        for (int k = 0; k < n; k++) {
            backs[k] = MPI.newIntBuffer(ints);
            reads[k] = f.iReadAt(base + (long) k * ints, backs[k], ints, MPI.INT);
        }
        int polls = 0;
        while (!Request.testAll(reads)) {
            polls++;
        }
        int bad = 0;
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < ints; i += 1024) {
                bad += backs[k].get(i) == value(rank, k * ints + i) ? 0 : 1;
            }
        }
        c.equal(0, bad, "ints read back by 16 reads in flight (" + polls + " polls of testAll)");
        c.fails(MPI.ERR_ARG, "a negative offset fails at the call", () -> f.iReadAt(-1, backs[0], 1, MPI.INT));
    }
}

