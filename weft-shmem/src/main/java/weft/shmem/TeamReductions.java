package weft.shmem;

import java.lang.foreign.MemorySegment;

/**
 * The reductions and scans of {@link Collectives}, in chunks that fit the team's scratch area (a local
 * completion after each chunk, {@link OneSided#quietSent}, releases the sources of its puts):
 * <ul>
 * <li>reduce below {@code WEFT_SHMEM_REDUCE_RING_BYTES} (or on two PEs): recursive doubling; on a team that is
 *     not a power of two the first 2r members fold pairwise into r first (the even one sends, the odd one
 *     combines and later puts the result straight into the even one's {@code dest}). No barrier: it writes
 *     only the upper half of the scratch area, in two sets of regions used by alternate chunks, and a PE
 *     reaches chunk k + 2 only after its partners sent it their data of chunk k + 1, which they did after
 *     reading everything of chunk k;</li>
 * <li>reduce at and above it: a ring reduce-scatter (n-1 steps, member j ends with block j fully combined)
 *     then the ring allgather of the blocks into {@code dest};</li>
 * <li>inclusive and exclusive scans: Hillis-Steele, ceil(log2 n) rounds, member j sending to member j + 2^r.</li>
 * </ul>
 * The ring and the scans start each chunk with a barrier and use the lower half of the scratch area (with
 * the sizes of {@code collect}), so that no PE still reading it there is overwritten by a faster one.
 * Each combination is computed once and copied, or computed in the same operand order on both partners
 * (lower-numbered group on the left), so every member holds the same bits, floating point included.
 * A partial result is combined into the scratch region it arrived in and sent on from there: the memory a
 * pending put reads is never written again within the chunk.
 */
final class TeamReductions {
    /** Per-round counters of the fold into a power of two and of the result sent back. */
    private static final int PRE = Collectives.ROUND_COUNTERS - 2;
    private static final int POST = Collectives.ROUND_COUNTERS - 1;
    /** The lower half of the scratch: ring reductions, scans (and collect's sizes) after a barrier. */
    static final long LOWER_BYTES = Collectives.SCRATCH_BYTES / 2;
    /** One of the two region sets of recursive doubling in the upper half. */
    private static final long DOUBLING_SET_BYTES = Collectives.SCRATCH_BYTES / 4;

    private final Collectives coll;
    private final OneSided ops;

    TeamReductions(final Collectives coll, final OneSided ops) {
        this.coll = coll;
        this.ops = ops;
    }

    private void check(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long count,
                       final Reduction.Kind k, final Reduction.Op op, final String what, final String destWhat) {
        if (count < 0) {
            throw new IllegalArgumentException("negative count " + count);
        }
        if (k.floating && (op == Reduction.Op.AND || op == Reduction.Op.OR || op == Reduction.Op.XOR)) {
            throw new IllegalArgumentException(op + " does not apply to floating-point types");
        }
        ops.heap().offsetOf(dest, count * k.size, destWhat); // a constant: a built message would allocate per call
        if (src.byteSize() < count * k.size) {
            throw new IllegalArgumentException("the " + what + " source has " + src.byteSize() + " bytes, needs "
                + count * k.size);
        }
    }

    private static int log2(final int n) {
        return 31 - Integer.numberOfLeadingZeros(n);
    }

