package mpi;

import java.lang.foreign.MemorySegment;

/**
 * The collectives of an {@link Intercomm}, as MPI defines them: data crosses between the two groups, never
 * within one. Rooted collectives name the root with {@link MPI#ROOT} at the root itself, {@link MPI#PROC_NULL}
 * at the other members of the root's group (they take no part), and the root's rank in the remote group at
 * the members of the other group. Every algorithm is direct: each rank exchanges its messages with the remote
 * ranks in one round (intercommunicator collectives are rare and their groups small), and reductions
 * combine the remote contributions in rank order, so non-commutative operations are honoured.
 */
final class InterCollectives {
    private static final MemorySegment NONE = MemorySegment.ofArray(new byte[0]);

    private InterCollectives() {
    }

    /** The root argument of a rooted collective on an intercommunicator. */
    static void checkRoot(final int root, final int remoteSize) throws MPIException {
        if (root != MPI.ROOT && root != MPI.PROC_NULL && (root < 0 || root >= remoteSize)) {
            throw new MPIException(MPI.ERR_ROOT, "root " + root + " on an intercommunicator: MPI.ROOT at the root, "
                + "MPI.PROC_NULL at the rest of its group, else a rank of the remote group [0, " + remoteSize + ")");
        }
    }

    /** Every rank of each group leaves once every rank of the other group has entered. */
    static Schedule barrier(final Comm c) {
        final Schedule s = Schedule.of(c);
        for (int j = 0; j < c.peers(); j++) {
            s.recv(j, NONE, 0, 0).send(j, NONE, 0, 0);
        }
        return s;
    }

    /** The root's buffer goes to every rank of the remote group. */
    static Schedule bcast(final Comm c, final Span buf, final int count, final Datatype type, final int root) {
        final Schedule s = Schedule.of(c);
        if (root == MPI.ROOT) {
            for (int j = 0; j < c.peers(); j++) {
                s.send(j, buf, count, type);
            }
        } else if (root != MPI.PROC_NULL) {
            s.recv(root, buf, count, type).finish(buf);
        }
        return s;
    }

    /** The root gets {@code counts[j]} elements from remote rank j at {@code displs[j]} extents of its buffer. */
    static Schedule gatherv(final Comm c, final Span send, final int sendCount, final Datatype sendType,
                            final Span recv, final int[] counts, final int[] displs, final Datatype recvType,
                            final int root) {
        final Schedule s = Schedule.of(c);
        if (root == MPI.ROOT) {
            for (int j = 0; j < c.peers(); j++) {
                s.recv(j, recv.at(displs[j] * recvType.extent()), counts[j], recvType);
            }
            s.finish(recv);
        } else if (root != MPI.PROC_NULL) {
            s.send(root, send, sendCount, sendType);
        }
        return s;
    }

    /** The root sends {@code counts[j]} elements at {@code displs[j]} extents of its buffer to remote rank j. */
    static Schedule scatterv(final Comm c, final Span send, final int[] counts, final int[] displs,
                             final Datatype sendType, final Span recv, final int recvCount, final Datatype recvType,
                             final int root) {
        final Schedule s = Schedule.of(c);
        if (root == MPI.ROOT) {
            for (int j = 0; j < c.peers(); j++) {
                s.send(j, send.at(displs[j] * sendType.extent()), counts[j], sendType);
            }
        } else if (root != MPI.PROC_NULL) {
            s.recv(root, recv, recvCount, recvType).finish(recv);
        }
        return s;
    }

    /** Each rank sends its block to every remote rank and gets remote rank j's block at {@code displs[j]}. */
    static Schedule allgatherv(final Comm c, final Span send, final int sendCount, final Datatype sendType,
                               final Span recv, final int[] counts, final int[] displs, final Datatype recvType) {
        final Schedule s = Schedule.of(c);
        for (int j = 0; j < c.peers(); j++) {
            s.recv(j, recv.at(displs[j] * recvType.extent()), counts[j], recvType).send(j, send, sendCount, sendType);
        }
        return s.finish(recv);
    }

