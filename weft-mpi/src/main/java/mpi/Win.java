package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;
import java.util.HashMap;
import java.util.Map;

/**
 * A window of memory other ranks read and write (MPI one-sided communication) on ucp put, get and atomics.
 * Synchronization: {@link #fence}, passive target ({@link #lock}/{@link #unlock}, {@link #lockAll}), and
 * post/start/complete/wait. Every data operation is complete at the target when it returns (so each
 * synchronization call has nothing left to wait for); the accumulate family ({@link #accumulate},
 * {@link #getAccumulate}, {@link #fetchAndOp}, {@link #compareAndSwap}) runs under the target's accumulate
 * mutex, so accumulates to the same location are atomic with respect to each other, as MPI requires.
 *
 * <p>A dynamic window ({@link #Win(Info, Comm)}) has no memory of its own: each rank {@link #attach}es and
 * {@link #detach}es regions of direct buffers, and origins name target data by absolute address
 * ({@link MPI#getAddress} at the target), passed as the {@code long} displacement of the data calls (Weft's
 * overloads: Open MPI's bindings take {@code int} displacements, too small for an address).
 *
 * <p>As for all of Weft's one-sided operations over tcp, a target serves remote operations when it calls
 * into MPI (any call that progresses its worker).
 *
 * <pre>{@code
 * IntBuffer mem = MPI.newIntBuffer(10);
 * Win win = new Win(mem, 10, 1, MPI.INFO_NULL, MPI.COMM_WORLD);   // displacements in ints
 * win.fence(0);
 * win.put(out, 1, MPI.INT, right, 3, 1, MPI.INT);                 // mem[3] at the right neighbour
 * win.fence(0);
 * win.free();
 * }</pre>
 */
public final class Win implements Freeable {
    public static final int WIN_NULL = 0;
    public static final int FLAVOR_PRIVATE = 0;
    public static final int FLAVOR_SHARED = 1;

    /** The window's own communicator (a dup: its synchronization messages never meet the program's). */
    private final Comm comm;
    private final WinPeers peers;
    private final WinAccess access;
    /** A dynamic window's attached regions, else null. */
    private final WinRegions regions;
    /** Passive-target locks this rank holds: target rank → shared (false) or exclusive (true). */
    private final Map<Integer, Boolean> locks = new HashMap<>();
    private Group startGroup;
    private Group postGroup;
    private Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    private final Attributes attributes = new Attributes();
    /** The address of this rank's window memory (the WIN_BASE attribute). */
    private final long base;
    private String name = "";
    private boolean freed;

