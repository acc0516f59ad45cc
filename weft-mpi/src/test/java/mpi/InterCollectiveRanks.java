package mpi;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;

/**
 * Rank program (2 or more ranks): every collective on an intercommunicator between the lower half of the world
 * and the upper half, with each group as the root's in turn (MPI.ROOT at the root, MPI.PROC_NULL at the rest
 * of its group, the root's remote rank in the other group): values name the world rank they came from, so a
 * block from the wrong rank, the wrong group or the wrong order fails a check. Prints {@code OK inter ...}.
 */
public final class InterCollectiveRanks {
    private InterCollectiveRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("inter", rank);
        final int half = size / 2;
        final boolean upper = rank >= half;
        final Intracomm mine = w.split(upper ? 1 : 0, rank);
        final Intercomm ic = w.createIntercomm(mine, 0, upper ? 0 : half, 45);
        final int me = ic.getRank();
        final int remote = ic.getRemoteSize();
        final int remoteBase = upper ? 0 : half;

        ic.barrier();
        ic.iBarrier().waitFor();
        for (int rootGroup = 0; rootGroup < 2; rootGroup++) {
            rooted(c, ic, upper == (rootGroup == 1), rootGroup == 0 ? half - 1 : size - half - 1, rank, remoteBase);
        }

        // allgather: remote rank j's block is its world rank
        final int[] ag = new int[remote];
        ic.allGather(new int[] {rank}, 1, MPI.INT, ag, 1, MPI.INT);
        for (int j = 0; j < remote; j++) {
            c.equal(remoteBase + j, ag[j], "allGather block " + j);
        }
        // allgatherv: remote rank j sends j + 1 copies of its world rank, placed in reverse order
        final int[][] cd = reversedBlocks(remote);
        final int[] counts = cd[0];
        final int[] displs = cd[1];
        final int[] agv = new int[cd[2][0]];
        final int[] own = new int[me + 1];
        java.util.Arrays.fill(own, rank);
        ic.allGatherv(own, me + 1, MPI.INT, agv, counts, displs, MPI.INT);
        for (int j = 0; j < remote; j++) {
            for (int k = 0; k < counts[j]; k++) {
                c.equal(remoteBase + j, agv[displs[j] + k], "allGatherv block " + j);
            }
        }
        // alltoall: block j goes to remote rank j as rank * 100 + j
        final int[] out = new int[remote];
        for (int j = 0; j < remote; j++) {
            out[j] = rank * 100 + j;
        }
        final int[] in = new int[remote];
        ic.allToAll(out, 1, MPI.INT, in, 1, MPI.INT);
        for (int j = 0; j < remote; j++) {
            c.equal((remoteBase + j) * 100L + me, in[j], "allToAll block from remote " + j);
        }
        final int[] ones = new int[remote];
        final int[] seq = new int[remote];
        for (int j = 0; j < remote; j++) {
            ones[j] = 1;
            seq[j] = j;
        }
        final int[] inv = new int[remote];
        ic.allToAllv(out, ones, seq, MPI.INT, inv, ones, seq, MPI.INT);
        c.that(java.util.Arrays.equals(in, inv), "allToAllv as allToAll");

        // allreduce: the sum of the remote group's world ranks, blocking, in place and non-blocking
        long remoteSum = 0;
        for (int j = 0; j < remote; j++) {
            remoteSum += remoteBase + j;
        }
        final int[] sum = {0};
        ic.allReduce(new int[] {rank}, sum, 1, MPI.INT, MPI.SUM);
        c.equal(remoteSum, sum[0], "allReduce SUM");
        final int[] inPlace = {rank};
        ic.allReduce(inPlace, 1, MPI.INT, MPI.MAX);
        c.equal(remoteBase + remote - 1, inPlace[0], "in-place allReduce MAX");
        final IntBuffer a = MPI.newIntBuffer(1).put(0, rank);
        final IntBuffer b = MPI.newIntBuffer(1);
        ic.iAllReduce(a, b, 1, MPI.INT, MPI.MIN).waitFor();
        c.equal(remoteBase, b.get(0), "iAllReduce MIN");
        nonCommutative(c, ic, rank, remoteBase, remote);