    /** Block j of each rank's send buffer goes to remote rank j, which keeps it as its block (sender's rank). */
    static Schedule alltoallv(final Comm c, final Span send, final int[] sendCounts, final int[] sDispls,
                              final Datatype sendType, final Span recv, final int[] recvCounts, final int[] rDispls,
                              final Datatype recvType) {
        final Schedule s = Schedule.of(c);
        for (int j = 0; j < c.peers(); j++) {
            s.recv(j, recv.at(rDispls[j] * recvType.extent()), recvCounts[j], recvType)
                .send(j, send.at(sDispls[j] * sendType.extent()), sendCounts[j], sendType);
        }
        return s.finish(recv);
    }

    /** {@link #alltoallv} with a datatype per remote rank and displacements in bytes. */
    static Schedule alltoallw(final Comm c, final Span send, final int[] sendCounts, final int[] sDispls,
                              final Datatype[] sendTypes, final Span recv, final int[] recvCounts, final int[] rDispls,
                              final Datatype[] recvTypes) {
        final Schedule s = Schedule.of(c);
        for (int j = 0; j < c.peers(); j++) {
            s.recv(j, recv.at(rDispls[j]), recvCounts[j], recvTypes[j])
                .send(j, send.at(sDispls[j]), sendCounts[j], sendTypes[j]);
        }
        return s.finish(recv);
    }

    /** The root gets the reduction of the remote group's {@code in}; the remote ranks send theirs. */
    static Schedule reduce(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                           final Op op, final int root) {
        final Schedule s = Schedule.of(c);
        if (root == MPI.ROOT) {
            final MemorySegment all = gatherRemote(s, c, count, type);
            s.then(() -> {
                TypeCursor.unpack(all, combineInRankOrder(all, c.peers(), count, type, op), out, count, type);
                out.finish();
            });
        } else if (root != MPI.PROC_NULL) {
            s.send(root, in, count, type);
        }
        return s;
    }

    /** Every rank gets the reduction of the remote group's {@code in}. */
    static Schedule allreduce(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                              final Op op) {
        final Schedule s = Schedule.of(c);
        final MemorySegment all = gatherRemote(s, c, count, type);
        for (int j = 0; j < c.peers(); j++) {
            s.send(j, in, count, type);
        }
        return s.then(() -> {
            TypeCursor.unpack(all, combineInRankOrder(all, c.peers(), count, type, op), out, count, type);
            out.finish();
        });
    }

    /**
     * The reduction of the remote group's vectors (each the sum of this group's {@code counts}) is scattered
     * over this group: rank i keeps {@code counts[i]} elements from the offset of its block. Every rank sends
     * its whole vector to every remote rank, since a group does not know how the other splits the result.
     */
    static Schedule reduceScatter(final Comm c, final Span in, final Span out, final int[] counts, final int total,
                                  final Datatype type, final Op op) {
        final Schedule s = Schedule.of(c);
        final MemorySegment all = gatherRemote(s, c, total, type);
        for (int j = 0; j < c.peers(); j++) {
            s.send(j, in, total, type);
        }
        long before = 0;
        for (int i = 0; i < s.rank(); i++) {
            before += counts[i];
        }
        final long offset = before * type.size;
        final int mine = counts[s.rank()];
        return s.then(() -> {
            TypeCursor.unpack(all, combineInRankOrder(all, c.peers(), total, type, op) + offset, out, mine, type);
            out.finish();
        });
    }

    /** Adds receives of every remote rank's {@code count} elements, packed, into consecutive slots of a scratch. */
    private static MemorySegment gatherRemote(final Schedule s, final Comm c, final int count, final Datatype type) {
        final long bytes = count * type.size;
        final MemorySegment all = s.scratch(Math.max(1, bytes * c.peers()));
        for (int j = 0; j < c.peers(); j++) {
            s.recv(j, all, j * bytes, bytes);
        }
        return all;
    }

    /**
     * Folds the {@code n} packed slots into the last one, {@code x0 op (x1 op (... op x(n-1)))}, and returns its
     * byte offset.
     */
    private static long combineInRankOrder(final MemorySegment all, final int n, final int count,
                                           final Datatype type, final Op op) throws MPIException {
        final long bytes = count * type.size;
        final long last = (n - 1) * bytes;
        for (int j = n - 2; j >= 0; j--) {
            op.apply(all, j * bytes, all, last, count, type);
        }
        return last;
    }
}
