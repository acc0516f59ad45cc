package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Rank program: two-phase collective I/O ({@link FileTwoPhase}) on a file every rank opens ({@code args[0]} is
 * the directory). The ranks' views interleave one int at a time, so each rank alone would move one int per call;
 * collectively the aggregators move whole domains. Checked: every int in place (read back through the views
 * and byte by byte through the default view), with every number of aggregators ({@code cb_nodes}) and a
 * staging buffer smaller than a domain ({@code cb_buffer_size}); holes between the ranks' data keep what the
 * file held; a read across the end of the file counts what it read; {@code romio_cb_write=disable} and
 * contiguous, disjoint parts take the independent path (a counter says which path ran), whose reads through a
 * strided view are sieved (FileIo: many runs per read call) and checked the same way; a rank whose own
 * arguments are wrong gets its error while the others' data still go in. Prints {@code OK cb ...}.
 */
public final class CollectiveBufferingRanks {
    /** Ints per rank. */
    private static final int N = 20_000;

    private CollectiveBufferingRanks() {
    }

    public static void main(final String[] args) throws Exception {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("cb", rank);
        final String name = args[0] + "/cb.dat";
        for (final String nodes : new String[] {null, "1", "2", String.valueOf(size)}) {
            final Info hints = new Info();
            if (nodes != null) {
                hints.set(FileTwoPhase.CB_NODES, nodes);
            }
            hints.set(FileTwoPhase.CB_BUFFER_SIZE, "8k"); // smaller than a domain: many stagings
            hints.set(FileTwoPhase.CB_READ, "enable");
            interleaved(c, w, name, rank, size, hints, "cb_nodes " + nodes, 2);
        }
        interleaved(c, w, name, rank, size, new Info(), "default hints (reads independent)", 1);
        final Info off = new Info();
        off.set(FileTwoPhase.CB_WRITE, "disable");
        off.set(FileTwoPhase.CB_READ, "disable");
        interleaved(c, w, name, rank, size, off, "collective buffering disabled", 0);
        holesAndEnd(c, w, name, rank, size);
        sieveWindows(c, w, name, rank);
        sievedWrites(c, w, name, rank, size, new Info(), "sieved");
        final Info plain = new Info();
        plain.set(FileIo.DS_WRITE, "disable");
        sievedWrites(c, w, name, rank, size, plain, "run by run");
        twoHandlesInOneRank(c, w, name, rank);
        disjointAndErrors(c, w, name, rank, size);
        c.done();
        MPI.Finalize();
    }

    private static int value(final int rank, final int i, final int salt) {
        return salt * 100_000_000 + rank * 1_000_000 + i;
    }

    /** A view in which rank r sees every size-th int from int r: one int per run. */
    private static Datatype strided(final int size) throws MPIException {
        final Datatype t = Datatype.createResized(MPI.INT, 0, size * 4);
        t.commit();
        return t;
    }

