package mpi;

import java.lang.foreign.MemorySegment;

/**
 * The reducing collectives as {@link Schedule}s on packed copies of the data: reduce (binomial tree over rank
 * order, then to the root), allreduce (recursive doubling, with the ranks beyond the largest power of two
 * folded in first), reduce-scatter (reduce, then scatter), scan and exclusive scan (recursive doubling).
 * Every step combines the lower ranks' partial result on the left ({@code lower op higher}), so
 * non-commutative operations get {@code x0 op x1 op ... op x(n-1)}.
 */
final class ReduceCollectives {
    private ReduceCollectives() {
    }

    /** Reduces {@code in} of every rank into {@code out} at {@code root} ({@code out} may be null elsewhere). */
    static Schedule reduce(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                           final Op op, final int root) {
        final Schedule s = Schedule.of(c);
        final MemorySegment result = reduceInto(s, in, count, type, op, root);
        if (s.rank() == root) {
            s.unpack(result, out, count, type);
        }
        return s;
    }

    /** Adds a reduction to {@code root} to {@code s}; returns the buffer that holds it, packed, at the root. */
    private static MemorySegment reduceInto(final Schedule s, final Span in, final int count, final Datatype type,
                                            final Op op, final int root) {
        final long bytes = count * type.size;
        final int me = s.rank();
        MemorySegment acc = s.packed(in, count, type);
        MemorySegment tmp = s.scratch(bytes);
        for (int mask = 1; mask < s.size(); mask <<= 1) {
            if ((me & mask) != 0) {
                s.send(me - mask, acc, 0, bytes).next();
                break;
            }
            if (me + mask < s.size()) {
                final MemorySegment lower = acc;
                final MemorySegment higher = tmp;
                s.recv(me + mask, higher, 0, bytes).combine(op, lower, higher, 0, count, type).next();
                acc = higher;
                tmp = lower;
            }
        }
        if (root != 0) {
            if (me == 0) {
                s.send(root, acc, 0, bytes).next();
            } else if (me == root) {
                s.recv(0, acc, 0, bytes).next();
            }
        }
        return acc;
    }

    /** Every rank gets the reduction of every rank's {@code in} in {@code out}. */
    static Schedule allreduce(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                              final Op op) {
        final Schedule s = Schedule.of(c);
        final int n = s.size();
        final int r = s.rank();
        final long bytes = count * type.size;
        MemorySegment acc = s.packed(in, count, type);
        MemorySegment tmp = s.scratch(bytes);
        final int pof2 = Integer.highestOneBit(n);
        final int rem = n - pof2;
        // fold: among the first 2*rem ranks, each even rank hands its data to the odd rank above it
        final int vr;
        if (r < 2 * rem) {
            if ((r & 1) == 0) {
                s.send(r + 1, acc, 0, bytes).next();
                vr = -1;
            } else {
                final MemorySegment mine = acc;
                final MemorySegment lower = tmp;
                s.recv(r - 1, lower, 0, bytes).combine(op, lower, mine, 0, count, type).next();
                vr = r / 2;
            }
        } else {
            vr = r - rem;
        }
        if (vr >= 0) {
            for (int mask = 1; mask < pof2; mask <<= 1) {
                final int vpeer = vr ^ mask;
                final int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
                final MemorySegment mine = acc;
                final MemorySegment theirs = tmp;
                s.recv(peer, theirs, 0, bytes).send(peer, mine, 0, bytes);
                if (peer < r) {
                    s.combine(op, theirs, mine, 0, count, type).next();
                } else {
                    s.combine(op, mine, theirs, 0, count, type).next();
                    acc = theirs;
                    tmp = mine;
                }
            }
        }
        if (r < 2 * rem) {
            if ((r & 1) == 1) {
                s.send(r - 1, acc, 0, bytes).next();
            } else {
                s.recv(r + 1, acc, 0, bytes).next();
            }
        }
        return s.unpack(acc, out, count, type);
    }

