package weft.shmem;

import weft.uct.AtomicOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The collective algorithms on a team, built from one-sided puts and signals (atomic adds on counters in
 * the team's slot of the service area; a counter only grows, so a wait is "counter >= expected" and no
 * counter is ever reset between collectives):
 * <ul>
 * <li>barrier: dissemination, ceil(log2 n) rounds of one signal each;</li>
 * <li>broadcast: a binomial tree rooted at the root, data put then signalled (fence between);</li>
 * <li>fcollect, collect, alltoall: every PE puts its blocks straight into the others' destinations and
 *     signals each (collect first gathers the sizes the same way);</li>
 * <li>reductions: chunks gathered into every PE's scratch, combined locally in PE order (so every PE
 *     computes the same bits).</li>
 * </ul>
 * Every data collective starts with a barrier (so every destination is free to write) and ends with a
 * quiet (so the data this PE forwards is delivered without its further progress).
 */
final class Collectives {
    static final int MAX_TEAMS = 64;
    static final long SLOT_BYTES = 64 << 10;
    static final long SERVICE_BYTES = MAX_TEAMS * SLOT_BYTES;
    private static final long BARRIER = 0;       // 32 counters, one per dissemination round
    private static final long BCAST = 256;
    private static final long DATA = 264;
    private static final long SIZES = 272;
    private static final long REDUCE = 280;
    private static final long AGREE = 512;       // 32 counters, one per dissemination round
    private static final long AGREE_DATA = 1024; // 32 rounds of up to 8 longs
    private static final int AGREE_MAX = 8;
    private static final long SCRATCH = 4096;
    static final long SCRATCH_BYTES = SLOT_BYTES - SCRATCH;

    private final OneSided ops;
    private final PointSync sync;
    private final SymmetricHeap heap;
    private final int worldMe;
    private final MemorySegment one = Arena.ofAuto().allocate(8, 8);

    Collectives(final OneSided ops, final PointSync sync) {
        this.ops = ops;
        this.sync = sync;
        this.heap = ops.heap();
        this.worldMe = ops.rank();
    }

    private static long slotBase(final ShmemTeam t) {
        return t.slot * SLOT_BYTES;
    }

    /** Zeroes the counters of {@code t}'s slot (before any member can signal into it). */
    void resetSlot(final ShmemTeam t) {
        heap.memory().asSlice(slotBase(t), SCRATCH).fill((byte) 0);
    }

    private void signal(final ShmemTeam t, final int idx, final long off) {
        ops.amoAt(AtomicOp.ADD, slotBase(t) + off, 1, 8, t.pes[idx], false);
    }

    /** Waits for the team's members to arrive (no completion of earlier operations: see {@link #quietBarrier}). */
    void barrier(final ShmemTeam t) {
        barrier(t, Long.MAX_VALUE);
    }

    /**
     * {@link #barrier(ShmemTeam)} that gives up when {@code System.nanoTime()} passes {@code deadline}.
     *
     * @throws IllegalStateException at the deadline (the team's barriers are unusable afterwards)
     */
    void barrier(final ShmemTeam t, final long deadline) {
        final int n = t.size();
        if (n == 1) {
            return;
        }
        final long epoch = ++t.barrierEpoch;
        int round = 0;
        for (int d = 1; d < n; d <<= 1, round++) {
            signal(t, (t.me + d) % n, BARRIER + 8L * round);
            if (!sync.waitAtLeast(slotBase(t) + BARRIER + 8L * round, epoch, deadline)) {
                throw new IllegalStateException("PE " + worldMe + ": a PE of " + t + " did not reach the barrier in time"
                    + " (round " + round + ", waiting for PE " + t.pes[(t.me - d + n) % n] + ")");
            }
        }
    }

    /** Completes this PE's operations, then {@link #barrier}: {@code barrierAll} and {@code teamSync} after quiet. */
    void quietBarrier(final ShmemTeam t) {
        ops.quiet();
        barrier(t);
    }

    /** Copies {@code bytes} of {@code src} on the root to {@code dest} on every member, the root included. */
    void broadcast(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes,
                   final int root) {
        final int n = t.size();
        t.worldPe(root);
        heap.offsetOf(dest, bytes, "the broadcast destination");
        barrier(t);
        final int vr = (t.me - root + n) % n;
        final long epoch = ++t.bcastEpoch;
        final int limit;
        if (vr == 0) {
            // the root receives no signal: count this broadcast itself, so the counter stays equal to the epoch
            OneSided.I64.getAndAdd(heap.memory(), slotBase(t) + BCAST, 1L);
            if (bytes > 0 && dest.address() != src.address()) {
                MemorySegment.copy(src, 0, dest, 0, bytes);
            }
            limit = Integer.highestOneBit(Math.max(1, n - 1)) << 1;
        } else {
            sync.waitAtLeast(slotBase(t) + BCAST, epoch);
            limit = Integer.lowestOneBit(vr);
        }
        boolean sent = false;
        for (int m = limit >> 1; m >= 1; m >>= 1) {
            if (vr + m < n) {
                final int child = (vr + m + root) % n;
                ops.put(dest, dest, bytes, t.pes[child], true);
                ops.fence();
                signal(t, child, BCAST);
                sent = true;
            }
        }
        if (sent) {
            ops.quiet();
        }
    }

