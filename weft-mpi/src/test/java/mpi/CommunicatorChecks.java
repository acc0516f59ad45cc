package mpi;

import java.util.Arrays;

/**
 * {@link CollectiveRanks}' checks of the calls that make communicators: split, dup, create, compare and
 * groups, Cartesian and graph topologies, and intercommunicators.
 */
final class CommunicatorChecks {
    private CommunicatorChecks() {
    }

    /** Cartesian grids: dims, coordinates, shifts, sub-grids, and ranks left out of a smaller grid. */
    static void topologies(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final int[] d12 = new int[2];
        CartComm.createDims(12, d12);
        c.that(d12[0] == 4 && d12[1] == 3, "createDims(12) = {4, 3}, got " + Arrays.toString(d12));
        final int[] d = new int[2];
        CartComm.createDims(size, d);
        c.equal(size, d[0] * d[1], "createDims product");
        final CartComm grid = w.createCart(d, new boolean[] {true, false}, false);
        c.equal(MPI.CART, grid.getTopology(), "topology");
        c.equal(MPI.UNDEFINED, w.getTopology(), "world has no topology");
        final CartParms t = grid.getTopo();
        final int[] me = grid.getCoords(rank);
        c.that(t.getDimCount() == 2 && t.getCoord(0) == me[0] && t.getCoord(1) == me[1] && t.getPeriod(0)
            && !t.getPeriod(1), "getTopo");
        c.equal(rank, grid.getRank(me), "getRank of my coordinates");
        final ShiftParms down = grid.shift(0, 1);
        final int[] got = {-1};
        grid.sendRecv(new int[] {rank}, 1, MPI.INT, down.getRankDest(), 0, got, 1, MPI.INT, down.getRankSource(), 0);
        c.equal(grid.getRank(new int[] {me[0] - 1, me[1]}), got[0], "periodic shift brings the rank above");
        final ShiftParms right = grid.shift(1, 1);
        c.that(me[1] == d[1] - 1 ? right.getRankDest() == MPI.PROC_NULL : right.getRankDest() == rank + 1,
            "open edge shift");
        final CartComm row = grid.sub(new boolean[] {false, true});
        c.equal(d[1], row.getSize(), "sub-grid keeps dimension 1");
        final int[] sum = {rank};
        row.allReduce(sum, 1, MPI.INT, MPI.SUM);
        c.equal((long) me[0] * d[1] * d[1] + d[1] * (d[1] - 1) / 2, sum[0], "allReduce along a row");
        if (size > 1) {
            final CartComm line = w.createCart(new int[] {size - 1}, new boolean[] {false}, false);
            c.that(line.isNull() == (rank == size - 1), "a rank outside a smaller grid gets a null communicator");
        }
    }

    /** Two halves joined by an intercommunicator, merged back; createGroup, splitType and allToAllw. */
    static void intercommunicators(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final Intracomm node = w.splitType(Comm.TYPE_SHARED, rank, MPI.INFO_NULL);
        c.equal(size, node.getSize(), "splitType: every rank of this job shares one node");
        // allToAllw: to rank j, j + 1 ints (as INT) from byte 64 * j
        final int[] sc = new int[size];
        final int[] sd = new int[size];
        final int[] rc = new int[size];
        final int[] rd = new int[size];
        final Datatype[] types = new Datatype[size];
        final int[] sendW = new int[16 * size];
        for (int j = 0; j < size; j++) {
            sc[j] = j + 1;
            sd[j] = 64 * j;
            rc[j] = rank + 1;
            rd[j] = 64 * j;
            types[j] = MPI.INT;
            Arrays.fill(sendW, 16 * j, 16 * j + j + 1, rank * 10 + j);
        }
        final int[] recvW = new int[16 * size];
        w.allToAllw(sendW, sc, sd, types, recvW, rc, rd, types);
        for (int j = 0; j < size; j++) {
            c.that(recvW[16 * j] == j * 10 + rank && recvW[16 * j + rank] == j * 10 + rank, "allToAllw from " + j);
        }
        // createGroup: called by the even ranks only
        final Group evens = w.getGroup().rangeIncl(new int[][] {{0, size - 1, 2}});
        if (rank % 2 == 0) {
            final Intracomm ev = w.createGroup(evens, 33);
            final int[] v = {1};
            ev.allReduce(v, 1, MPI.INT, MPI.SUM);
            c.equal((size + 1) / 2, v[0], "allReduce in a createGroup communicator");
        }
        if (size < 2) {
            return;
        }
        final int half = size / 2;
        final boolean upper = rank >= half;
        final Intracomm mine = w.split(upper ? 1 : 0, rank);
        final Intercomm ic = w.createIntercomm(mine, 0, upper ? 0 : half, 44);
        c.that(ic.isInter(), "isInter");
        final int remoteSize = upper ? half : size - half;
        c.equal(remoteSize, ic.getRemoteSize(), "remote size");
        c.equal(mine.getSize(), ic.getSize(), "local size");
        c.equal(upper ? 0 : half, Group.translateRanks(ic.getRemoteGroup(), new int[] {0},
            w.getGroup())[0], "remote group's first member");
        // each rank sends to the remote rank with its own index (mod the remote size) and answers every sender
        final int me = ic.getRank();
        ic.send(new int[] {rank}, 1, MPI.INT, me % remoteSize, 7);
        final int local = ic.getSize();
        int expected = 0;
        for (int r = 0; r < remoteSize; r++) {
            if (r % local == me) {
                expected++;
            }
        }
        for (int i = 0; i < expected; i++) {
            final int[] got = new int[1];
            final Status st = ic.recv(got, 1, MPI.INT, MPI.ANY_SOURCE, 7);
            c.equal((upper ? 0 : half) + st.getSource(), got[0], "intercomm message from remote rank "
                + st.getSource());
        }
        ic.setErrhandler(MPI.ERRORS_RETURN);
        ic.barrier();
        final Intracomm merged = ic.merge(upper);
        c.equal(size, merged.getSize(), "merged size");
        c.equal(rank, merged.getRank(), "merged with the lower half first keeps world order");
        final int[] sum = {rank};
        merged.allReduce(sum, 1, MPI.INT, MPI.SUM);
        c.equal((long) size * (size - 1) / 2, sum[0], "allReduce on the merged communicator");
        final Intracomm flipped = ic.merge(!upper);
        c.equal(upper ? rank - half : rank + (size - half), flipped.getRank(), "merged with the upper half first");
    }