    /**
     * Ring allreduce for large messages and commutative operations: a ring reduce-scatter (in step s each
     * rank passes one piece to its right and combines the piece from its left into its own), then a ring
     * allgather of the reduced pieces; each rank sends about twice the message, whatever the number of ranks.
     */
    static Schedule ringAllreduce(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                                  final Op op) {
        final Schedule s = Schedule.of(c);
        final int n = s.size();
        final int r = s.rank();
        final MemorySegment acc = s.packed(in, count, type);
        final int per = (count + n - 1) / n;
        final MemorySegment tmp = s.scratch((long) per * type.size);
        final int right = (r + 1) % n;
        final int left = (r - 1 + n) % n;
        for (int step = 0; step < n - 1; step++) {
            final int send = (r - step + n) % n;
            final int recv = (r - step - 1 + n) % n;
            final int first = Math.min(recv * per, count);
            final int elems = Math.min(first + per, count) - first;
            s.recv(left, tmp, 0, elems * type.size)
                .send(right, acc, Math.min(send * per, count) * type.size, piece(send, per, count) * type.size)
                .combine(op, tmp, acc, (long) first * type.size, elems, type).next();
        }
        for (int step = 0; step < n - 1; step++) {
            final int send = (r + 1 - step + n) % n;
            final int recv = (r - step + n) % n;
            s.recv(left, acc, Math.min(recv * per, count) * type.size, piece(recv, per, count) * type.size)
                .send(right, acc, Math.min(send * per, count) * type.size, piece(send, per, count) * type.size).next();
        }
        return s.unpack(acc, out, count, type);
    }

    private static long piece(final int j, final int per, final int count) {
        return Math.min((j + 1) * per, count) - Math.min(j * per, count);
    }

    /** Reduces every rank's {@code in} and leaves block i ({@code counts[i]} elements) at rank i. */
    static Schedule reduceScatter(final Comm c, final Span in, final Span out, final int[] counts,
                                  final Datatype type, final Op op) {
        final int n = c.size;
        int total = 0;
        final int[] displs = new int[n];
        for (int i = 0; i < n; i++) {
            displs[i] = total;
            total += counts[i];
        }
        final Schedule s = Schedule.of(c);
        final MemorySegment whole = reduceInto(s, in, total, type, op, 0);
        // rank 0 sends each rank its block of packed bytes, which the rank unpacks into its own layout
        if (s.rank() == 0) {
            for (int i = 1; i < n; i++) {
                s.send(i, whole, displs[i] * type.size, counts[i] * type.size);
            }
            s.unpack(whole, out, counts[0], type);
        } else {
            s.recv(0, out, counts[s.rank()], type).finish(out);
        }
        return s;
    }

    /** Inclusive ({@code exclusive} false) or exclusive prefix reduction in rank order. */
    static Schedule scan(final Comm c, final Span in, final Span out, final int count, final Datatype type,
                         final Op op, final boolean exclusive) {
        final Schedule s = Schedule.of(c);
        final long bytes = count * type.size;
        final int me = s.rank();
        // partial: the reduction over the ranks this rank's subtree covers; result: over the ranks below (and me)
        MemorySegment partial = s.packed(in, count, type);
        final MemorySegment result = exclusive ? s.scratch(bytes) : s.packed(in, count, type);
        final boolean[] haveResult = {!exclusive};
        MemorySegment tmp = s.scratch(bytes);
        for (int mask = 1; mask < s.size(); mask <<= 1) {
            final int peer = me ^ mask;
            if (peer >= s.size()) {
                continue;
            }
            final MemorySegment mine = partial;
            final MemorySegment theirs = tmp;
            s.recv(peer, theirs, 0, bytes).send(peer, mine, 0, bytes);
            if (peer < me) {
                s.then(() -> {
                    if (haveResult[0]) {
                        op.apply(theirs, 0, result, 0, count, type);
                    } else {
                        MemorySegment.copy(theirs, 0, result, 0, bytes);
                        haveResult[0] = true;
                    }
                    op.apply(theirs, 0, mine, 0, count, type);
                }).next();
            } else {
                s.combine(op, mine, theirs, 0, count, type).next();
                partial = theirs;
                tmp = mine;
            }
        }
        return s.then(() -> {
            if (haveResult[0]) {
                TypeCursor.unpack(result, 0, out, count, type);
                out.finish();
            }
        });
    }
}