    /** Block {@code i} of {@code dest} (on every member) = {@code bytes} of member {@code i}'s {@code src}. */
    void fcollect(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes) {
        final int n = t.size();
        heap.offsetOf(dest, bytes * n, "the collect destination");
        barrier(t);
        gather(t, dest, src, bytes, bytes * t.me, DATA, t.dataExpected += n - 1);
    }

    /** Puts {@code src} at {@code destOffset} of {@code dest} on every other member, signals, copies locally, waits. */
    private void gather(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes,
                        final long destOffset, final long counter, final long expected) {
        final int n = t.size();
        final MemorySegment at = dest.asSlice(destOffset, bytes);
        for (int j = 1; j < n; j++) {
            final int to = (t.me + j) % n;
            ops.put(at, src, bytes, t.pes[to], true);
            ops.fence();
            signal(t, to, counter);
        }
        if (bytes > 0 && at.address() != src.address()) {
            MemorySegment.copy(src, 0, at, 0, bytes);
        }
        sync.waitAtLeast(slotBase(t) + counter, expected);
        ops.quiet();
    }

    /**
     * Concatenates the members' {@code src} (of {@code bytes} each, possibly different) into {@code dest} in
     * member order; every member gets the whole. Returns the total length.
     */
    long collect(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes) {
        final int n = t.size();
        if (8L * n > SCRATCH_BYTES) {
            throw new IllegalArgumentException("collect on a team of " + n + " PEs exceeds the scratch area");
        }
        barrier(t);
        final MemorySegment sizes = heap.memory().asSlice(slotBase(t) + SCRATCH, 8L * n);
        one.set(ValueLayout.JAVA_LONG, 0, bytes);
        gather(t, sizes, one, 8, 8L * t.me, SIZES, t.sizesExpected += n - 1);
        long before = 0;
        long total = 0;
        for (int i = 0; i < n; i++) {
            final long s = sizes.get(ValueLayout.JAVA_LONG, 8L * i);
            before += i < t.me ? s : 0;
            total += s;
        }
        heap.offsetOf(dest, total, "the collect destination");
        gather(t, dest, src, bytes, before, DATA, t.dataExpected += n - 1);
        return total;
    }

    /** Block {@code j} of member {@code i}'s {@code src} goes to block {@code i} of member {@code j}'s {@code dest}. */
    void alltoall(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes) {
        final int n = t.size();
        heap.offsetOf(dest, bytes * n, "the alltoall destination");
        if (src.byteSize() < bytes * n) {
            throw new IllegalArgumentException("the alltoall source has " + src.byteSize() + " bytes, needs " + bytes * n);
        }
        barrier(t);
        final long expected = t.dataExpected += n - 1;
        final MemorySegment mine = dest.asSlice(bytes * t.me, bytes);
        for (int j = 1; j < n; j++) {
            final int to = (t.me + j) % n;
            ops.put(mine, src.asSlice(bytes * to, bytes), bytes, t.pes[to], true);
            ops.fence();
            signal(t, to, DATA);
        }
        MemorySegment.copy(src, bytes * t.me, mine, 0, bytes);
        sync.waitAtLeast(slotBase(t) + DATA, expected);
        ops.quiet();
    }

    /**
     * The strided alltoall: {@code nelems} elements of {@code size} bytes, stride {@code sst}, from block j of
     * {@code src} (starting at element {@code j * nelems * sst}) to block (my index) of member j's {@code dest}
     * (starting at element {@code me * nelems * dst}, stride {@code dst}).
     */
    void alltoalls(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long dst,
                   final long sst, final long nelems, final int size) {
        final int n = t.size();
        if (dst < 1 || sst < 1 || nelems < 0) {
            throw new IllegalArgumentException("alltoalls: strides must be >= 1 and the count >= 0 (dst " + dst
                + ", sst " + sst + ", nelems " + nelems + ")");
        }
        heap.offsetOf(dest, nelems == 0 ? 0 : ((n * nelems - 1) * dst + 1) * size, "the alltoalls destination");
        barrier(t);
        final long expected = t.dataExpected += n - 1;
        final long destBlock = nelems * dst * size;
        final long srcBlock = nelems * sst * size;
        for (int j = 0; j < n; j++) {
            final int to = (t.me + j) % n;
            if (nelems > 0) {
                ops.iput(dest.asSlice(t.me * destBlock), src.asSlice(to * srcBlock), dst, sst, nelems, size, t.pes[to]);
            }
            if (j > 0) {
                ops.fence();
                signal(t, to, DATA);
            }
        }
        sync.waitAtLeast(slotBase(t) + DATA, expected);
        ops.quiet();
    }