    /** {@code dest[i] = op over members of src[i]} for {@code i < count}, on every member. */
    void reduce(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long count,
                final Reduction.Kind k, final Reduction.Op op) {
        check(t, dest, src, count, k, op, "reduction", "the reduction destination");
        final int n = t.size();
        if (n == 1) {
            if (count > 0 && dest.address() != src.address()) {
                MemorySegment.copy(src, 0, dest, 0, count * k.size);
            }
            return;
        }
        final boolean ring = n > 2 && count * k.size >= coll.tuning.reduceRingBytes;
        final int p2 = Integer.highestOneBit(n);
        final int regions = ring ? n - 1 : log2(p2) + (p2 < n ? 1 : 0);
        final long regionElems = (ring ? LOWER_BYTES : DOUBLING_SET_BYTES) / regions / k.size;
        final long chunk = ring ? regionElems * n : regionElems;
        if (regionElems == 0) {
            throw new IllegalArgumentException("a reduction over " + n + " PEs exceeds the scratch area");
        }
        long done = 0;
        do {
            final long c = Math.min(chunk, count - done);
            if (ring) {
                coll.barrier(t); // every member is done with the lower scratch and its dest
                ringChunk(t, dest.asSlice(done * k.size, c * k.size), src.asSlice(done * k.size, c * k.size), c, k, op,
                    regionElems * k.size);
            } else {
                final long set = LOWER_BYTES + (t.doublingChunks++ & 1) * DOUBLING_SET_BYTES;
                doublingChunk(t, dest, src, done * k.size, c, k, op, Collectives.scratchOffset(t) + set,
                    regionElems * k.size);
            }
            done += c;
        } while (done < count);
    }

    /**
     * One chunk by recursive doubling: {@code c} elements from byte {@code at} of {@code src} into the same
     * place of {@code dest}, through the regions of {@code regionBytes} from heap offset {@code scratch}. Works
     * on offsets into the segments it is given (no slices: a small reduction allocates nothing).
     */
    private void doublingChunk(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long at,
                               final long c, final Reduction.Kind k, final Reduction.Op op, final long scratch,
                               final long regionBytes) {
        final int n = t.size();
        final int p2 = Integer.highestOneBit(n);
        final int rem = n - p2;
        final long bytes = c * k.size;
        final int levels = log2(p2);
        final MemorySegment heap = ops.heap().memory();
        MemorySegment acc = src;
        long accOff = at;
        final int newRank;
        if (t.me < 2 * rem) {
            final long pre = scratch + levels * regionBytes;
            if (t.me % 2 == 0) {
                coll.putSignalAt(t, pre, acc, accOff, bytes, t.me + 1, Collectives.ROUNDS + 8L * PRE);
                coll.awaitRound(t, POST); // the odd partner puts the result into my dest
                ops.quietSent();
                return;
            }
            coll.awaitRound(t, PRE);
            Reduction.combine2(k, op, heap, pre, acc, accOff, c, heap, pre);
            acc = heap;
            accOff = pre;
            newRank = t.me / 2;
        } else {
            newRank = t.me - rem;
        }
        for (int mask = 1, r = 0; mask < p2; mask <<= 1, r++) {
            final int pn = newRank ^ mask;
            final int partner = pn < rem ? 2 * pn + 1 : pn + rem;
            final long region = scratch + r * regionBytes;
            coll.putSignalAt(t, region, acc, accOff, bytes, partner, Collectives.ROUNDS + 8L * r);
            coll.awaitRound(t, r);
            if (pn < newRank) {
                Reduction.combine2(k, op, heap, region, acc, accOff, c, heap, region);
            } else {
                Reduction.combine2(k, op, acc, accOff, heap, region, c, heap, region);
            }
            acc = heap;
            accOff = region;
        }
        ops.quietSent(); // every put that read src is done: dest may be src
        if (bytes > 0 && acc.address() + accOff != dest.address() + at) {
            MemorySegment.copy(acc, accOff, dest, at, bytes);
        }
        if (t.me < 2 * rem) {
            // dest was checked against the heap: the same offset on the even partner
            coll.putSignalAt(t, dest.address() - ops.heap().base() + at, acc, accOff, bytes, t.me - 1,
                Collectives.ROUNDS + 8L * POST);
            ops.quietSent();
        }
    }