    /**
     * Exposes {@code size} elements of the direct buffer {@code base} (collective over {@code comm});
     * displacements count {@code dispUnit} elements of the buffer's type.
     */
    public Win(final Buffer base, final int size, final int dispUnit, final Info info, final Comm comm)
        throws MPIException {
        if (!base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        final int scale = Span.scale(base);
        comm.checkLive();
        if (size < 0 || (long) size * scale > (long) base.capacity() * scale || dispUnit < 1) {
            throw comm.fail(new MPIException(MPI.ERR_SIZE, "a window of " + size + " elements (displacement unit "
                + dispUnit + ") over a buffer of " + base.capacity()));
        }
        this.comm = comm.dup();
        final MemorySegment memory = MemorySegment.ofBuffer(base.duplicate().clear()).asSlice(0, (long) size * scale);
        this.base = memory.address();
        try {
            this.peers = WinPeers.create(this.comm, memory, dispUnit * scale);
        } catch (final MPIException | RuntimeException e) {
            throw comm.fail(e);
        }
        this.regions = null;
        this.access = new WinAccess(this.comm, peers, null);
        this.errhandler = comm.errhandler;
    }

    /**
     * A window over the direct buffer {@code base} made for it (MPI_Win_allocate, {@link #FLAVOR_PRIVATE}, or
     * MPI_Win_allocate_shared, {@link #FLAVOR_SHARED}: the bindings have no call that maps another rank's
     * memory, so both are reached through the window's operations, shared memory underneath on one node).
     */
    public Win(final int size, final int dispUnit, final Info info, final Comm comm, final Buffer base,
               final int flavor) throws MPIException {
        this(flavoured(base, flavor), size, dispUnit, info, comm);
    }

    private static Buffer flavoured(final Buffer base, final int flavor) {
        if (flavor != FLAVOR_PRIVATE && flavor != FLAVOR_SHARED) {
            throw new IllegalArgumentException("unknown window flavor " + flavor);
        }
        return base;
    }

    /**
     * A dynamic window (MPI_Win_create_dynamic, collective over {@code comm}): no memory until each rank
     * {@link #attach}es some. Operations on it name target memory by absolute address: the target's
     * {@link MPI#getAddress} of the data, told to the origin by a message, passed as the {@code long}
     * displacement of {@link #put(Buffer, int, Datatype, int, long, int, Datatype)} and the other data calls.
     */
    public Win(final Info info, final Comm comm) throws MPIException {
        comm.checkLive();
        this.comm = comm.dup();
        this.regions = new WinRegions(comm.size);
        try {
            this.peers = WinPeers.create(this.comm, regions.table(), 1);
        } catch (final MPIException | RuntimeException e) {
            regions.close();
            throw comm.fail(e);
        }
        this.access = new WinAccess(this.comm, peers, regions);
        this.base = 0;
        this.errhandler = comm.errhandler;
    }

    // ------------------------------------------------------------------ data
    /** Most target blocks a request-based call keeps in flight; one with more completes before it returns. */
    static final long MAX_REQUEST_BLOCKS = 4096;

    // Each call has an int displacement form (Open MPI's) and a long one (Weft's: a dynamic window's absolute
    // addresses do not fit an int); on a window with memory both count displacement units.

    /** Writes {@code orgCount} elements of {@code origin} to {@code targetRank}'s window at {@code targetDisp}. */
    public void put(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                    final int targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        put(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #put} at a long displacement (a dynamic window's absolute address, see {@link MPI#getAddress}). */
    public void put(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                    final long targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        run(() -> {
            final MemorySegment packed = access.originData(o, orgCount, orgType, targetRank, targetCount, targetType);
            if (targetRank != MPI.PROC_NULL) {
                access.write(targetRank, targetDisp, targetCount, targetType, packed);
            }
        });
    }

    /** Reads {@code targetCount} elements at {@code targetDisp} of {@code targetRank}'s window into {@code origin}. */
    public void get(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                    final int targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        get(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #get} at a long displacement (a dynamic window's absolute address). */
    public void get(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                    final long targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        run(() -> {
            access.checkMatch(o, orgCount, orgType, targetRank, targetCount, targetType);
            if (targetRank != MPI.PROC_NULL) {
                final MemorySegment packed = access.read(targetRank, targetDisp, targetCount, targetType);
                TypeCursor.unpack(packed, 0, o, orgCount, orgType);
            }
        });
    }

    /** Combines {@code origin} into the target with {@code op} ({@code target = origin op target}), atomically. */
    public void accumulate(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                           final int targetDisp, final int targetCount, final Datatype targetType, final Op op)
        throws MPIException {
        accumulate(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType, op);
    }

    /** {@link #accumulate} at a long displacement (a dynamic window's absolute address). */
    public void accumulate(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                           final long targetDisp, final int targetCount, final Datatype targetType, final Op op)
        throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        run(() -> combine(o, orgCount, orgType, null, null, 0, null, targetRank, targetDisp, targetCount, targetType,
            op, null));
    }

    /** {@link #accumulate} that also returns the target's previous content in {@code resultAddr}. */
    public void getAccumulate(final Buffer origin, final int orgCount, final Datatype orgType,
                              final Buffer resultAddr, final int resultCount, final Datatype resultType,
                              final int targetRank, final int targetDisp, final int targetCount,
                              final Datatype targetType, final Op op) throws MPIException {
        getAccumulate(origin, orgCount, orgType, resultAddr, resultCount, resultType, targetRank, (long) targetDisp,
            targetCount, targetType, op);
    }

    /** {@link #getAccumulate} at a long displacement (a dynamic window's absolute address). */
    public void getAccumulate(final Buffer origin, final int orgCount, final Datatype orgType,
                              final Buffer resultAddr, final int resultCount, final Datatype resultType,
                              final int targetRank, final long targetDisp, final int targetCount,
                              final Datatype targetType, final Op op) throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        final Span res = Span.ofDirect(resultAddr, "result buffer");
        run(() -> combine(o, orgCount, orgType, resultAddr, res, resultCount, resultType, targetRank, targetDisp,
            targetCount, targetType, op, null));
    }

    /**
     * The accumulate family's body: checks the arguments, packs the origin and combines it into the target under
     * its accumulate mutex, the old content going to {@code res} unless it is null; waits for it, or with
     * {@code pending} starts its stages there.
     */
    private void combine(final Span o, final int orgCount, final Datatype orgType, final Buffer resultAddr,
                         final Span res, final int resultCount, final Datatype resultType, final int targetRank,
                         final long targetDisp, final int targetCount, final Datatype targetType, final Op op,
                         final WinRequest pending) throws MPIException {
        Args.checkOp(op, targetType);
        final MemorySegment in = access.originData(o, orgCount, orgType, targetRank, targetCount, targetType);
        if (res != null) {
            Args.data(resultAddr, resultCount, resultType);
        }
        if (targetRank != MPI.PROC_NULL) {
            access.readModifyWrite(targetRank, targetDisp, targetCount, targetType, in, op, res, resultCount,
                resultType, pending);
        }
    }

    /** One element: the target's old value goes to {@code resultAddr}, then {@code target = origin op target}. */
    public void fetchAndOp(final Buffer origin, final Buffer resultAddr, final Datatype dataType,
                           final int targetRank, final int targetDisp, final Op op) throws MPIException {
        fetchAndOp(origin, resultAddr, dataType, targetRank, (long) targetDisp, op);
    }

    /** {@link #fetchAndOp} at a long displacement (a dynamic window's absolute address). */
    public void fetchAndOp(final Buffer origin, final Buffer resultAddr, final Datatype dataType,
                           final int targetRank, final long targetDisp, final Op op) throws MPIException {
        getAccumulate(origin, 1, dataType, resultAddr, 1, dataType, targetRank, targetDisp, 1, dataType, op);
    }

    /**
     * One element: if the target equals {@code compareAddr} it becomes {@code origin}; the old value goes to
     * {@code resultAddr}.
     */
    public void compareAndSwap(final Buffer origin, final Buffer compareAddr, final Buffer resultAddr,
                               final Datatype targetType, final int targetRank, final int targetDisp)
        throws MPIException {
        compareAndSwap(origin, compareAddr, resultAddr, targetType, targetRank, (long) targetDisp);
    }

    /** {@link #compareAndSwap} at a long displacement (a dynamic window's absolute address). */
    public void compareAndSwap(final Buffer origin, final Buffer compareAddr, final Buffer resultAddr,
                               final Datatype targetType, final int targetRank, final long targetDisp)
        throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        final Span cmp = Span.ofDirect(compareAddr, "compare buffer");
        final Span res = Span.ofDirect(resultAddr, "result buffer");
        run(() -> {
            final MemorySegment swap = access.originData(o, 1, targetType, targetRank, 1, targetType);
            final MemorySegment expected = Coll.packed(Args.data(compareAddr, 1, targetType), 1, targetType);
            Args.data(resultAddr, 1, targetType);
            if (targetRank != MPI.PROC_NULL) {
                access.compareAndSwap(targetRank, targetDisp, targetType, swap, expected, res);
            }
        });
    }

    /**
     * {@link #put} returning a request, which completes once {@code origin} may be reused (the data reach the
     * target by the next flush, unlock or fence, as with {@code put}). A contiguous origin is read in place:
     * leave it untouched until then.
     */
    public Request rPut(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                        final int targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        return rPut(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #rPut} at a long displacement (a dynamic window's absolute address). */
    public Request rPut(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                        final long targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        return start(targetRank, targetCount, targetType, pending -> {
            access.checkMatch(o, orgCount, orgType, targetRank, targetCount, targetType);
            if (targetRank != MPI.PROC_NULL) {
                final MemorySegment data = orgType.contiguous
                    ? o.segment.asSlice(o.origin, (long) orgCount * orgType.size) : Coll.packed(o, orgCount, orgType);
                access.transfer(targetRank, targetDisp, targetCount, targetType, data, false, pending);
            }
        });
    }

    /**
     * {@link #get} returning a request, which completes once the data are in {@code origin}: gets to several
     * targets, or several gets to one, overlap.
     *
     * <pre>{@code
     * win.lockAll(0);
     * Request[] r = new Request[n];
     * for (int t = 0; t < n; t++) {
     *     r[t] = win.rGet(MPI.slice(in, t * k), k, MPI.LONG, t, 0, k, MPI.LONG);
     * }
     * Request.waitAll(r);
     * win.unlockAll();
     * }</pre>
     */
    public Request rGet(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                        final int targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        return rGet(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #rGet} at a long displacement (a dynamic window's absolute address). */
    public Request rGet(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                        final long targetDisp, final int targetCount, final Datatype targetType) throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        return start(targetRank, targetCount, targetType, pending -> {
            access.checkMatch(o, orgCount, orgType, targetRank, targetCount, targetType);
            if (targetRank == MPI.PROC_NULL) {
                return;
            }
            final long bytes = (long) orgCount * orgType.size;
            if (orgType.contiguous) {
                access.transfer(targetRank, targetDisp, targetCount, targetType, o.segment.asSlice(o.origin, bytes),
                    true, pending);
                return;
            }
            final MemorySegment packed = Coll.scratch(bytes);
            access.transfer(targetRank, targetDisp, targetCount, targetType, packed, true, pending);
            if (pending != null) {
                pending.then(r -> TypeCursor.unpack(packed, 0, o, orgCount, orgType));
            } else {
                TypeCursor.unpack(packed, 0, o, orgCount, orgType);
            }
        });
    }

    /** A request-based call's body: starts its remote operations into {@code pending}, or (null) waits for them. */
    private interface RmaStart {
        void run(WinRequest pending) throws MPIException;
    }

    /**
     * Runs a request-based call: its remote operations are all started before it returns, one per target block,
     * unless there are more than {@link #MAX_REQUEST_BLOCKS} (then the call waits for them and returns a
     * completed request), or the target is PROC_NULL.
     */
    private Request start(final int targetRank, final int targetCount, final Datatype targetType,
                          final RmaStart body) throws MPIException {
        final WinRequest pending = targetRank != MPI.PROC_NULL && targetCount > 0 && targetType != null
            && (long) targetCount * targetType.offsets.length <= MAX_REQUEST_BLOCKS ? access.newRequest() : null;
        run(() -> {
            try {
                body.run(pending);
            } catch (final MPIException | RuntimeException e) {
                if (pending != null) {
                    pending.release(); // what was started still finishes
                }
                throw e;
            }
        });
        if (pending == null) {
            return Request.completed(comm, Status.empty());
        }
        access.track(pending);
        final Request r = new Request(comm);
        r.started(Request.RMA, pending, null, 0);
        return r;
    }

    /**
     * {@link #accumulate} returning a request: its stages (take the target's accumulate mutex, read, combine,
     * write, release) run as the request is tested or waited for, or at the next synchronization call.
     */
    public Request rAccumulate(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                               final int targetDisp, final int targetCount, final Datatype targetType, final Op op)
        throws MPIException {
        return rAccumulate(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType, op);
    }

    /** {@link #rAccumulate} at a long displacement (a dynamic window's absolute address). */
    public Request rAccumulate(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
                               final long targetDisp, final int targetCount, final Datatype targetType, final Op op)
        throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        return start(targetRank, targetCount, targetType, pending -> combine(o, orgCount, orgType, null, null, 0, null,
            targetRank, targetDisp, targetCount, targetType, op, pending));
    }

    /** {@link #getAccumulate} returning a request, in stages as {@link #rAccumulate}. */
    public Request rGetAccumulate(final Buffer origin, final int orgCount, final Datatype orgType,
                                  final Buffer resultAddr, final int resultCount, final Datatype resultType,
                                  final int targetRank, final int targetDisp, final int targetCount,
                                  final Datatype targetType, final Op op) throws MPIException {
        return rGetAccumulate(origin, orgCount, orgType, resultAddr, resultCount, resultType, targetRank,
            (long) targetDisp, targetCount, targetType, op);
    }

    /** {@link #rGetAccumulate} at a long displacement (a dynamic window's absolute address). */
    public Request rGetAccumulate(final Buffer origin, final int orgCount, final Datatype orgType,
                                  final Buffer resultAddr, final int resultCount, final Datatype resultType,
                                  final int targetRank, final long targetDisp, final int targetCount,
                                  final Datatype targetType, final Op op) throws MPIException {
        final Span o = Span.ofDirect(origin, "origin");
        final Span res = Span.ofDirect(resultAddr, "result buffer");
        return start(targetRank, targetCount, targetType, pending -> combine(o, orgCount, orgType, resultAddr, res,
            resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op, pending));
    }

    // ------------------------------------------------------------------ synchronization

    /** Ends an access and exposure epoch on every rank: collective over the window's group. */
    public void fence(final int assertion) throws MPIException {
        run(() -> {
            access.synchronizing();
            peers.flush(-1);
            Collectives.barrier(comm).run();
        });
    }

    /** Starts an access epoch to the ranks of {@code group}: waits until each has posted (PSCW). */
    public void start(final Group group, final int assertion) throws MPIException {
        run(() -> {
            final int[] targets = ranksOf(group);
            for (final int t : targets) {
                comm.recv(new byte[0], 0, MPI.BYTE, t, 1);
            }
            startGroup = group;
        });
    }

    /** Ends the access epoch of {@link #start}: tells each target this rank is done. */
    public void complete() throws MPIException {
        run(() -> {
            if (startGroup == null) {
                throw new MPIException(MPI.ERR_RMA_SYNC, "complete() without start()");
            }
            access.synchronizing();
            peers.flush(-1);
            for (final int t : ranksOf(startGroup)) {
                comm.send(new byte[0], 0, MPI.BYTE, t, 2);
            }
            startGroup = null;
        });
    }

    /** Starts an exposure epoch for the ranks of {@code group} (PSCW). */
    public void post(final Group group, final int assertion) throws MPIException {
        run(() -> {
            for (final int o : ranksOf(group)) {
                comm.send(new byte[0], 0, MPI.BYTE, o, 1);
            }
            postGroup = group;
        });
    }

    /** Ends the exposure epoch of {@link #post}: waits until every origin completed. */
    public void waitFor() throws MPIException {
        run(() -> {
            if (postGroup == null) {
                throw new MPIException(MPI.ERR_RMA_SYNC, "waitFor() without post()");
            }
            for (final int o : ranksOf(postGroup)) {
                comm.recv(new byte[0], 0, MPI.BYTE, o, 2);
            }
            postGroup = null;
        });
    }

    /** True, ending the exposure epoch, if every origin completed; false otherwise. */
    public boolean test() throws MPIException {
        final boolean[] done = {true};
        run(() -> {
            if (postGroup == null) {
                throw new MPIException(MPI.ERR_RMA_SYNC, "test() without post()");
            }
            for (final int o : ranksOf(postGroup)) {
                done[0] &= comm.iProbe(o, 2) != null;
            }
        });
        if (done[0]) {
            waitFor();
        }
        return done[0];
    }

    /** Locks {@code rank}'s window ({@link MPI#LOCK_SHARED} or {@link MPI#LOCK_EXCLUSIVE}; passive target). */
    public void lock(final int lockType, final int rank, final int assertion) throws MPIException {
        run(() -> {
            if (lockType != MPI.LOCK_SHARED && lockType != MPI.LOCK_EXCLUSIVE) {
                throw new MPIException(MPI.ERR_LOCKTYPE, "unknown lock type " + lockType);
            }
            access.checkRank(rank);
            if (locks.containsKey(rank)) {
                throw new MPIException(MPI.ERR_RMA_SYNC, "rank " + rank + " is already locked by this rank");
            }
            final boolean exclusive = lockType == MPI.LOCK_EXCLUSIVE;
            for (int spins = 0; ; spins++) {
                if (exclusive ? peers.compareSwap(rank, WinPeers.LOCK_WORD, 0, WinPeers.EXCLUSIVE) == 0
                    : tryShared(rank)) {
                    break;
                }
                access.backOff(spins);
            }
            locks.put(rank, exclusive);
        });
    }

    private boolean tryShared(final int rank) throws MPIException {
        if (peers.fetchAdd(rank, WinPeers.LOCK_WORD, 1) >= 0) {
            return true;
        }
        peers.fetchAdd(rank, WinPeers.LOCK_WORD, -1);
        return false;
    }

    /** Completes this rank's operations at {@code rank} and releases its lock. */
    public void unlock(final int rank) throws MPIException {
        run(() -> {
            final Boolean exclusive = locks.remove(rank);
            if (exclusive == null) {
                throw new MPIException(MPI.ERR_RMA_SYNC, "rank " + rank + " is not locked by this rank");
            }
            access.synchronizing();
            peers.flush(rank);
            peers.fetchAdd(rank, WinPeers.LOCK_WORD, exclusive ? -WinPeers.EXCLUSIVE : -1);
        });
    }

    /** A shared lock on every rank's window. */
    public void lockAll(final int assertion) throws MPIException {
        for (int r = 0; r < comm.size; r++) {
            lock(MPI.LOCK_SHARED, r, assertion);
        }
    }

    /** Releases the locks of {@link #lockAll}. */
    public void unlockAll() throws MPIException {
        for (int r = 0; r < comm.size; r++) {
            unlock(r);
        }
    }

    /** Completes every operation of this rank at {@code targetRank}. */
    public void flush(final int targetRank) throws MPIException {
        run(() -> {
            access.checkRank(targetRank);
            access.synchronizing();
            peers.flush(targetRank);
        });
    }

    /** Completes every operation of this rank. */
    public void flushAll() throws MPIException {
        run(() -> {
            access.synchronizing();
            peers.flush(-1);
        });
    }

    /** Local completion at {@code targetRank}: operations are complete when they return. */
    public void flushLocal(final int targetRank) throws MPIException {
        flush(targetRank);
    }

    /** Local completion everywhere: operations are complete when they return. */
    public void flushLocalAll() throws MPIException {
        flushAll();
    }

    /** Makes the window's memory consistent with its copy: there is one copy, so nothing to do. */
    public void sync() throws MPIException {
        comm.checkLive();
    }

    /**
     * Attaches {@code size} elements of the direct buffer {@code base} to this rank's part of a dynamic
     * window (not collective): other ranks reach them at the addresses {@link MPI#getAddress} gives here.
     */
    public void attach(final Buffer base, final int size) throws MPIException {
        final MemorySegment memory = region(base);
        run(() -> {
            if (size < 0 || (long) size > base.capacity()) {
                throw new MPIException(MPI.ERR_SIZE, "attach of " + size + " elements of a buffer of "
                    + base.capacity());
            }
            dynamicOnly("attach").attach(comm.session.job.context(), memory.asSlice(0,
                (long) size * Span.scale(base)));
        });
    }

    /** Detaches the region attached at {@code base} (not collective): other ranks must not reach it any more. */
    public void detach(final Buffer base) throws MPIException {
        final MemorySegment memory = region(base);
        run(() -> dynamicOnly("detach").detach(memory.address()));
    }

    private static MemorySegment region(final Buffer base) {
        if (base == null || !base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        return MemorySegment.ofBuffer(base.duplicate().clear());
    }

    private WinRegions dynamicOnly(final String what) throws MPIException {
        if (regions == null) {
            throw new MPIException(MPI.ERR_RMA_FLAVOR, what + " on a window that is not dynamic");
        }
        return regions;
    }

    // ------------------------------------------------------------------ the window object

    /** The group of the window's ranks. */
    public Group getGroup() throws MPIException {
        comm.checkLive();
        return comm.group;
    }

    /** Frees the window (collective): every rank's operations are complete, keys and registrations released. */
    public void free() throws MPIException {
        run(() -> {
            if (!locks.isEmpty()) {
                throw new MPIException(MPI.ERR_RMA_SYNC, "free() while holding locks on ranks " + locks.keySet());
            }
            access.synchronizing();
            peers.flush(-1);
            Collectives.barrier(comm).run();
            freed = true;
            peers.close();
            if (regions != null) {
                regions.close();
            }
            comm.free();
        });
    }

    /** Sets what errors on this window do. */
    public void setErrhandler(final Errhandler errhandler) throws MPIException {
        this.errhandler = errhandler;
    }

    /** The window's error handler. */
    public Errhandler getErrhandler() throws MPIException {
        return errhandler;
    }

    /** Raises {@code errorCode} through the window's handler (the fatal one ends the job; ERRORS_RETURN returns). */
    public void callErrhandler(final int errorCode) throws MPIException {
        // the fatal handler ends the job; MPI_ERRORS_RETURN's handler returns, and so does this call
        fail(new MPIException(errorCode, "error " + errorCode + " raised by callErrhandler"));
    }

    /** A new attribute key. */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    /** Frees an attribute key. */
    public static void freeKeyval(final int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    /** Stores {@code value} under a key from {@link #createKeyval}. */
    public void setAttr(final int keyval, final Object value) throws MPIException {
        run(() -> attributes.set(keyval, value));
    }

    /**
     * The value of an attribute: {@link MPI#WIN_BASE} (the memory's address, a Long), {@link MPI#WIN_SIZE} and
     * {@link MPI#WIN_DISP_UNIT} (bytes, Integers), or a user key's value (null if unset).
     */
    public Object getAttr(final int keyval) throws MPIException {
        final Object[] v = new Object[1];
        run(() -> v[0] = switch (keyval) {
            case MPI.WIN_BASE -> base;
            case MPI.WIN_SIZE -> regions != null ? 0 : (int) peers.size(comm.rank);
            case MPI.WIN_DISP_UNIT -> peers.dispUnit(comm.rank);
            default -> attributes.getUser(keyval);
        });
        return v[0];
    }

    /** Removes an attribute. */
    public void deleteAttr(final int keyval) throws MPIException {
        run(() -> attributes.delete(keyval));
    }

    /** Sets the window's name. */
    public void setName(final String winName) throws MPIException {
        name = winName;
    }

    /** The window's name. */
    public String getName() throws MPIException {
        return name;
    }

    /** Hints are accepted and ignored. */
    public void setInfo(final Info info) throws MPIException {
        comm.checkLive();
    }

    /** An empty info object. */
    public Info getInfo() throws MPIException {
        return new Info();
    }

    // ------------------------------------------------------------------ internal

    private void run(final Schedule.Step body) throws MPIException {
        if (freed) {
            throw fail(new MPIException(MPI.ERR_WIN, "the window was freed"));
        }
        try {
            comm.checkLive();
            body.run();
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    private MPIException fail(final Exception e) {
        final Errhandler saved = comm.errhandler;
        comm.errhandler = errhandler;
        try {
            return comm.fail(e);
        } finally {
            comm.errhandler = saved;
        }
    }

    private int[] ranksOf(final Group g) throws MPIException {
        final int[] r = new int[g.members.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = comm.group.indexOf(g.members[i]);
            if (r[i] < 0) {
                throw new MPIException(MPI.ERR_GROUP, "job rank " + g.members[i] + " is not in the window's group");
            }
        }
        return r;
    }
}