        // reduceScatter: vectors of half * (size - half) elements in both groups, split evenly in each
        final int total = half * (size - half);
        final int[] rc = new int[ic.getSize()];
        java.util.Arrays.fill(rc, total / ic.getSize());
        final int[] vec = new int[total];
        for (int e = 0; e < total; e++) {
            vec[e] = rank * 1000 + e;
        }
        final int[] part = new int[rc[me]];
        ic.reduceScatter(vec, part, rc, MPI.INT, MPI.SUM);
        for (int k = 0; k < rc[me]; k++) {
            final int e = me * rc[me] + k;
            c.equal(remoteSum * 1000 + (long) remote * e, part[k], "reduceScatter element " + e);
        }
        final int[] block = new int[rc[me]];
        ic.reduceScatterBlock(vec, block, rc[me], MPI.INT, MPI.SUM);
        c.that(java.util.Arrays.equals(part, block), "reduceScatterBlock as reduceScatter");

        // collectives still line up after merge and dup (which talk through the groups' leaders only)
        final Intracomm merged = ic.merge(upper);
        final Intercomm twin = ic.dup();
        final int[] afterMerge = {0};
        ic.allReduce(new int[] {rank}, afterMerge, 1, MPI.INT, MPI.SUM);
        c.equal(remoteSum, afterMerge[0], "allReduce on the intercommunicator after merge and dup");
        twin.allReduce(new int[] {rank}, afterMerge, 1, MPI.INT, MPI.SUM);
        c.equal(remoteSum, afterMerge[0], "allReduce on a dup of the intercommunicator");
        c.equal(size, merged.getSize(), "merged size");