    private static void interleaved(final Checks c, final Intracomm w, final String name, final int rank,
                                    final int size, final Info hints, final String what, final int twoPhaseCalls)
        throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE, hints);
        f.setView((long) rank * 4, MPI.INT, strided(size), "native");
        final int salt = what.length();
        final int[] mine = new int[N];
        for (int i = 0; i < N; i++) {
            mine[i] = value(rank, i, salt);
        }
        final long before = FileTwoPhase.calls;
        c.equal(N, f.writeAtAll(0, mine, N, MPI.INT).getCount(MPI.INT), what + ": writeAtAll counts every int");
        final int[] back = new int[N];
        c.equal(N, f.readAtAll(0, back, N, MPI.INT).getCount(MPI.INT), what + ": readAtAll counts every int");
        c.that(java.util.Arrays.equals(mine, back), what + ": read back through the view");
        c.equal(twoPhaseCalls, FileTwoPhase.calls - before, what + ": two-phase calls");
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        final byte[] bytes = new byte[size * N * 4];
        c.equal(bytes.length, f.readAt(0, bytes, bytes.length, MPI.BYTE).getCount(MPI.BYTE), what + ": file size");
        final ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        int bad = 0;
        for (int i = 0; i < N; i++) {
            for (int r = 0; r < size; r++) {
                bad += bb.getInt((i * size + r) * 4) == value(r, i, salt) ? 0 : 1;
            }
        }
        c.equal(0, bad, what + ": ints out of place in the file");
        f.close();
    }

    /**
     * Each rank writes every (size + 1)-th int: the last column is nobody's, so it keeps what was there. A read
     * through the views then asks past the end of the file.
     */
    private static void holesAndEnd(final Checks c, final Intracomm w, final String name, final int rank,
                                    final int size) throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        final int cols = size + 1;
        if (rank == 0) {
            final int[] fill = new int[N * cols];
            java.util.Arrays.fill(fill, -5);
            f.writeAt(0, fill, fill.length, MPI.INT);
        }
        w.barrier();
        final Datatype t = Datatype.createResized(MPI.INT, 0, cols * 4);
        t.commit();
        f.setView((long) rank * 4, MPI.INT, t, "native");
        final int[] mine = new int[N];
        for (int i = 0; i < N; i++) {
            mine[i] = value(rank, i, 7);
        }
        final long before = FileTwoPhase.calls;
        f.writeAtAll(0, mine, N, MPI.INT);
        c.equal(1, FileTwoPhase.calls - before, "holes: the write went two-phase");
        final Info reads = new Info();
        reads.set(FileTwoPhase.CB_READ, "enable");
        f.setInfo(reads);
        f.setView(0, MPI.INT, MPI.INT, "native");
        final int[] all = new int[N * cols];
        f.readAt(0, all, all.length, MPI.INT);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            for (int r = 0; r < size; r++) {
                bad += all[i * cols + r] == value(r, i, 7) ? 0 : 1;
            }
            bad += all[i * cols + size] == -5 ? 0 : 1;
        }
        c.equal(0, bad, "holes: ints out of place, or a hole overwritten");
        // through the views again, from int N - 10 of each rank's: 10 are there, 30 are asked
        f.setView((long) rank * 4, MPI.INT, t, "native");
        final int[] tail = new int[30];
        c.equal(10, f.readAtAll(N - 10, tail, 30, MPI.INT).getCount(MPI.INT), "a read across the end counts 10");
        c.equal(value(rank, N - 1, 7), tail[9], "the last int before the end");
        c.equal(0, tail[10], "nothing read past the end");
        final int[] alone = new int[30];
        c.equal(10, f.readAt(N - 10, alone, 30, MPI.INT).getCount(MPI.INT), "an independent (sieved) read too");
        c.that(java.util.Arrays.equals(tail, alone), "the sieved read reads what the collective one read");
        f.close();
    }

    /**
     * Independent sieved reads ({@link FileIo}) over a file of consecutive ints: one int in two read through
     * more than one sieve window (1.2 MB of runs and holes, 150,000 runs); one int every 80 KiB, each hole larger
     * than the sieve's gap (every run read alone); and a read past the end of the file inside a window.
     */
    private static void sieveWindows(final Checks c, final Intracomm w, final String name, final int rank)
        throws Exception {
        final int ints = 400_000;
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        if (rank == 0) {
            final int[] all = new int[ints];
            for (int i = 0; i < ints; i++) {
                all[i] = i;
            }
            f.writeAt(0, all, ints, MPI.INT);
        }
        w.barrier();
        final Datatype everyOther = Datatype.createResized(MPI.INT, 0, 8);
        everyOther.commit();
        final int odd = rank % 2;
        f.setView(odd * 4L, MPI.INT, everyOther, "native");
        final int[] got = new int[150_000];
        c.equal(got.length, f.readAt(0, got, got.length, MPI.INT).getCount(MPI.INT), "sieve windows: count");
        int bad = 0;
        for (int i = 0; i < got.length; i++) {
            bad += got[i] == 2 * i + odd ? 0 : 1;
        }
        c.equal(0, bad, "sieve windows: ints out of place");
        final int[] tail = new int[30];
        c.equal(10, f.readAt(ints / 2 - 10, tail, 30, MPI.INT).getCount(MPI.INT), "sieve: the end inside a window");
        c.equal(ints - 2 + odd, tail[9], "sieve: the last int before the end");
        final int far = 20 * 1024; // ints: 80 KiB apart
        final Datatype sparse = Datatype.createResized(MPI.INT, 0, far * 4);
        sparse.commit();
        f.setView((long) rank * 4, MPI.INT, sparse, "native");
        final int[] few = new int[ints / far];
        c.equal(few.length, f.readAt(0, few, few.length, MPI.INT).getCount(MPI.INT), "sparse: count");
        for (int i = 0; i < few.length; i++) {
            c.equal(i * far + rank, few[i], "sparse: int " + i);
        }
        f.close();
    }

    /**
     * Independent writes through interleaved views, all ranks at once, over and over: sieved (each rank reads a
     * window, patches its ints and writes the window back, holes and all), a rank's read-modify-write must hold
     * its range alone, or it writes back another rank's ints as they were before that rank wrote them. Then
     * writes whose holes are larger than the sieve's gap, and a write past the end of the file.
     */
    private static void sievedWrites(final Checks c, final Intracomm w, final String name, final int rank,
                                     final int size, final Info hints, final String what) throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE, hints);
        f.setView((long) rank * 4, MPI.INT, strided(size), "native");
        final int n = 5_000;
        final int[] mine = new int[n];
        for (int round = 1; round <= 20; round++) {
            for (int i = 0; i < n; i++) {
                mine[i] = value(rank, i, round);
            }
            c.equal(n, f.writeAt(0, mine, n, MPI.INT).getCount(MPI.INT), what + ": writeAt counts");
        }
        w.barrier();
        f.setView(0, MPI.INT, MPI.INT, "native");
        final int[] all = new int[n * size];
        f.readAt(0, all, all.length, MPI.INT);
        int lost = 0;
        for (int i = 0; i < n; i++) {
            for (int r = 0; r < size; r++) {
                lost += all[i * size + r] == value(r, i, 20) ? 0 : 1;
            }
        }
        c.equal(0, lost, what + ": ints lost or stale after concurrent interleaved writes");
        w.barrier();
        final int far = 20 * 1024; // ints: 80 KiB apart, more than the sieve's gap
        final Datatype sparse = Datatype.createResized(MPI.INT, 0, far * 4);
        sparse.commit();
        f.setView((long) rank * 4, MPI.INT, sparse, "native");
        final int[] few = {rank + 11, rank + 22, rank + 33};
        f.writeAt(n * size / far + 2, few, 3, MPI.INT); // past the end of the file
        w.barrier();
        final int[] back = new int[3];
        c.equal(3, f.readAt(n * size / far + 2, back, 3, MPI.INT).getCount(MPI.INT), what + ": sparse read back");
        c.that(java.util.Arrays.equals(few, back), what + ": sparse ints past the old end");
        f.close();
    }

    /**
     * One rank opens the file twice (two handles, one process) in atomic mode and writes through both: the
     * handles' byte-range locks set against each other and wait (they are locks of two opens), never fail.
     */
    private static void twoHandlesInOneRank(final Checks c, final Intracomm w, final String name, final int rank)
        throws Exception {
        if (rank == 0) {
            final String own = name + ".self";
            final File a = new File(MPI.COMM_SELF, own, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
            final File b = new File(MPI.COMM_SELF, own, MPI.MODE_RDWR);
            a.setAtomicity(true);
            b.setAtomicity(true);
            final Thread t = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 200; i++) {
                        b.writeAt(0, new int[] {i, i, i, i}, 4, MPI.INT);
                    }
                } catch (final MPIException e) {
                    throw new IllegalStateException(e);
                }
            });
            final int[] seen = new int[4];
            int torn = 0;
            for (int i = 0; i < 200; i++) {
                a.writeAt(0, new int[] {-1, -1, -1, -1}, 4, MPI.INT);
                a.readAt(0, seen, 4, MPI.INT);
                torn += seen[0] == seen[1] && seen[1] == seen[2] && seen[2] == seen[3] ? 0 : 1;
            }
            t.join();
            c.equal(0, torn, "two handles in atomic mode: a read saw a write half done");
            b.close();
            a.close();
        }
        w.barrier();
    }

    /** Contiguous parts that do not interleave go independent; a rank's own bad argument is its own error. */
    private static void disjointAndErrors(final Checks c, final Intracomm w, final String name, final int rank,
                                          final int size) throws Exception {
        final File f = new File(w, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        f.setView(0, MPI.INT, MPI.INT, "native");
        final int[] mine = new int[N];
        java.util.Arrays.fill(mine, rank + 1);
        final long before = FileTwoPhase.calls;
        f.writeAtAll((long) rank * N, mine, N, MPI.INT);
        c.equal(0, FileTwoPhase.calls - before, "disjoint contiguous parts: independent I/O");
        // the same, two-phase on request, with runs larger than the staging buffer: moved in place
        final Info on = new Info();
        on.set(FileTwoPhase.CB_WRITE, "enable");
        on.set(FileTwoPhase.CB_READ, "enable");
        on.set(FileTwoPhase.CB_BUFFER_SIZE, "4096");
        f.setInfo(on);
        java.util.Arrays.fill(mine, rank + 100);
        f.writeAtAll((long) rank * N, mine, N, MPI.INT);
        final int[] peer = new int[N];
        final int next = (rank + 1) % size;
        c.equal(N, f.readAtAll((long) next * N, peer, N, MPI.INT).getCount(MPI.INT), "enabled: read counts");
        c.equal(2, FileTwoPhase.calls - before, "romio_cb_write/read=enable: two-phase");
        c.that(peer[0] == next + 100 && peer[N - 1] == next + 100, "enabled: the next rank's ints, moved in place");
        f.setInfo(new Info());
        f.setView(rank * 4L, MPI.INT, strided(size), "native");
        final int[] data = new int[100];
        java.util.Arrays.fill(data, 40 + rank);
        if (rank == size - 1) {
            c.fails(MPI.ERR_ARG, "a negative offset in a collective write", () -> f.writeAtAll(-1, data, 100, MPI.INT));
        } else {
            f.writeAtAll(0, data, 100, MPI.INT);
        }
        f.setView(0, MPI.INT, MPI.INT, "native");
        final int[] got = new int[size];
        f.readAt(0, got, size, MPI.INT);
        for (int r = 0; r < size - 1; r++) {
            c.equal(40 + r, got[r], "rank " + r + "'s int went in beside a failing rank");
        }
        f.close();
    }
}