    /** {@code dest[i] = op over members of src[i]} for {@code i < count}, on every member. */
    void reduce(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long count,
                final Reduction.Kind k, final Reduction.Op op) {
        final int n = t.size();
        if (count < 0) {
            throw new IllegalArgumentException("negative count " + count);
        }
        if (k.floating && (op == Reduction.Op.AND || op == Reduction.Op.OR || op == Reduction.Op.XOR)) {
            throw new IllegalArgumentException(op + " does not apply to floating-point types");
        }
        heap.offsetOf(dest, count * k.size, "the reduction destination");
        if (src.byteSize() < count * k.size) {
            throw new IllegalArgumentException("the reduction source has " + src.byteSize() + " bytes, needs "
                + count * k.size);
        }
        final long chunk = SCRATCH_BYTES / ((long) n * k.size);
        if (chunk == 0) {
            throw new IllegalArgumentException("a reduction over " + n + " PEs exceeds the scratch area");
        }
        final MemorySegment scratch = heap.memory().asSlice(slotBase(t) + SCRATCH, SCRATCH_BYTES);
        final MemorySegment result = Arena.ofAuto().allocate(Math.max(1, Math.min(chunk, count) * k.size), 8);
        long done = 0;
        do {
            final long c = Math.min(chunk, count - done);
            final long bytes = c * k.size;
            barrier(t); // every member is done with the scratch of the previous chunk
            gather(t, scratch.asSlice(0, bytes * n), src.asSlice(done * k.size, bytes), bytes, bytes * t.me, REDUCE,
                t.reduceExpected += n - 1);
            Reduction.combine(k, op, scratch, n, c, result);
            MemorySegment.copy(result, 0, dest, done * k.size, bytes);
            done += c;
        } while (done < count);
    }

    /**
     * {@code values} combined element by element over the team with idempotent operators ({@code ops[i]}:
     * AND, OR, MIN or MAX, signed), by dissemination: in round r each member sends what it has combined so
     * far to the member 2^r ahead, so every member has the whole after ceil(log2 n) rounds and talks to
     * ceil(log2 n) others (team creation and the allocators' agreement check use it).
     */
    long[] allReduceIdempotent(final ShmemTeam t, final long[] values, final Reduction.Op[] ops) {
        final int n = t.size();
        final int k = values.length;
        if (k > AGREE_MAX || ops.length != k) {
            throw new IllegalArgumentException("at most " + AGREE_MAX + " values, one operator each");
        }
        final long[] acc = values.clone();
        if (n == 1) {
            return acc;
        }
        barrier(t); // every member has read the round slots of the previous call
        final long epoch = ++t.agreeEpoch;
        int round = 0;
        for (int d = 1; d < n; d <<= 1, round++) {
            final MemorySegment buf = Arena.ofAuto().allocate(8L * k, 8); // a fresh source: nbi puts read it later
            MemorySegment.copy(acc, 0, buf, ValueLayout.JAVA_LONG, 0, k);
            final MemorySegment slot = heap.memory().asSlice(slotBase(t) + AGREE_DATA + 64L * round, 8L * k);
            final int to = (t.me + d) % n;
            this.ops.put(slot, buf, 8L * k, t.pes[to], true);
            this.ops.fence();
            signal(t, to, AGREE + 8L * round);
            sync.waitAtLeast(slotBase(t) + AGREE + 8L * round, epoch);
            for (int i = 0; i < k; i++) {
                acc[i] = Reduction.apply(Reduction.Kind.S64, ops[i], acc[i], slot.getAtIndex(ValueLayout.JAVA_LONG, i));
            }
        }
        this.ops.quiet();
        return acc;
    }

    /** A bitwise AND of one long over the team (the team-slot agreement of team creation). */
    long allAnd(final ShmemTeam t, final long value) {
        return allReduceIdempotent(t, new long[] {value}, new Reduction.Op[] {Reduction.Op.AND})[0];
    }

    int worldMe() {
        return worldMe;
    }
}
