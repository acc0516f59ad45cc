package mpi;

import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rank program: MPI-IO's shared file pointer across ranks (separate processes) and the errors of MPI-IO
 * ({@code args[0]} is the directory). Every rank appends records with {@code writeShared} at once: the
 * records must land in disjoint places, each whole, each exactly once; {@code writeOrdered} must lay the
 * ranks' parts out in rank order; then {@code readShared}/{@code readOrdered}, {@code seekShared},
 * MODE_APPEND, MODE_SEQUENTIAL and the error classes. Prints {@code OK sharedfile ...} when every check held.
 */
public final class SharedFileRanks {
    private static final int RECORDS = 40;
    private static final int LEN = 16;

    private SharedFileRanks() {
    }

    public static void main(final String[] args) throws Exception {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("sharedfile", rank);
        final String dir = args[0];

        concurrentShared(c, w, dir + "/shared.dat", rank, size);
        ordered(c, w, dir + "/ordered.dat", rank, size);
        errors(c, w, dir, rank);
        c.done();
        MPI.Finalize();
    }

    /** A record: its writer, its number, then a pattern that shows whether it was written whole. */
    private static int[] record(final int rank, final int seq) {
        final int[] r = new int[LEN];
        r[0] = rank;
        r[1] = seq;
        for (int i = 2; i < LEN; i++) {
            r[i] = rank * 7919 + seq * 31 + i;
        }
        return r;
    }

