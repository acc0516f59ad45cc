package weft.shmem;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The collective algorithms on a team, built from one-sided puts and signals (atomic adds on counters in
 * the team's slot of the service area; a counter only grows, so a wait is "counter >= expected" and no
 * counter is ever reset between collectives):
 * <ul>
 * <li>barrier: dissemination, ceil(log2 n) rounds of one signal each;</li>
 * <li>broadcast: a k-nomial tree rooted at the root ({@code WEFT_SHMEM_BCAST_RADIX}); up to
 *     {@link #BCAST_SLOT_MAX} bytes the data goes into the receiver's slot for that broadcast (the team's
 *     small broadcasts take {@link #BCAST_SLOT_COUNT} slots in turn; a parent fills a child's slot only once
 *     the child has taken out the broadcast that used it before, which it reads from the child's
 *     {@code BCAST_TAKEN} word, so a root runs up to that many broadcasts ahead and never overwrites a
 *     member's dest); larger data is put into dest and signalled on a counter of the receiver that only
 *     this parent signals in broadcasts (one per distance to the parent), and each receiver acknowledges on
 *     a counter of its parent's (again one per distance) before the parent puts the next one;
 *     no entry barrier either way;</li>
 * <li>fcollect, collect: Bruck's dissemination (ceil(log2 n) rounds, the blocks gathered so far go to the
 *     PE 2^r behind) below {@code WEFT_SHMEM_COLLECT_RING_BYTES} of result, a ring (n-1 steps, one block to
 *     the right neighbour each) at and above it; blocks land at their final place in {@code dest};</li>
 * <li>alltoall(s): pairwise, each PE puts its blocks to the others in the order of an exchange pattern
 *     (partner = me XOR j on power-of-two teams) and signals each;</li>
 * <li>reductions and scans: {@link TeamReductions}.</li>
 * </ul>
 * The caller makes each destination ready before any member enters (OpenSHMEM's precondition of every
 * collective): broadcast, fcollect and the recursive-doubling reduction write nothing else and need no
 * entry barrier. Their signals stay unambiguous without one because each counter they wait on has one
 * sender (per team, in program order): the broadcast parent at a given distance, the Bruck partner of a
 * round, the ring's left neighbour, the doubling partner; a small broadcast's slot counter has several
 * (whichever member is the parent), whose uses follow one another because a parent fills a slot only once
 * its previous use was taken out. Collect, alltoall(s), the ring reductions and the
 * scans start with a barrier (scratch areas, or counters several members signal).
 * <p>Completion: a collective (the barrier included) ends with local completion only
 * ({@link OneSided#quietSent}: what this PE sent has left it, so its sources may change and the delivery
 * needs no further progress here), never a round trip; its receivers learn of their data from the
 * signals they wait on, which a fence orders after the data. A user's {@code quiet} does not wait for the
 * collectives' operations; {@code teamDestroy} and finalize complete them too, so that no signal of a
 * finished team is on its way when its slot is reused.
 */
final class Collectives {
    static final int MAX_TEAMS = 64;
    static final long SLOT_BYTES = 64 << 10;
    static final long SERVICE_BYTES = MAX_TEAMS * SLOT_BYTES;
    private static final long BARRIER = 0;       // 32 counters, one per dissemination round
    private static final long DATA = 264;
    private static final long SIZES = 272;
    static final long RING = 280;
    private static final long BCAST_TAKEN = 288; // small broadcasts this member has taken out of its slots
    private static final long AGREE = 512;       // 32 counters, one per dissemination round
    private static final long AGREE_DATA = 1024; // 32 rounds of up to 8 longs
    private static final int AGREE_MAX = 8;
    static final long ROUNDS = 3072;             // per-round counters of the logarithmic algorithms
    static final int ROUND_COUNTERS = 32;
    private static final long BCAST_FROM = 3328; // broadcast: one counter per distance to the parent
    static final int BCAST_COUNTERS = 64;
    private static final long BRUCK = 3840;      // fcollect/collect dissemination: one counter per round
    private static final long BCAST_ACK = 4096;  // broadcast: receipts from the child at each distance
    private static final long BCAST_SLOTS = 4608; // small broadcasts: BCAST_SLOT_COUNT slots [count][data]
    static final int BCAST_SLOT_COUNT = 32;
    private static final long BCAST_SLOT_STRIDE = 256;
    /** The largest broadcast that travels through the receivers' slots (larger ones go straight to dest). */
    static final long BCAST_SLOT_MAX = BCAST_SLOT_STRIDE - 8;
    static final long SCRATCH = BCAST_SLOTS + BCAST_SLOT_COUNT * BCAST_SLOT_STRIDE;
    static final long SCRATCH_BYTES = SLOT_BYTES - SCRATCH;

    /** The algorithm thresholds (from the configuration; the tests change them to reach every algorithm). */
    static final class Tuning {
        int bcastRadix;
        long collectRingBytes;
        long reduceRingBytes;

        Tuning(final int bcastRadix, final long collectRingBytes, final long reduceRingBytes) {
            if (bcastRadix < 2) {
                throw new IllegalArgumentException("the broadcast radix must be >= 2, got " + bcastRadix);
            }
            this.bcastRadix = bcastRadix;
            this.collectRingBytes = collectRingBytes;
            this.reduceRingBytes = reduceRingBytes;
        }
    }

    final Tuning tuning;
    private final OneSided ops;
    private final PointSync sync;
    private final SymmetricHeap heap;
    private final int worldMe;
    private final MemorySegment one = Arena.ofAuto().allocate(8, 8);
    private final TeamReductions reductions;

    Collectives(final OneSided ops, final PointSync sync, final Tuning tuning) {
        this.ops = ops;
        this.sync = sync;
        this.heap = ops.heap();
        this.worldMe = ops.rank();
        this.tuning = tuning;
        this.reductions = new TeamReductions(this, ops);
    }

    static long slotBase(final ShmemTeam t) {
        return t.slot * SLOT_BYTES;
    }

    /** The team's scratch area (in this PE's heap; the same offsets on every member). */
    MemorySegment scratch(final ShmemTeam t) {
        return heap.memory().asSlice(slotBase(t) + SCRATCH, SCRATCH_BYTES);
    }

    /** Signals per-round counter {@code round} of member {@code idx}. */
    void signalRound(final ShmemTeam t, final int idx, final int round) {
        signal(t, idx, ROUNDS + 8L * round);
    }

    /** Waits for the next signal on this PE's per-round counter {@code round}. */
    void awaitRound(final ShmemTeam t, final int round) {
        sync.waitAtLeast(slotBase(t) + ROUNDS + 8L * round, ++t.rounds[round]);
    }

    /** Waits for the next signal on this PE's Bruck counter {@code round} (from the member 2^round ahead). */
    private void awaitBruck(final ShmemTeam t, final int round) {
        sync.waitAtLeast(slotBase(t) + BRUCK + 8L * round, ++t.bruck[round]);
    }

    /** Waits for the next signal on this PE's ring counter (from the left neighbour). */
    void awaitRing(final ShmemTeam t) {
        sync.waitAtLeast(slotBase(t) + RING, ++t.ringExpected);
    }

    /** {@code bytes} of local {@code src} to {@code dest} (symmetric) on member {@code idx}, then a signal at {@code counter}. */
    void putSignal(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes,
                   final int idx, final long counter) {
        putSignalAt(t, heap.offsetOf(dest, bytes, "a collective's destination"), src, 0, bytes, idx, counter);
    }

    /** {@link #putSignal} from {@code src[srcOff, srcOff + bytes)} to heap offset {@code off} of member {@code idx}. */
    void putSignalAt(final ShmemTeam t, final long off, final MemorySegment src, final long srcOff, final long bytes,
                     final int idx, final long counter) {
        if (src.byteSize() - srcOff < bytes) {
            throw new IllegalArgumentException("a collective's source has " + (src.byteSize() - srcOff)
                + " bytes from " + srcOff + ", needs " + bytes);
        }
        ops.putSignalAt(off, src, srcOff, bytes, slotBase(t) + counter, t.pes[idx]);
    }

    /** The heap offset of {@code t}'s scratch area. */
    static long scratchOffset(final ShmemTeam t) {
        return slotBase(t) + SCRATCH;
    }

    /** Zeroes the counters of {@code t}'s slot (before any member can signal into it). */
    void resetSlot(final ShmemTeam t) {
        heap.memory().asSlice(slotBase(t), SCRATCH).fill((byte) 0);
    }

    void signal(final ShmemTeam t, final int idx, final long off) {
        ops.signalAt(slotBase(t) + off, t.pes[idx]);
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
        ops.quietSent();
    }

    /** Completes this PE's operations, then {@link #barrier}: {@code barrierAll}. */
    void quietBarrier(final ShmemTeam t) {
        ops.quiet();
        barrier(t);
    }

    /**
     * Completes every operation of this PE, the collectives' own included, then {@link #barrier}: once it
     * returns, no signal of an earlier collective of {@code t} is on its way to any member (a destroyed
     * team's slot can be reused and zeroed).
     */
    void quietAllBarrier(final ShmemTeam t) {
        ops.quietAll();
        barrier(t);
    }

    /**
     * Copies {@code bytes} of {@code src} on the root to {@code dest} on every member, the root included,
     * down a k-nomial tree numbered from the root: a member whose number relative to the root has its lowest
     * non-zero base-k digit j at position p gets the data from the member j * k^p below it, then forwards it
     * to its children, largest subtree first. Up to {@link #BCAST_SLOT_MAX} bytes the data travels through
     * the receivers' slots ({@link #slottedBroadcast}). Above, it is put into dest and signalled on the
     * receiver's counter for that distance, which that parent alone signals, so a signal of a later broadcast
     * (another root, another tree) never counts for this one; once it has forwarded the data (its puts have
     * left {@code dest}), the receiver acknowledges on its parent's counter for the same distance, which only
     * it signals (the member at a given distance is always the same one), and the parent waits for the
     * acknowledgement of the previous broadcast before it puts the next one to that child.
     */
    void broadcast(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes,
                   final int root) {
        final int n = t.size();
        t.worldPe(root);
        final long destOff = heap.offsetOf(dest, bytes, "the broadcast destination");
        if (src.byteSize() < bytes && t.me == root) {
            throw new IllegalArgumentException("the broadcast source has " + src.byteSize() + " bytes, needs " + bytes);
        }
        final int k = radix(n);
        final int vr = (t.me - root + n) % n;
        long mask = 1;
        while (mask < n && vr % (k * mask) == 0) {
            mask *= k;
        }
        if (vr == 0 && bytes > 0 && dest.address() != src.address()) {
            MemorySegment.copy(src, 0, dest, 0, bytes);
        }
        if (bytes <= BCAST_SLOT_MAX) {
            slottedBroadcast(t, dest, destOff, bytes, root, k, vr, mask);
            return;
        }
        final int digit = (int) (vr / mask % k);
        final int from = vr == 0 ? -1 : fromParent(n, k, mask, digit);
        if (vr != 0) {
            sync.waitAtLeast(slotBase(t) + BCAST_FROM + 8L * from, ++t.bcastFrom[from]);
        }
        boolean sent = false;
        for (long m = mask / k; m >= 1; m /= k) {
            for (int j = k - 1; j >= 1; j--) {
                final long child = vr + j * m;
                if (child < n) {
                    final int at = fromParent(n, k, m, j);
                    // the child at this distance (always the same member) has received every earlier broadcast
                    sync.waitAtLeast(slotBase(t) + BCAST_ACK + 8L * at, t.bcastSent[at]++);
                    putSignal(t, dest, dest, bytes, (int) ((child + root) % n), BCAST_FROM + 8L * at);
                    sent = true;
                }
            }
        }
        if (sent) {
            ops.quietSent(); // dest may change once this returns; the children wait for their signals
        }
        if (vr != 0) { // forwarded (and its puts left dest): the parent may overwrite dest with the next one
            signal(t, (int) ((vr - digit * mask + root) % n), BCAST_ACK + 8L * from);
            ops.quietSent();
        }
    }

    /**
     * {@link #broadcast} of at most {@link #BCAST_SLOT_MAX} bytes through the receivers' slots: broadcast s of
     * the team uses slot (s - 1) mod {@link #BCAST_SLOT_COUNT} on every member but the root, whichever parent
     * fills it; a slot's counter grows by one per use ({@link ShmemTeam#bcastSlotUses} counts them). A receiver
     * copies the slot to dest; every member then publishes s in its {@code BCAST_TAKEN} word (passed: the
     * slot is free) and forwards from dest. Before it fills a child's slot, a parent makes sure (a load through
     * the mapping, else a fetching atomic, only when the last value it read is too old) that the child has
     * passed broadcast s - count, the slot's previous use.
     */
    private void slottedBroadcast(final ShmemTeam t, final MemorySegment dest, final long destOff, final long bytes,
                                  final int root, final int k, final int vr, final long mask) {
        final int n = t.size();
        final long s = ++t.bcastSeq;
        final int index = (int) ((s - 1) % BCAST_SLOT_COUNT);
        final long slot = slotBase(t) + BCAST_SLOTS + index * BCAST_SLOT_STRIDE;
        if (vr != 0) { // the root copied src to dest already
            sync.waitAtLeast(slot, ++t.bcastSlotUses[index]);
            MemorySegment.copy(heap.memory(), slot + 8, dest, 0, bytes);
        }
        // passed broadcast s: its slot (the root's unused) is free again
        OneSided.I64.setRelease(heap.memory(), slotBase(t) + BCAST_TAKEN, s);
        boolean sent = false;
        for (long m = mask / k; m >= 1; m /= k) {
            for (int j = k - 1; j >= 1; j--) {
                final long child = vr + j * m;
                if (child < n) {
                    final int c = (int) ((child + root) % n);
                    awaitTaken(t, c, s - BCAST_SLOT_COUNT);
                    ops.putSignalAt(slot + 8, heap.memory(), destOff, bytes, slot, t.pes[c]);
                    sent = true;
                }
            }
        }
        if (sent) {
            ops.quietSent(); // dest may change once this returns; the children wait for their slots
        }
    }

    /** Waits until member {@code c} has taken broadcast {@code s} out of its slots (its slot is free). */
    private void awaitTaken(final ShmemTeam t, final int c, final long s) {
        if (s <= 0 || t.bcastTaken[c] >= s) {
            return;
        }
        final long start = System.nanoTime();
        int round = 0;
        while ((t.bcastTaken[c] = ops.loadAt(slotBase(t) + BCAST_TAKEN, t.pes[c])) < s) {
            round = sync.pause(round, start);
        }
    }

    /**
     * The configured broadcast radix, lowered (the same on every member) until the parent distances j * k^p
     * of a team of {@code n} number at most {@link #BCAST_COUNTERS}; radix 2 always fits (31 distances).
     */
    private int radix(final int n) {
        return radix(tuning.bcastRadix, n);
    }

    static int radix(final int configured, final int n) {
        int k = configured;
        if (n - 1 <= BCAST_COUNTERS) {
            return k;
        }
        while (k > 2 && (k - 1) * digits(n - 1, k) > BCAST_COUNTERS) {
            k--;
        }
        return k;
    }

    private static int digits(final long v, final int k) {
        int d = 0;
        for (long m = 1; m <= v; m *= k) {
            d++;
        }
        return d;
    }

    /** The counter of the parent at distance {@code j * m} ({@code m = k^p}): the distance itself on small teams. */
    static int fromParent(final int n, final int k, final long m, final int j) {
        if (n - 1 <= BCAST_COUNTERS) {
            return (int) (j * m - 1);
        }
        return (digits(m, k) - 1) * (k - 1) + j - 1;
    }

    /** Block {@code i} of {@code dest} (on every member) = {@code bytes} of member {@code i}'s {@code src}. */
    void fcollect(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes) {
        final int n = t.size();
        heap.offsetOf(dest, bytes * n, "the collect destination");
        checkSource(src, bytes, "collect");
        final long[] offs = t.offsets();
        for (int i = 0; i <= n; i++) {
            offs[i] = bytes * i;
        }
        allgather(t, dest, src, offs);
    }

    private static void checkSource(final MemorySegment src, final long bytes, final String what) {
        if (src.byteSize() < bytes) {
            throw new IllegalArgumentException("the " + what + " source has " + src.byteSize() + " bytes, needs " + bytes);
        }
    }

    /**
     * Concatenates the members' {@code src} (of {@code bytes} each, possibly different) into {@code dest} in
     * member order; every member gets the whole. Returns the total length.
     */
    long collect(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes) {
        final int n = t.size();
        if (8L * n > TeamReductions.LOWER_BYTES) {
            throw new IllegalArgumentException("collect on a team of " + n + " PEs exceeds the scratch area");
        }
        checkSource(src, bytes, "collect");
        barrier(t);
        final MemorySegment sizes = scratch(t).asSlice(0, 8L * n);
        final long[] offs = t.offsets();
        for (int i = 0; i <= n; i++) {
            offs[i] = 8L * i;
        }
        one.set(ValueLayout.JAVA_LONG, 0, bytes);
        allgather(t, sizes, one, offs);
        offs[0] = 0;
        for (int i = 0; i < n; i++) {
            offs[i + 1] = offs[i] + sizes.getAtIndex(ValueLayout.JAVA_LONG, i);
        }
        final long total = offs[n];
        heap.offsetOf(dest, total, "the collect destination"); // the same total everywhere: all fail or none
        allgather(t, dest, src, offs);
        return total;
    }

    /**
     * Gathers member i's {@code src} into {@code dest[offs[i], offs[i+1])} on every member: Bruck's
     * dissemination for small results, a ring for large ones. Writes only {@code dest}; each counter it
     * waits on has one sender (the member 2^r ahead in round r, the left neighbour in the ring).
     */
    private void allgather(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long[] offs) {
        final int n = t.size();
        final long mine = offs[t.me + 1] - offs[t.me];
        if (mine > 0 && dest.address() + offs[t.me] != src.address()) {
            MemorySegment.copy(src, 0, dest, offs[t.me], mine);
        }
        if (n == 1) {
            return;
        }
        if (offs[n] >= tuning.collectRingBytes) {
            ringAllgather(t, dest, offs, t.me);
        } else {
            int round = 0;
            for (int d = 1; d < n; d <<= 1, round++) {
                // I hold blocks [me, me + d) (mod n); the PE d behind lacks the first min(d, n - d) of them
                final int to = (t.me - d + n) % n;
                putBlocks(t, dest, offs, t.me, Math.min(d, n - d), to, BRUCK + 8L * round);
                awaitBruck(t, round);
            }
        }
        ops.quietSent();
    }

    /**
     * The ring allgather on {@code dest}'s blocks ({@code offs}): this PE holds block {@code own}; in step s it
     * passes block (own - s) to its right neighbour and receives block (own - s - 1) from its left one.
     */
    void ringAllgather(final ShmemTeam t, final MemorySegment dest, final long[] offs, final int own) {
        final int n = t.size();
        final int right = (t.me + 1) % n;
        for (int s = 0; s < n - 1; s++) {
            putBlocks(t, dest, offs, (own - s + n) % n, 1, right, RING);
            awaitRing(t);
        }
    }

    /** Puts blocks [first, first + count) (mod n) of {@code dest} to the same place on member {@code to}, then signals. */
    private void putBlocks(final ShmemTeam t, final MemorySegment dest, final long[] offs, final int first,
                           final int count, final int to, final long counter) {
        final int n = t.size();
        final int end = first + count;
        final int pe = t.pes[to];
        final long base = dest.address() - heap.base(); // dest was checked against the heap by the caller
        final long head = offs[Math.min(end, n)] - offs[first];
        if (end > n) { // the wrap: the signal rides with the second put, ordered after both
            ops.putAt(base + offs[first], dest, offs[first], head, pe);
            ops.putSignalAt(base, dest, 0, offs[end - n], slotBase(t) + counter, pe);
        } else {
            ops.putSignalAt(base + offs[first], dest, offs[first], head, slotBase(t) + counter, pe);
        }
    }

    /** The member this PE exchanges with in step {@code j} (1 <= j < n) of a pairwise exchange. */
    private static int partner(final ShmemTeam t, final int j) {
        final int n = t.size();
        return (n & (n - 1)) == 0 ? t.me ^ j : (t.me + j) % n;
    }

    /** Block {@code j} of member {@code i}'s {@code src} goes to block {@code i} of member {@code j}'s {@code dest}. */
    void alltoall(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long bytes) {
        final int n = t.size();
        heap.offsetOf(dest, bytes * n, "the alltoall destination");
        checkSource(src, bytes * n, "alltoall");
        barrier(t);
        final long expected = t.dataExpected += n - 1;
        final MemorySegment mine = dest.asSlice(bytes * t.me, bytes);
        for (int j = 1; j < n; j++) {
            final int to = partner(t, j);
            putSignal(t, mine, src.asSlice(bytes * to, bytes), bytes, to, DATA);
        }
        MemorySegment.copy(src, bytes * t.me, mine, 0, bytes);
        sync.waitAtLeast(slotBase(t) + DATA, expected);
        ops.quietSent();
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
            final int to = j == 0 ? t.me : partner(t, j);
            if (nelems > 0) {
                ops.iput(dest.asSlice(t.me * destBlock), src.asSlice(to * srcBlock), dst, sst, nelems, size, t.pes[to]);
            }
            if (j > 0) {
                ops.fence();
                signal(t, to, DATA);
            }
        }
        sync.waitAtLeast(slotBase(t) + DATA, expected);
        ops.quietSent();
    }

    /** {@code dest[i] = op over members of src[i]} for {@code i < count}, on every member. */
    void reduce(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long count,
                final Reduction.Kind k, final Reduction.Op op) {
        reductions.reduce(t, dest, src, count, k, op);
    }

    /**
     * The 1.6 scans: {@code dest[i]} on member j = op over members 0..j ({@code inclusive}) or 0..j-1 of
     * {@code src[i]}; member 0's {@code dest} of an exclusive scan is zeroed (the identity of SUM).
     */
    void scan(final ShmemTeam t, final MemorySegment dest, final MemorySegment src, final long count,
              final Reduction.Kind k, final Reduction.Op op, final boolean inclusive) {
        reductions.scan(t, dest, src, count, k, op, inclusive);
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
