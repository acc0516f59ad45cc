package mpi;

import weft.ucp.Rkey;

import java.lang.foreign.MemorySegment;

/**
 * How a window's data operations reach their target: the target's bytes for a displacement (in its
 * displacement units of its window memory, or for a dynamic window an absolute address in one of its
 * attached regions, whose key {@link WinRegions} finds), put and get block by block of the target type,
 * and the accumulate family's get-combine-put under the target's accumulate mutex.
 */
final class WinAccess {
    private final Comm comm;
    private final WinPeers peers;
    /** The attached regions of a dynamic window, else null. */
    private final WinRegions regions;
    /** Request-based operations started and not yet seen done (some may have stages to go). */
    private final WinRequest.Group inFlight = new WinRequest.Group();

    /** Where a target's data start and the key that reaches them. */
    private record Target(long address, Rkey key) {
    }

    WinAccess(final Comm comm, final WinPeers peers, final WinRegions regions) {
        this.comm = comm;
        this.peers = peers;
        this.regions = regions;
    }

    void checkRank(final int rank) throws MPIException {
        if (rank < 0 || rank >= comm.size) {
            throw new MPIException(MPI.ERR_RANK, "target rank " + rank + " outside [0, " + comm.size + ")");
        }
    }

    /** Checks the origin against the target and packs it. */
    MemorySegment originData(final Span o, final int orgCount, final Datatype orgType, final int targetRank,
                             final int targetCount, final Datatype targetType) throws MPIException {
        checkMatch(o, orgCount, orgType, targetRank, targetCount, targetType);
        return Coll.packed(o, orgCount, orgType);
    }

    void checkMatch(final Span o, final int orgCount, final Datatype orgType, final int targetRank,
                    final int targetCount, final Datatype targetType) throws MPIException {
        Args.checkData(orgCount, orgType);
        Args.checkData(targetCount, targetType);
        o.check(orgCount, orgType);
        if (targetRank != MPI.PROC_NULL) {
            checkRank(targetRank);
        }
        if (orgCount * orgType.size != targetCount * targetType.size) {
            throw new MPIException(MPI.ERR_COUNT, "the origin holds " + orgCount * orgType.size + " B and the target "
                + targetCount * targetType.size + " B");
        }
    }

    /** The address of {@code disp} at {@code rank} and its key, checked against the memory there. */
    private Target target(final int rank, final long disp, final int count, final Datatype type)
        throws MPIException {
        final long at = regions == null ? disp * peers.dispUnit(rank) : disp;
        if (count == 0 || type.size == 0) {
            return new Target(regions == null ? peers.base(rank) + at : at, null); // no data: nothing to reach
        }
        final long first = at + Math.min(type.trueLb, type.trueLb + (count - 1) * type.extent());
        final long end = at + Math.max(type.trueUb, type.trueUb + (count - 1) * type.extent());
        if (regions != null) {
            return new Target(at, regions.key(peers, rank, first, end, () -> backOff(0)));
        }
        if (first < 0 || end > peers.size(rank)) {
            throw new MPIException(MPI.ERR_DISP, "bytes [" + first + ", " + end + ") are outside rank " + rank
                + "'s window of " + peers.size(rank) + " B");
        }
        return new Target(peers.base(rank) + at, peers.dataKey(rank));
    }

    /** Writes packed data to the target's blocks of {@code count} elements of {@code type}. */
    void write(final int rank, final long disp, final int count, final Datatype type, final MemorySegment packed)
        throws MPIException {
        transfer(rank, disp, count, type, packed, false, null);
    }

    /** Reads the target's blocks of {@code count} elements of {@code type}, packed. */
    MemorySegment read(final int rank, final long disp, final int count, final Datatype type) throws MPIException {
        final MemorySegment packed = Coll.scratch(count * type.size);
        transfer(rank, disp, count, type, packed, true, null);
        return packed;
    }