    /** Neighbour collectives on a periodic ring (Cartesian), an undirected graph and directed graphs. */
    static void graphs(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final int left = (rank - 1 + size) % size;
        final int right = (rank + 1) % size;
        final CartComm ring = w.createCart(new int[] {size}, new boolean[] {true}, false);
        final int[] got = new int[2];
        ring.neighborAllGather(new int[] {rank}, 1, MPI.INT, got, 1, MPI.INT);
        c.that(got[0] == left && got[1] == right, "cart neighborAllGather: [left, right] = " + Arrays.toString(got));
        final int[] a2a = new int[2];
        ring.neighborAllToAll(new int[] {rank * 10, rank * 10 + 1}, 1, MPI.INT, a2a, 1, MPI.INT);
        c.that(a2a[0] == left * 10 + 1 && a2a[1] == right * 10, "cart neighborAllToAll " + Arrays.toString(a2a));
        final CartComm line = w.createCart(new int[] {size}, new boolean[] {false}, false);
        final int[] edge = {-7, -7};
        line.neighborAllGather(new int[] {rank}, 1, MPI.INT, edge, 1, MPI.INT);
        c.that(edge[0] == (rank == 0 ? -7 : rank - 1) && edge[1] == (rank == size - 1 ? -7 : rank + 1),
            "open ends exchange nothing");
        // an undirected ring graph: node i's neighbours are i-1 and i+1 (the same rank twice when size is 2)
        final int[] index = new int[size];
        final int[] edges = new int[2 * size];
        for (int i = 0; i < size; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i - 1 + size) % size;
            edges[2 * i + 1] = (i + 1) % size;
        }
        final GraphComm g = w.createGraph(index, edges, false);
        c.equal(MPI.GRAPH, g.getTopology(), "graph topology");
        c.equal(size, g.getDims().getIndexCount(), "graph dims");
        final int[] gg = new int[2];
        g.neighborAllGather(new int[] {rank + 100}, 1, MPI.INT, gg, 1, MPI.INT);
        c.that(gg[0] == left + 100 && gg[1] == right + 100, "graph neighborAllGather " + Arrays.toString(gg));
        // directed ring, given adjacently and given by rank 0 alone
        final GraphComm adj = w.createDistGraphAdjacent(new int[] {left}, new int[] {right}, MPI.INFO_NULL, false);
        final int[] one = new int[1];
        adj.neighborAllGather(new int[] {rank}, 1, MPI.INT, one, 1, MPI.INT);
        c.equal(left, one[0], "distributed adjacent graph");
        final int[] srcs = rank == 0 ? new int[size] : new int[0];
        final int[] degs = rank == 0 ? new int[size] : new int[0];
        final int[] dsts = rank == 0 ? new int[size] : new int[0];
        final int[] wts = rank == 0 ? new int[size] : new int[0];
        for (int i = 0; i < srcs.length; i++) {
            srcs[i] = i;
            degs[i] = 1;
            dsts[i] = (i + 1) % size;
            wts[i] = 5 + i;
        }
        final GraphComm dg = w.createDistGraph(srcs, degs, dsts, wts, MPI.INFO_NULL, false);
        c.equal(MPI.DIST_GRAPH, dg.getTopology(), "dist graph topology");
        final DistGraphNeighbors nb = dg.getDistGraphNeighbors();
        c.that(nb.getInDegree() == 1 && nb.getSource(0) == left && nb.getOutDegree() == 1 && nb.getDestination(0)
            == right && nb.isWeighted() && nb.getSourceWeight(0) == 5 + left, "getDistGraphNeighbors");
        final int[] v = new int[3];
        dg.neighborAllToAllv(new int[] {rank, rank, rank}, new int[] {3}, new int[] {0}, MPI.INT, v, new int[] {3},
            new int[] {0}, MPI.INT);
        c.that(v[0] == left && v[2] == left, "dist graph neighborAllToAllv");
        final Intracomm d = w.dup();
        d.setErrhandler(MPI.ERRORS_RETURN);
        c.fails(MPI.ERR_TOPOLOGY, "a neighbour collective without topology",
            () -> d.neighborAllGather(new int[1], 1, MPI.INT, new int[2], 1, MPI.INT));
    }

    static void communicators(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        c.equal(MPI.IDENT, Comm.compare(w, w), "compare with itself");
        final Intracomm dup = w.dup();
        c.equal(MPI.CONGRUENT, Comm.compare(w, dup), "compare with a dup");
        dup.setName("my dup");
        c.that("my dup".equals(dup.getName()), "name");
        c.that("MPI_COMM_WORLD".equals(w.getName()), "world's name");
        c.that((Integer) w.getAttr(MPI.TAG_UB) >= 32767, "TAG_UB attribute");
        // split by parity, ranks reversed by the key
        final Intracomm half = w.split(rank % 2, -rank);
        final int halfSize = (size + 1 - rank % 2) / 2;
        c.equal(halfSize, half.getSize(), "split size");
        c.equal(halfSize - 1 - rank / 2, half.getRank(), "split rank ordered by key");
        final int[] sum = {rank};
        half.allReduce(sum, 1, MPI.INT, MPI.SUM);
        int want = 0;
        for (int r = rank % 2; r < size; r += 2) {
            want += r;
        }
        c.equal(want, sum[0], "allReduce inside a split");
        // messages on the dup and on the world do not mix
        if (size > 1) {
            final int right = (rank + 1) % size;
            final int left = (rank - 1 + size) % size;
            final int[] a = new int[1];
            final int[] b = new int[1];
            dup.sendRecv(new int[] {1}, 1, MPI.INT, right, 0, a, 1, MPI.INT, left, MPI.ANY_TAG);
            w.sendRecv(new int[] {2}, 1, MPI.INT, right, 0, b, 1, MPI.INT, left, MPI.ANY_TAG);
            c.that(a[0] == 1 && b[0] == 2, "communicators keep their own messages");
        }
        // groups
        final Group world = w.getGroup();
        final Group evens = world.rangeIncl(new int[][] {{0, size - 1, 2}});
        final Group odds = world.excl(toArray(evens));
        c.equal((size + 1) / 2, evens.getSize(), "rangeIncl size");
        c.equal(size, Group.union(odds, evens).getSize(), "union size");
        c.equal(size == 1 ? MPI.IDENT : MPI.SIMILAR, Group.compare(Group.union(odds, evens), world), "union similar");
        c.equal(0, Group.intersection(odds, evens).getSize(), "intersection empty");
        c.equal(odds.getSize(), Group.difference(world, evens).getSize(), "difference");
        final int[] tr = Group.translateRanks(world, new int[] {0, size - 1}, evens);
        c.that(tr[0] == 0 && tr[1] == ((size - 1) % 2 == 0 ? (size - 1) / 2 : MPI.UNDEFINED), "translateRanks");
        final Intracomm ev = w.create(evens);
        c.that(ev.isNull() == (rank % 2 == 1), "create: members get a communicator");
        if (!ev.isNull()) {
            final int[] v = {ev.getRank() == 0 ? 99 : 0};
            ev.bcast(v, 1, MPI.INT, 0);
            c.equal(99, v[0], "bcast in a created communicator");
            c.equal(rank / 2, ev.getRank(), "rank in a created communicator");
            ev.free();
        }
        half.free();
        dup.free();
    }

    private static int[] toArray(final Group g) throws MPIException {
        final int[] r = new int[g.getSize()];
        for (int i = 0; i < r.length; i++) {
            r[i] = i;
        }
        return Group.translateRanks(g, r, MPI.COMM_WORLD.getGroup());
    }
}