        ic.setErrhandler(MPI.ERRORS_RETURN);
        c.fails(MPI.ERR_ROOT, "bcast with a root outside both conventions", () -> ic.bcast(new int[1], 1, MPI.INT,
            1000));
        c.fails(MPI.ERR_ARG, "allGather in place on an intercommunicator", () -> ic.allGather(new int[size], 1,
            MPI.INT));
        ic.barrier();
        c.done();
        MPI.Finalize();
    }

    /**
     * The rooted collectives with {@code rootLocal} of one group as the root.
     *
     * @param inRootGroup whether this rank is in the root's group
     */
    private static void rooted(final Checks c, final Intercomm ic, final boolean inRootGroup, final int rootLocal,
                               final int rank, final int remoteBase) throws MPIException {
        final int me = ic.getRank();
        final int remote = ic.getRemoteSize();
        final boolean isRoot = inRootGroup && me == rootLocal;
        final int root = inRootGroup ? (isRoot ? MPI.ROOT : MPI.PROC_NULL) : rootLocal;
        final String where = " (root " + rootLocal + " of the " + (inRootGroup ? "local" : "remote") + " group)";
        // bcast: the root's values reach the remote group; the rest of the root's group is left alone
        final int[] bb = isRoot ? new int[] {7, rank, 11} : new int[3];
        ic.bcast(bb, 3, MPI.INT, root);
        if (!inRootGroup) {
            c.that(bb[0] == 7 && bb[1] == remoteBase + rootLocal && bb[2] == 11, "bcast" + where);
        } else if (!isRoot) {
            c.that(bb[0] == 0 && bb[1] == 0 && bb[2] == 0, "bcast leaves PROC_NULL ranks alone" + where);
        }
        final ByteBuffer nb = MPI.newByteBuffer(4);
        if (isRoot) {
            nb.putInt(0, 42 + rank);
        }
        ic.iBcast(nb, 4, MPI.BYTE, root).waitFor();
        if (!inRootGroup) {
            c.equal(42 + remoteBase + rootLocal, nb.getInt(0), "iBcast" + where);
        }
        // gather: two ints per remote rank, its world rank and twice it
        final int[] gb = new int[2 * remote];
        ic.gather(new int[] {rank, 2 * rank}, 2, MPI.INT, gb, 2, MPI.INT, root);
        if (isRoot) {
            for (int j = 0; j < remote; j++) {
                c.that(gb[2 * j] == remoteBase + j && gb[2 * j + 1] == 2 * (remoteBase + j), "gather block " + j + where);
            }
        }
        // gatherv: remote rank j sends j + 1 ints, stored from the end of the buffer backwards
        final int[][] cd = reversedBlocks(remote);
        final int[] counts = cd[0];
        final int[] displs = cd[1];
        final int at = cd[2][0];
        final int[] gv = new int[Math.max(at, 1)];
        final int[] send = new int[me + 1];
        java.util.Arrays.fill(send, rank);
        if (isRoot) {
            ic.gatherv(gv, counts, displs, MPI.INT, root);
        } else if (inRootGroup) {
            ic.gatherv(null, 0, MPI.INT, root);
        } else {
            ic.gatherv(send, me + 1, MPI.INT, root);
        }
        if (isRoot) {
            for (int j = 0; j < remote; j++) {
                for (int k = 0; k < counts[j]; k++) {
                    c.equal(remoteBase + j, gv[displs[j] + k], "gatherv block " + j + where);
                }
            }
        }
        // scatter: remote rank j gets 100 * root's rank + j; scatterv: j + 1 copies of j
        final int[] sb = new int[remote];
        for (int j = 0; j < remote; j++) {
            sb[j] = 100 * rank + j;
        }
        final int[] got = {-1};
        ic.scatter(sb, 1, MPI.INT, got, 1, MPI.INT, root);
        if (!inRootGroup) {
            c.equal(100L * (remoteBase + rootLocal) + me, got[0], "scatter" + where);
        }
        final int[] sv = new int[Math.max(at, 1)];
        for (int j = 0; j < remote; j++) {
            java.util.Arrays.fill(sv, displs[j], displs[j] + counts[j], j);
        }
        final int[] mineV = new int[me + 1];
        if (isRoot) {
            ic.scatterv(sv, counts, displs, MPI.INT, root);
        } else if (inRootGroup) {
            ic.scatterv(null, 0, MPI.INT, root);
        } else {
            ic.scatterv(mineV, me + 1, MPI.INT, root);
            for (int k = 0; k <= me; k++) {
                c.equal(me, mineV[k], "scatterv" + where);
            }
        }
        // reduce: the root gets the sum of the remote group's world ranks
        final int[] red = {-1};
        ic.reduce(new int[] {rank}, red, 1, MPI.INT, MPI.SUM, root);
        if (isRoot) {
            long want = 0;
            for (int j = 0; j < remote; j++) {
                want += remoteBase + j;
            }
            c.equal(want, red[0], "reduce SUM" + where);
        }
    }

    /** Counts j + 1 for remote rank j, laid out from the last rank's block to the first's; [2][0] is the total. */
    private static int[][] reversedBlocks(final int remote) {
        final int[] counts = new int[remote];
        final int[] displs = new int[remote];
        int at = 0;
        for (int j = remote - 1; j >= 0; j--) {
            counts[j] = j + 1;
            displs[j] = at;
            at += j + 1;
        }
        return new int[][] {counts, displs, {at}};
    }

    /** A non-commutative user operation (affine maps composed in rank order) through allReduce. */
    private static void nonCommutative(final Checks c, final Intercomm ic, final int rank, final int remoteBase,
                                       final int remote) throws MPIException {
        final Datatype affine = Datatype.createContiguous(2, MPI.LONG);
        affine.commit();
        final Op compose = CollectiveRanks.affineCompose();
        final long[] all = new long[2];
        ic.allReduce(new long[] {rank + 2, rank + 1}, all, 1, affine, compose);
        long a = 1;
        long b = 0;
        for (int j = 0; j < remote; j++) {
            final int r = remoteBase + j;
            b = (r + 2L) * b + (r + 1);
            a = (r + 2L) * a;
        }
        c.that(all[0] == a && all[1] == b, "non-commutative allReduce in the remote group's rank order: got ("
            + all[0] + ", " + all[1] + ") want (" + a + ", " + b + ")");
    }
}