    /**
     * Ring reduce-scatter then ring allgather on one chunk of {@code c} elements split into n blocks: in step
     * s this PE sends its partial of block (me - s - 1) to the right and combines the left's partial of block
     * (me - s - 2) with its own elements, so after n - 1 steps it holds block me combined over every member.
     */
    private void ringChunk(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long c,
                           final Reduction.Kind k, final Reduction.Op op, final long regionBytes) {
        final int n = t.size();
        final long[] offs = t.offsets();
        for (int i = 0; i <= n; i++) {
            offs[i] = c * i / n * k.size;
        }
        final MemorySegment scratch = coll.scratch(t);
        final int right = (t.me + 1) % n;
        MemorySegment partial = null;
        for (int s = 0; s < n - 1; s++) {
            final int send = ((t.me - s - 1) % n + n) % n;
            final int recv = ((t.me - s - 2) % n + n) % n;
            final long sendBytes = offs[send + 1] - offs[send];
            final MemorySegment from = s == 0 ? src.asSlice(offs[send], sendBytes) : partial;
            // step s lands in region s of the right neighbour, written by nobody else in this chunk
            coll.putSignal(t, scratch.asSlice(s * regionBytes, sendBytes), from, sendBytes, right, Collectives.RING);
            coll.awaitRing(t);
            final long recvBytes = offs[recv + 1] - offs[recv];
            final MemorySegment region = scratch.asSlice(s * regionBytes, recvBytes);
            Reduction.combine2(k, op, region, src.asSlice(offs[recv], recvBytes), recvBytes / k.size, region);
            partial = region;
        }
        ops.quietSent(); // every put that read src is done: dest may be src
        final long mine = offs[t.me + 1] - offs[t.me];
        if (mine > 0) {
            MemorySegment.copy(partial, 0, dest, offs[t.me], mine);
        }
        coll.ringAllgather(t, dest, offs, t.me);
        ops.quietSent();
    }

    /**
     * Inclusive or exclusive scan by Hillis-Steele: in round r member j sends what it has combined (members
     * max(0, j - 2^r + 1) .. j) to member j + 2^r and combines what member j - 2^r sent on its left.
     */
    void scan(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long count,
              final Reduction.Kind k, final Reduction.Op op, final boolean inclusive) {
        check(t, dest, src, count, k, op, "scan", "the scan destination");
        final int n = t.size();
        final int rounds = n == 1 ? 1 : 32 - Integer.numberOfLeadingZeros(n - 1);
        final long regionElems = LOWER_BYTES / rounds / k.size;
        long done = 0;
        do {
            final long c = Math.min(regionElems, count - done);
            final long bytes = c * k.size;
            coll.barrier(t);
            final MemorySegment excl = t.work(bytes).asSlice(0, bytes);
            MemorySegment incl = src.asSlice(done * k.size, bytes);
            boolean have = false;
            for (int d = 1, r = 0; d < n; d <<= 1, r++) {
                final MemorySegment region = coll.scratch(t).asSlice(r * regionElems * k.size, bytes);
                if (t.me + d < n) {
                    coll.putSignal(t, region, incl, bytes, t.me + d, Collectives.ROUNDS + 8L * r);
                }
                if (t.me - d >= 0) {
                    coll.awaitRound(t, r);
                    if (!inclusive) {
                        if (have) {
                            Reduction.combine2(k, op, region, excl, c, excl);
                        } else {
                            MemorySegment.copy(region, 0, excl, 0, bytes);
                        }
                        have = true;
                    }
                    Reduction.combine2(k, op, region, incl, c, region);
                    incl = region;
                }
            }
            ops.quietSent(); // every put that read src is done: dest may be src
            final MemorySegment d = dest.asSlice(done * k.size, bytes);
            if (inclusive) {
                if (incl.address() != d.address()) {
                    MemorySegment.copy(incl, 0, d, 0, bytes);
                }
            } else if (have) {
                MemorySegment.copy(excl, 0, d, 0, bytes);
            } else {
                d.fill((byte) 0);
            }
            done += c;
        } while (done < count);
    }
}
