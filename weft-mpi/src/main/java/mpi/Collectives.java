package mpi;

import java.lang.foreign.MemorySegment;

/**
 * The data-moving collectives as {@link Schedule}s: barrier (dissemination), broadcast (binomial tree),
 * gather and scatter (linear, every transfer in one round, straight between the typed buffers), allgather
 * (ring) and all-to-all (pairwise exchange). Every rank of the communicator starts the same collectives in
 * the same order; each runs on its own sequence number, so collectives in flight never mix their messages.
 */
final class Collectives {
    private static final MemorySegment NONE = MemorySegment.ofArray(new byte[0]);

    private Collectives() {
    }

    /** Dissemination barrier: round k exchanges an empty message with the ranks 2^k away. */
    static Schedule barrier(final Comm c) {
        final Schedule s = Schedule.of(c);
        final MemorySegment none = NONE;
        for (int d = 1; d < s.size(); d <<= 1) {
            s.recv((s.rank() - d + s.size()) % s.size(), none, 0, 0).send((s.rank() + d) % s.size(), none, 0, 0)
                .next();
        }
        return s;
    }

    /** Binomial-tree broadcast from {@code root}: receive from the parent, then send to every child. */
    static Schedule bcast(final Comm c, final Span buf, final int count, final Datatype type, final int root) {
        final Schedule s = Schedule.of(c);
        final int n = s.size();
        final int vr = (s.rank() - root + n) % n;
        int mask = 1;
        while (mask < n) {
            if ((vr & mask) != 0) {
                s.recv((vr - mask + root) % n, buf, count, type).next();
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (vr + mask < n) {
                s.send((vr + mask + root) % n, buf, count, type);
            }
        }
        return s.finish(buf);
    }

    /**
     * Large broadcast (van de Geijn): the root scatters the message in {@code n} pieces, one per rank, then a
     * ring allgather completes them everywhere; each rank sends about the message once, whatever {@code n}.
     */
    static Schedule bcastLarge(final Comm c, final Span buf, final int count, final Datatype type, final int root) {
        final Schedule s = Schedule.of(c);
        final int n = s.size();
        final int vr = (s.rank() - root + n) % n;
        final long bytes = count * type.size;
        final MemorySegment data;
        final long base;
        if (type.contiguous) {
            data = buf.segment;
            base = buf.origin;
        } else {
            data = vr == 0 ? s.packed(buf, count, type) : s.scratch(bytes);
            base = 0;
        }
        final long piece = (bytes + n - 1) / n;
        if (vr == 0) {
            for (int j = 1; j < n; j++) {
                s.send((j + root) % n, data, base + start(j, piece, bytes), length(j, piece, bytes));
            }
        } else {
            s.recv(root, data, base + start(vr, piece, bytes), length(vr, piece, bytes));
        }
        s.next();
        final int right = (s.rank() + 1) % n;
        final int left = (s.rank() - 1 + n) % n;
        for (int step = 0; step < n - 1; step++) {
            final int out = (vr - step + n) % n;
            final int in = (vr - step - 1 + n) % n;
            s.recv(left, data, base + start(in, piece, bytes), length(in, piece, bytes))
                .send(right, data, base + start(out, piece, bytes), length(out, piece, bytes)).next();
        }
        return !type.contiguous && vr != 0 ? s.unpack(data, buf, count, type) : s.finish(buf);
    }

    private static long start(final int j, final long piece, final long bytes) {
        return Math.min(j * piece, bytes);
    }

    private static long length(final int j, final long piece, final long bytes) {
        return Math.min((j + 1) * piece, bytes) - start(j, piece, bytes);
    }

    /**
     * Gathers {@code counts[i]} elements from rank i at {@code displs[i]} extents of the root's buffer;
     * {@code send} null at the root: its block is in place.
     */
    static Schedule gatherv(final Comm c, final Span send, final int sendCount, final Datatype sendType,
                            final Span recv, final int[] counts, final int[] displs, final Datatype recvType,
                            final int root) throws MPIException {
        final Schedule s = Schedule.of(c);
        if (s.rank() != root) {
            return s.send(root, send, sendCount, sendType);
        }
        for (int i = 0; i < s.size(); i++) {
            if (i != root) {
                s.recv(i, recv.at(displs[i] * recvType.extent()), counts[i], recvType);
            }
        }
        if (send != null) {
            Coll.copy(send, sendCount, sendType, recv.at(displs[root] * recvType.extent()), counts[root], recvType);
        }
        return s.finish(recv);
    }

    /**
     * Scatters {@code counts[i]} elements at {@code displs[i]} extents of the root's buffer to rank i;
     * {@code recv} null at the root: it keeps its block in place.
     */
    static Schedule scatterv(final Comm c, final Span send, final int[] counts, final int[] displs,
                             final Datatype sendType, final Span recv, final int recvCount, final Datatype recvType,
                             final int root) throws MPIException {
        final Schedule s = Schedule.of(c);
        if (s.rank() != root) {
            return s.recv(root, recv, recvCount, recvType).finish(recv);
        }
        for (int i = 0; i < s.size(); i++) {
            if (i != root) {
                s.send(i, send.at(displs[i] * sendType.extent()), counts[i], sendType);
            }
        }
        if (recv != null) {
            Coll.copy(send.at(displs[root] * sendType.extent()), counts[root], sendType, recv, recvCount, recvType);
            recv.finish();
        }
        return s;
    }

    /**
     * Ring allgather: in step s each rank passes on to its right the block it got s steps ago from its left
     * (its own first), so every block travels n-1 hops and each link carries one block per step.
     */
    static Schedule allgatherv(final Comm c, final Span send, final int sendCount, final Datatype sendType,
                               final Span recv, final int[] counts, final int[] displs, final Datatype recvType)
        throws MPIException {
        final Schedule s = Schedule.of(c);
        final int n = s.size();
        final int me = s.rank();
        final long ext = recvType.extent();
        if (send != null) {
            Coll.copy(send, sendCount, sendType, recv.at(displs[me] * ext), counts[me], recvType);
        }
        for (int step = 0; step < n - 1; step++) {
            final int out = (me - step + n) % n;
            final int in = (me - step - 1 + n) % n;
            s.recv((me - 1 + n) % n, recv.at(displs[in] * ext), counts[in], recvType)
                .send((me + 1) % n, recv.at(displs[out] * ext), counts[out], recvType).next();
        }
        return s.finish(recv);
    }

    /**
     * Pairwise all-to-all: in step s each rank sends to the rank s to its right and receives from the one s
     * to its left, so every pair exchanges once and no rank is hit by all others at once.
     */
    static Schedule alltoallv(final Comm c, final Span send, final int[] sendCounts, final int[] sendDispls,
                              final Datatype sendType, final Span recv, final int[] recvCounts,
                              final int[] recvDispls, final Datatype recvType) throws MPIException {
        final Schedule s = Schedule.of(c);
        final int n = s.size();
        final int me = s.rank();
        final long sext = sendType.extent();
        final long rext = recvType.extent();
        Coll.copy(send.at(sendDispls[me] * sext), sendCounts[me], sendType, recv.at(recvDispls[me] * rext),
            recvCounts[me], recvType);
        for (int step = 1; step < n; step++) {
            final int to = (me + step) % n;
            final int from = (me - step + n) % n;
            s.recv(from, recv.at(recvDispls[from] * rext), recvCounts[from], recvType)
                .send(to, send.at(sendDispls[to] * sext), sendCounts[to], sendType).next();
        }
        return s.finish(recv);
    }

    /** All-to-all with a datatype per peer and byte displacements (pairwise exchange, as {@link #alltoallv}). */
    static Schedule alltoallw(final Comm c, final Span send, final int[] sendCounts, final int[] sendDispls,
                              final Datatype[] sendTypes, final Span recv, final int[] recvCounts,
                              final int[] recvDispls, final Datatype[] recvTypes) throws MPIException {
        final Schedule s = Schedule.of(c);
        final int n = s.size();
        final int me = s.rank();
        Coll.copy(send.at(sendDispls[me]), sendCounts[me], sendTypes[me], recv.at(recvDispls[me]), recvCounts[me],
            recvTypes[me]);
        for (int step = 1; step < n; step++) {
            final int to = (me + step) % n;
            final int from = (me - step + n) % n;
            s.recv(from, recv.at(recvDispls[from]), recvCounts[from], recvTypes[from])
                .send(to, send.at(sendDispls[to]), sendCounts[to], sendTypes[to]).next();
        }
        return s.finish(recv);
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
