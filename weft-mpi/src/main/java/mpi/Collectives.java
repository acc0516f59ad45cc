package mpi;

import weft.ucp.Request;

/**
 * The data-moving collectives: barrier (dissemination), broadcast (binomial tree), gather and scatter
 * (linear, every transfer posted at once, straight between the typed buffers), allgather (ring) and
 * all-to-all (pairwise exchange). Every rank of the communicator calls the same collective in the same
 * order; each call runs on its own sequence number, so consecutive collectives never mix their messages.
 */
final class Collectives {
    private Collectives() {
    }

    /** Dissemination barrier: round k exchanges an empty message with the ranks 2^k away. */
    static void barrier(final Comm c) throws MPIException {
        final Coll k = new Coll(c);
        for (int d = 1; d < k.size; d <<= 1) {
            final Request r = k.irecvEmpty((k.rank - d + k.size) % k.size);
            final Request s = k.isendEmpty((k.rank + d) % k.size);
            Coll.await(r);
            Coll.await(s);
        }
    }

    /** Binomial-tree broadcast from {@code root}. */
    static void bcast(final Comm c, final Span buf, final int count, final Datatype type, final int root)
        throws MPIException {
        final Coll k = new Coll(c);
        final int n = k.size;
        final int vr = (k.rank - root + n) % n;
        int mask = 1;
        while (mask < n) {
            if ((vr & mask) != 0) {
                Coll.await(k.irecv((vr - mask + root) % n, buf, count, type));
                break;
            }
            mask <<= 1;
        }
        final Request[] sends = new Request[32];
        int ns = 0;
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (vr + mask < n) {
                sends[ns++] = k.isend((vr + mask + root) % n, buf, count, type);
            }
        }
        buf.finish();
        Coll.awaitAll(sends);
    }

    /** Gathers {@code counts[i]} elements from rank i at {@code displs[i]} extents of the root's buffer. */
    static void gatherv(final Comm c, final Span send, final int sendCount, final Datatype sendType,
                        final Span recv, final int[] counts, final int[] displs, final Datatype recvType,
                        final int root) throws MPIException {
        final Coll k = new Coll(c);
        if (k.rank != root) {
            Coll.await(k.isend(root, send, sendCount, sendType));
            return;
        }
        final Request[] rs = new Request[k.size];
        for (int i = 0; i < k.size; i++) {
            if (i != root) {
                rs[i] = k.irecv(i, recv.at(displs[i] * recvType.extent()), counts[i], recvType);
            }
        }
        if (send != null) {
            Coll.copy(send, sendCount, sendType, recv.at(displs[root] * recvType.extent()), counts[root], recvType);
        }
        Coll.awaitAll(rs);
        recv.finish();
    }

    /** Scatters {@code counts[i]} elements at {@code displs[i]} extents of the root's buffer to rank i. */
    static void scatterv(final Comm c, final Span send, final int[] counts, final int[] displs,
                         final Datatype sendType, final Span recv, final int recvCount, final Datatype recvType,
                         final int root) throws MPIException {
        final Coll k = new Coll(c);
        if (k.rank != root) {
            Coll.await(k.irecv(root, recv, recvCount, recvType));
            recv.finish();
            return;
        }
        final Request[] ss = new Request[k.size];
        for (int i = 0; i < k.size; i++) {
            if (i != root) {
                ss[i] = k.isend(i, send.at(displs[i] * sendType.extent()), counts[i], sendType);
            }
        }
        if (recv != null) {
            Coll.copy(send.at(displs[root] * sendType.extent()), counts[root], sendType, recv, recvCount, recvType);
            recv.finish();
        }
        Coll.awaitAll(ss);
    }

    /**
     * Ring allgather: in step s each rank passes on to its right the block it got s steps ago from its left
     * (its own first), so every block travels n-1 hops and each link carries one block per step.
     */
    static void allgatherv(final Comm c, final Span send, final int sendCount, final Datatype sendType,
                           final Span recv, final int[] counts, final int[] displs, final Datatype recvType)
        throws MPIException {
        final Coll k = new Coll(c);
        final int n = k.size;
        final long ext = recvType.extent();
        if (send != null) {
            Coll.copy(send, sendCount, sendType, recv.at(displs[k.rank] * ext), counts[k.rank], recvType);
        }
        final int right = (k.rank + 1) % n;
        final int left = (k.rank - 1 + n) % n;
        for (int s = 0; s < n - 1; s++) {
            final int out = (k.rank - s + n) % n;
            final int in = (k.rank - s - 1 + n) % n;
            final Request r = k.irecv(left, recv.at(displs[in] * ext), counts[in], recvType);
            final Request w = k.isend(right, recv.at(displs[out] * ext), counts[out], recvType);
            Coll.await(r);
            Coll.await(w);
        }
        recv.finish();
    }

    /**
     * Pairwise all-to-all: in step s each rank sends to the rank s to its right and receives from the one s
     * to its left, so every pair exchanges once and no rank is hit by all others at once.
     */
    static void alltoallv(final Comm c, final Span send, final int[] sendCounts, final int[] sendDispls,
                          final Datatype sendType, final Span recv, final int[] recvCounts, final int[] recvDispls,
                          final Datatype recvType) throws MPIException {
        final Coll k = new Coll(c);
        final int n = k.size;
        final long sext = sendType.extent();
        final long rext = recvType.extent();
        Coll.copy(send.at(sendDispls[k.rank] * sext), sendCounts[k.rank], sendType,
            recv.at(recvDispls[k.rank] * rext), recvCounts[k.rank], recvType);
        for (int s = 1; s < n; s++) {
            final int to = (k.rank + s) % n;
            final int from = (k.rank - s + n) % n;
            final Request r = k.irecv(from, recv.at(recvDispls[from] * rext), recvCounts[from], recvType);
            final Request w = k.isend(to, send.at(sendDispls[to] * sext), sendCounts[to], sendType);
            Coll.await(r);
            Coll.await(w);
        }
        recv.finish();
    }

    /** Counts and displacements of {@code n} equal blocks of {@code count}. */
    static int[][] blocks(final int n, final int count) {
        final int[] counts = new int[n];
        final int[] displs = new int[n];
        for (int i = 0; i < n; i++) {
            counts[i] = count;
            displs[i] = i * count;
        }
        return new int[][] {counts, displs};
    }
}
