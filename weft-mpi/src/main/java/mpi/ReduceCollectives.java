package mpi;

import java.lang.foreign.MemorySegment;

/**
 * The reducing collectives, on packed copies of the data: reduce (binomial tree over rank order, then to the
 * root), allreduce (recursive doubling, with the ranks beyond the largest power of two folded in first),
 * reduce-scatter (reduce, then scatter), scan and exclusive scan (recursive doubling). Every step combines
 * the lower ranks' partial result on the left ({@code lower op higher}), so non-commutative operations get
 * {@code x0 op x1 op ... op x(n-1)}.
 */
final class ReduceCollectives {
    private ReduceCollectives() {
    }

    /** Reduces {@code in} of every rank into {@code out} at {@code root} ({@code out} may be null elsewhere). */
    static void reduce(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                       final Op op, final int root) throws MPIException {
        final MemorySegment acc = reducePacked(c, in, count, type, op, root);
        if (acc != null) {
            TypeCursor.unpack(acc, 0, out, count, type);
            out.finish();
        }
    }

    /** The reduction, packed, at {@code root}; null at the other ranks. */
    private static MemorySegment reducePacked(final Comm c, final Span in, final int count, final Datatype type,
                                              final Op op, final int root) throws MPIException {
        final Coll k = new Coll(c);
        final long bytes = count * type.size;
        MemorySegment acc = Coll.packed(in, count, type);
        MemorySegment tmp = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
        for (int mask = 1; mask < k.size; mask <<= 1) {
            if ((k.rank & mask) != 0) {
                k.send(k.rank - mask, acc, 0, bytes);
                break;
            }
            if (k.rank + mask < k.size) {
                k.recv(k.rank + mask, tmp, 0, bytes);
                op.apply(acc, 0, tmp, 0, count, type); // tmp = mine (lower ranks) op theirs
                final MemorySegment t = acc;
                acc = tmp;
                tmp = t;
            }
        }
        if (root != 0) {
            if (k.rank == 0) {
                k.send(root, acc, 0, bytes);
            } else if (k.rank == root) {
                k.recv(0, acc, 0, bytes);
            }
        }
        return k.rank == root ? acc : null;
    }

    /** Every rank gets the reduction of every rank's {@code in} in {@code out}. */
    static void allreduce(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                          final Op op) throws MPIException {
        final Coll k = new Coll(c);
        final int n = k.size;
        final int r = k.rank;
        final long bytes = count * type.size;
        MemorySegment acc = Coll.packed(in, count, type);
        MemorySegment tmp = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
        final int pof2 = Integer.highestOneBit(n);
        final int rem = n - pof2;
        // fold: among the first 2*rem ranks, each even rank hands its data to the odd rank above it
        int vr;
        if (r < 2 * rem) {
            if ((r & 1) == 0) {
                k.send(r + 1, acc, 0, bytes);
                vr = -1;
            } else {
                k.recv(r - 1, tmp, 0, bytes);
                op.apply(tmp, 0, acc, 0, count, type); // acc = lower op mine
                vr = r / 2;
            }
        } else {
            vr = r - rem;
        }
        if (vr >= 0) {
            for (int mask = 1; mask < pof2; mask <<= 1) {
                final int vpeer = vr ^ mask;
                final int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
                k.sendRecv(peer, acc, 0, bytes, peer, tmp, 0, bytes);
                if (peer < r) {
                    op.apply(tmp, 0, acc, 0, count, type);
                } else {
                    op.apply(acc, 0, tmp, 0, count, type);
                    final MemorySegment t = acc;
                    acc = tmp;
                    tmp = t;
                }
            }
        }
        if (r < 2 * rem) {
            if ((r & 1) == 1) {
                k.send(r - 1, acc, 0, bytes);
            } else {
                k.recv(r + 1, acc, 0, bytes);
            }
        }
        TypeCursor.unpack(acc, 0, out, count, type);
        out.finish();
    }

    /** Reduces every rank's {@code in} and leaves block i ({@code counts[i]} elements) at rank i. */
    static void reduceScatter(final Comm c, final Span in, final Span out, final int[] counts, final Datatype type,
                              final Op op) throws MPIException {
        int total = 0;
        final int[] displs = new int[counts.length];
        for (int i = 0; i < counts.length; i++) {
            displs[i] = total;
            total += counts[i];
        }
        final MemorySegment whole = reducePacked(c, in, total, type, op, 0);
        // the root scatters packed bytes; each rank unpacks its block into its own layout
        final int[] byteCounts = new int[counts.length];
        final int[] byteDispls = new int[counts.length];
        for (int i = 0; i < counts.length; i++) {
            byteCounts[i] = Math.toIntExact(counts[i] * type.size);
            byteDispls[i] = Math.toIntExact(displs[i] * type.size);
        }
        Collectives.scatterv(c, whole == null ? null : Span.of(whole), byteCounts, byteDispls, MPI.BYTE, out,
            counts[c.rank], type, 0);
    }

    /** Inclusive ({@code exclusive} false) or exclusive prefix reduction in rank order. */
    static void scan(final Comm c, final Span in, final Span out, final int count, final Datatype type, final Op op,
                     final boolean exclusive) throws MPIException {
        final Coll k = new Coll(c);
        final long bytes = count * type.size;
        MemorySegment partial = Coll.packed(in, count, type);   // reduction of the ranks my subtree covers
        MemorySegment result = exclusive ? null : Coll.packed(in, count, type);
        MemorySegment tmp = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
        for (int mask = 1; mask < k.size; mask <<= 1) {
            final int peer = k.rank ^ mask;
            if (peer >= k.size) {
                continue;
            }
            k.sendRecv(peer, partial, 0, bytes, peer, tmp, 0, bytes);
            if (peer < k.rank) {
                if (result == null) {
                    result = MemorySegment.ofArray(tmp.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                } else {
                    op.apply(tmp, 0, result, 0, count, type);
                }
                op.apply(tmp, 0, partial, 0, count, type);
            } else {
                op.apply(partial, 0, tmp, 0, count, type);
                final MemorySegment t = partial;
                partial = tmp;
                tmp = t;
            }
        }
        if (result != null) {
            TypeCursor.unpack(result, 0, out, count, type);
            out.finish();
        }
    }
}