    private static void concurrentShared(final Checks c, final Intracomm w, final String name, final int rank,
                                         final int size) throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR);
        f.setView(0, MPI.INT, MPI.INT, "native");
        c.equal(0, f.getPositionShared(), "the shared pointer starts at 0");
        w.barrier();
        for (int s = 0; s < RECORDS; s++) {
            c.equal(LEN, f.writeShared(record(rank, s), LEN, MPI.INT).getCount(MPI.INT), "writeShared status");
        }
        w.barrier();
        final long total = (long) size * RECORDS * LEN;
        c.equal(total, f.getPositionShared(), "the shared pointer moved past every rank's records");
        c.equal(total * 4, f.getSize(), "the file holds every record and nothing else");
        final int[] all = new int[(int) total];
        f.readAt(0, all, all.length, MPI.INT);
        final boolean[][] found = new boolean[size][RECORDS];
        int torn = 0;
        int twice = 0;
        for (int at = 0; at < all.length; at += LEN) {
            final int r = all[at];
            final int s = all[at + 1];
            if (r < 0 || r >= size || s < 0 || s >= RECORDS) {
                torn++;
                continue;
            }
            final int[] want = record(r, s);
            for (int i = 0; i < LEN; i++) {
                torn += all[at + i] == want[i] ? 0 : 1;
            }
            twice += found[r][s] ? 1 : 0;
            found[r][s] = true;
        }
        c.equal(0, torn, "records overwritten or torn by concurrent writeShared");
        c.equal(0, twice, "records found twice");
        int missing = 0;
        for (final boolean[] byRank : found) {
            for (final boolean b : byRank) {
                missing += b ? 0 : 1;
            }
        }
        c.equal(0, missing, "records missing");

        // readShared: together the ranks read every record once
        f.seekShared(0, MPI.SEEK_SET);
        c.equal(0, f.getPositionShared(), "seekShared(SEEK_SET)");
        w.barrier(); // nobody moves the pointer before every rank looked at it
        final int[] one = new int[LEN];
        final int[] mineRead = new int[1];
        while (f.readShared(one, LEN, MPI.INT).getCount(MPI.INT) == LEN) {
            mineRead[0]++;
        }
        w.allReduce(mineRead, 1, MPI.INT, MPI.SUM);
        c.equal((long) size * RECORDS, mineRead[0], "readShared reads every record exactly once across the ranks");
        f.seekShared(-LEN, MPI.SEEK_END);
        c.equal(total - LEN, f.getPositionShared(), "seekShared(SEEK_END)");
        f.seekShared(LEN, MPI.SEEK_CUR);
        c.equal(total, f.getPositionShared(), "seekShared(SEEK_CUR)");
        c.fails(MPI.ERR_ARG, "seekShared before the start", () -> f.seekShared(-1, MPI.SEEK_SET));
        // non-blocking shared forms
        f.seekShared(0, MPI.SEEK_SET);
        final IntBuffer direct = MPI.newIntBuffer(LEN);
        c.equal(LEN, f.iReadShared(direct, LEN, MPI.INT).waitStatus().getCount(MPI.INT), "iReadShared");
        w.barrier();
        f.seekShared(0, MPI.SEEK_END);
        direct.put(0, -1);
        f.iWriteShared(direct, LEN, MPI.INT).waitFor();
        w.barrier();
        c.equal(total + (long) size * LEN, f.getSize() / 4, "iWriteShared appended a record per rank");
        f.close();
        if (rank == 0) {
            File.delete(name);
        }
        w.barrier();
    }

    /** Rank r writes r + 1 ints of value r with writeOrdered: the file must be 0, 1, 1, 2, 2, 2, ... */
    private static void ordered(final Checks c, final Intracomm w, final String name, final int rank,
                                final int size) throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        f.setView(0, MPI.INT, MPI.INT, "native");
        final int[] part = new int[rank + 1];
        java.util.Arrays.fill(part, rank);
        for (int round = 0; round < 3; round++) {
            c.equal(rank + 1, f.writeOrdered(part, rank + 1, MPI.INT).getCount(MPI.INT), "writeOrdered status");
        }
        final int per = size * (size + 1) / 2;
        c.equal(3L * per, f.getPositionShared(), "writeOrdered moved the shared pointer by every part");
        final int[] all = new int[3 * per];
        f.readAt(0, all, all.length, MPI.INT);
        int at = 0;
        int wrong = 0;
        for (int round = 0; round < 3; round++) {
            for (int r = 0; r < size; r++) {
                for (int i = 0; i <= r; i++) {
                    wrong += all[at++] == r ? 0 : 1;
                }
            }
        }
        c.equal(0, wrong, "ints out of rank order after writeOrdered");
        f.seekShared(0, MPI.SEEK_SET);
        final int[] back = new int[rank + 1];
        f.readOrdered(back, rank + 1, MPI.INT);
        int others = 0;
        for (final int v : back) {
            others += v == rank ? 0 : 1;
        }
        c.equal(0, others, "readOrdered gives each rank its own part");
        f.close();
        w.barrier();
        c.that(!Files.exists(Path.of(name)), "MODE_DELETE_ON_CLOSE");
    }

    private static void errors(final Checks c, final Intracomm w, final String dir, final int rank)
        throws Exception {
        final String name = dir + "/errors.dat";
        c.fails(MPI.ERR_AMODE, "two access modes", () -> new File(w, name, MPI.MODE_RDONLY | MPI.MODE_RDWR));
        c.fails(MPI.ERR_AMODE, "no access mode", () -> new File(w, name, MPI.MODE_CREATE));
        c.fails(MPI.ERR_AMODE, "read-only creation", () -> new File(w, name, MPI.MODE_RDONLY | MPI.MODE_CREATE));
        c.fails(MPI.ERR_AMODE, "read-write sequential", () -> new File(w, name, MPI.MODE_RDWR
            | MPI.MODE_SEQUENTIAL));
        c.fails(MPI.ERR_AMODE, "unknown mode bits", () -> new File(w, name, MPI.MODE_RDWR | (1 << 20)));
        c.fails(MPI.ERR_NO_SUCH_FILE, "opening a missing file", () -> new File(w, name, MPI.MODE_RDONLY));
        c.fails(MPI.ERR_NO_SUCH_FILE, "deleting a missing file", () -> File.delete(dir + "/missing-" + rank));
        c.fails(MPI.ERR_BAD_FILE, "opening a directory", () -> new File(w, dir, MPI.MODE_RDONLY));

        // exclusive creation: one collective open creates, the next finds it there
        final File made = new File(w, name, MPI.MODE_CREATE | MPI.MODE_EXCL | MPI.MODE_WRONLY);
        c.fails(MPI.ERR_ACCESS, "reading a write-only file", () -> made.read(new int[1], 1, MPI.INT));
        made.writeAt(rank * 4L, new int[] {rank}, 1, MPI.INT);
        made.close();
        c.fails(MPI.ERR_FILE_EXISTS, "MODE_EXCL on an existing file", () -> new File(w, name, MPI.MODE_CREATE
            | MPI.MODE_EXCL | MPI.MODE_WRONLY));

        final File ro = new File(w, name, MPI.MODE_RDONLY);
        c.fails(MPI.ERR_READ_ONLY, "writing a read-only file", () -> ro.write(new int[1], 1, MPI.INT));
        c.fails(MPI.ERR_READ_ONLY, "resizing a read-only file", () -> ro.setSize(0));
        final int[] v = new int[1];
        ro.readAt(rank * 4L, v, 1, MPI.INT);
        c.equal(rank, v[0], "read back what the write-only open wrote");
        ro.close();

        // MODE_APPEND: both pointers start at the end
        final long before = w.getSize() * 4L;
        final File app = new File(w, name, MPI.MODE_WRONLY | MPI.MODE_APPEND);
        c.equal(before, app.getPosition(), "MODE_APPEND: the individual pointer starts at the end");
        c.equal(before, app.getPositionShared(), "MODE_APPEND: the shared pointer starts at the end");
        w.barrier();
        app.writeShared(new byte[] {(byte) rank}, 1, MPI.BYTE);
        app.close();

        // MODE_SEQUENTIAL: only the shared pointer
        final File seq = new File(w, name, MPI.MODE_RDONLY | MPI.MODE_SEQUENTIAL);
        c.fails(MPI.ERR_UNSUPPORTED_OPERATION, "readAt on a sequential file", () -> seq.readAt(0, v, 1, MPI.INT));
        c.fails(MPI.ERR_UNSUPPORTED_OPERATION, "seek on a sequential file", () -> seq.seek(0, MPI.SEEK_SET));
        final byte[] first = new byte[4];
        seq.readOrdered(first, 4, MPI.BYTE);
        c.equal(before + w.getSize(), seq.getSize(), "each rank appended a byte");
        seq.close();
        c.fails(MPI.ERR_FILE, "a closed file", () -> seq.getPosition());

        // a fatal handler on the file is honoured; raising through ERRORS_RETURN returns
        final File last = new File(w, name, MPI.MODE_RDONLY);
        last.callErrhandler(MPI.ERR_OTHER);
        last.setErrhandler(MPI.ERRORS_ARE_FATAL);
        c.that(last.getErrhandler() == MPI.ERRORS_ARE_FATAL, "setErrhandler");
        last.setErrhandler(MPI.ERRORS_RETURN);
        last.close();
        w.barrier();
        if (rank == 0) {
            File.delete(name);
        }
    }
}