    /**
     * Moves packed bytes of {@code local} to ({@code get} false) or from the target's blocks of {@code count}
     * elements of {@code type}, one remote operation per block: each waited for, or with {@code pending}
     * started only and added there.
     */
    void transfer(final int rank, final long disp, final int count, final Datatype type, final MemorySegment local,
                  final boolean get, final WinRequest pending) throws MPIException {
        final Target t = target(rank, disp, count, type);
        long pos = 0;
        for (int i = 0; i < count; i++) {
            for (int b = 0; b < type.offsets.length; b++) {
                final long at = t.address + i * type.extent() + type.offsets[b];
                if (get) {
                    peers.get(rank, local, pos, type.lengths[b], at, t.key, pending);
                } else {
                    peers.put(rank, local, pos, type.lengths[b], at, t.key, pending);
                }
                pos += type.lengths[b];
            }
        }
    }

    /**
     * Under the target's accumulate mutex: old content to {@code result}, then {@code target = in op target}.
     * Waits for it, or with {@code pending} starts its stages there ({@link WinAccumulate}: the same steps, each
     * started when the previous one's operations completed).
     */
    void readModifyWrite(final int rank, final long disp, final int count, final Datatype type,
                         final MemorySegment in, final Op op, final Span result, final int resultCount,
                         final Datatype resultType, final WinRequest pending) throws MPIException {
        if (pending != null) {
            target(rank, disp, count, type); // a range error now, not from a later stage
            new WinAccumulate(this, peers, rank, disp, count, type, in, op, result, resultCount, resultType)
                .start(pending);
            return;
        }
        inFlight.settle(comm.session.worker); // an rAccumulate of ours may hold the mutex
        lockMutex(rank);
        try {
            final MemorySegment target = read(rank, disp, count, type);
            if (result != null) {
                TypeCursor.unpack(target, 0, result, resultCount, resultType);
            }
            if (op.code != Reductions.NO_OP) {
                op.apply(in, 0, target, 0, count, type);
                write(rank, disp, count, type, target);
            }
        } finally {
            unlockMutex(rank);
        }
    }

    /** Under the target's accumulate mutex: the old element to {@code result}; {@code swap} if it was {@code expected}. */
    void compareAndSwap(final int rank, final long disp, final Datatype type, final MemorySegment swap,
                        final MemorySegment expected, final Span result) throws MPIException {
        inFlight.settle(comm.session.worker);
        lockMutex(rank);
        try {
            final MemorySegment old = read(rank, disp, 1, type);
            TypeCursor.unpack(old, 0, result, 1, type);
            if (old.mismatch(expected) < 0) {
                write(rank, disp, 1, type, swap);
            }
        } finally {
            unlockMutex(rank);
        }
    }

    private void lockMutex(final int rank) throws MPIException {
        for (int spins = 0; peers.compareSwap(rank, WinPeers.ACC_MUTEX, 0, 1) != 0; spins++) {
            backOff(spins);
        }
    }

    private void unlockMutex(final int rank) throws MPIException {
        peers.flush(rank);
        peers.fetchAdd(rank, WinPeers.ACC_MUTEX, -1);
    }

    /** Lets the worker progress while waiting for another rank (yielding after a few rounds). */
    void backOff(final int spins) {
        Progress.step(comm.session.worker, spins > 16 ? Integer.MAX_VALUE : 0);
    }

    /** A request for a request-based call on this window: stepped with the window's others in flight. */
    WinRequest newRequest() {
        return new WinRequest(comm.session.worker, inFlight);
    }

    /** {@code r} was started: it is stepped with the others until done. */
    void track(final WinRequest r) {
        inFlight.add(r);
    }

    /**
     * Every synchronization call begins here: request-based operations still in flight are completed (a flush,
     * unlock, fence or complete covers them as it covers put and get; their errors are reported by their
     * requests), and cached keys of dynamic regions are forgotten.
     */
    void synchronizing() {
        inFlight.settle(comm.session.worker);
        if (regions != null) {
            regions.drop();
        }
    }
}
