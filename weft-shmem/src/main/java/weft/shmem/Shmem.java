package weft.shmem;

import weft.runtime.Runtime;
import weft.ucp.ThreadMode;
import weft.ucs.config.Config;

import java.lang.foreign.MemorySegment;

/**
 * OpenSHMEM for Java: one instance per PE (process) of a job started by {@code weft run}, {@code mpirun}
 * (PMIx) or {@code srun}. Every C routine maps by one rule: drop {@code shmem_}, write the rest in
 * lowerCamelCase, call it on this instance; out-parameters become return values and {@code SHMEM_*}
 * constants are {@code Shmem.*} constants.
 *
 * <pre>{@code
 * try (Shmem shmem = Shmem.init()) {                       // shmem_init; close() = shmem_finalize
 *     int me = shmem.myPe(), n = shmem.nPes();
 *     MemorySegment x = shmem.malloc(8);                    // symmetric: the same address on every PE
 *     shmem.longP(x, me, (me + 1) % n);                     // shmem_long_p
 *     shmem.barrierAll();
 *     long left = x.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
 *     shmem.free(x);
 * }
 * }</pre>
 *
 * <p>The symmetric heap is one mapping of {@code SHMEM_SYMMETRIC_SIZE} (or {@code WEFT_SYMMETRIC_SIZE}, default
 * 256 MiB) bytes at the same address on every PE; {@link #malloc}, {@link #calloc}, {@link #align},
 * {@link #realloc} and {@link #free} are collective over the world and check that every PE made the same
 * call (a mismatch is an {@link IllegalStateException} on every PE, and the heap stays as it was). Endpoints
 * to other PEs are connected the first time a PE is addressed.
 *
 * <p>Thread levels map to the worker's {@link ThreadMode}: SINGLE and FUNNELED → SINGLE (the initializing
 * thread), SERIALIZED → SERIALIZED, MULTIPLE → MULTI.
 */
public final class Shmem extends ShmemCollectives implements AutoCloseable {
    /** Thread levels ({@code SHMEM_THREAD_*}). */
    public static final int THREAD_SINGLE = 0;
    public static final int THREAD_FUNNELED = 1;
    public static final int THREAD_SERIALIZED = 2;
    public static final int THREAD_MULTIPLE = 3;
    /** Comparisons of the waits and tests ({@code SHMEM_CMP_*}). */
    public static final int CMP_EQ = 0;
    public static final int CMP_NE = 1;
    public static final int CMP_GT = 2;
    public static final int CMP_GE = 3;
    public static final int CMP_LT = 4;
    public static final int CMP_LE = 5;
    /** Signal operators of put-with-signal ({@code SHMEM_SIGNAL_*}). */
    public static final int SIGNAL_SET = 0;
    public static final int SIGNAL_ADD = 1;
    /** Context options ({@code SHMEM_CTX_*}). */
    public static final long CTX_SERIALIZED = 1;
    public static final long CTX_PRIVATE = 2;
    public static final long CTX_NOSTORE = 4;
    /** Hints of {@link #mallocWithHints} ({@code SHMEM_MALLOC_*}). */
    public static final long MALLOC_ATOMICS_REMOTE = 1;
    public static final long MALLOC_SIGNAL_REMOTE = 2;
    /** The specification this library implements ({@code SHMEM_MAJOR_VERSION}, {@code SHMEM_MINOR_VERSION}). */
    public static final int MAJOR_VERSION = 1;
    public static final int MINOR_VERSION = 5;
    /** {@code SHMEM_VENDOR_STRING}. */
    public static final String VENDOR_STRING = "Weft OpenSHMEM (weft.shmem, on weft.ucp)";
    /** All PEs of the job. */
    public static final ShmemTeam TEAM_WORLD = ShmemTeam.handle("TEAM_WORLD");
    /** The PEs of this PE's node. */
    public static final ShmemTeam TEAM_SHARED = ShmemTeam.handle("TEAM_SHARED");
    /** No team: what a team split returns to PEs outside the new team. */
    public static final ShmemTeam TEAM_INVALID = ShmemTeam.handle("TEAM_INVALID");

    private static Shmem current;

    private final Runtime runtime;
    private final UcpPeers peers;
    private final SymmetricHeap heap;
    private final int threadLevel;
    private final Allocations allocations;
    private final Locks locks;
    private final long finalizeTimeoutNs;
    private int initCount = 1;
    private boolean closed;

    private Shmem(final Runtime runtime, final UcpPeers peers, final SymmetricHeap heap, final OneSided ops,
                  final PointSync sync, final Collectives coll, final Teams teams, final int threadLevel) {
        super(ops, sync, coll, teams);
        this.runtime = runtime;
        this.peers = peers;
        this.heap = heap;
        this.threadLevel = threadLevel;
        this.allocations = new Allocations(ops, coll, teams.world());
        this.locks = new Locks(ops, sync);
        this.finalizeTimeoutNs = Config.global().get(ShmemConfig.FINALIZE_TIMEOUT);
    }

    /** {@code shmem_init}: joins the job at {@link #THREAD_SINGLE}. See {@link #initThread}. */
    public static Shmem init() {
        return initThread(THREAD_SINGLE);
    }

    /**
     * {@code shmem_init_thread}: joins the job (collective over all PEs) and returns the instance; the level
     * provided is {@link #queryThread()}. A second call returns the same instance, which then needs one more
     * {@link #close()} (1.6: init and finalize may be called several times).
     *
     * @throws IllegalArgumentException for an unknown level or a bad {@code SHMEM_SYMMETRIC_SIZE}
     * @throws weft.ucs.WeftException when the job cannot be joined or the heap cannot be mapped
     */
    public static synchronized Shmem initThread(final int requested) {
        if (requested < THREAD_SINGLE || requested > THREAD_MULTIPLE) {
            throw new IllegalArgumentException("unknown thread level " + requested
                + " (Shmem.THREAD_SINGLE, THREAD_FUNNELED, THREAD_SERIALIZED or THREAD_MULTIPLE)");
        }
        if (current != null) {
            current.initCount++;
            return current;
        }
        final Config config = Config.global();
        final long size = ShmemConfig.symmetricSize(System::getenv, config, Collectives.SERVICE_BYTES + 4096);
        final ThreadMode mode = requested == THREAD_MULTIPLE ? ThreadMode.MULTI
            : requested == THREAD_SERIALIZED ? ThreadMode.SERIALIZED : ThreadMode.SINGLE;
        final Runtime rt = Runtime.init(config);
        UcpPeers peers = null;
        SymmetricHeap heap = null;
        try {
            peers = UcpPeers.open(rt, mode);
            heap = new SymmetricHeap(peers, size, Collectives.SERVICE_BYTES);
            final OneSided ops = new OneSided(peers, heap);
            final PointSync sync = new PointSync(ops, ShmemConfig.waitSpins(config.get(ShmemConfig.WAIT_SPINS), rt.localSize()),
                ShmemConfig.blockAfterNs(config.get(ShmemConfig.WAIT_BLOCK_AFTER), rt.localSize()));
            final Collectives coll = new Collectives(ops, sync, new Collectives.Tuning(config.get(ShmemConfig.BCAST_RADIX),
                config.get(ShmemConfig.COLLECT_RING_BYTES), config.get(ShmemConfig.REDUCE_RING_BYTES)));
            final int[] nodes = nodes(rt);
            final Teams teams = new Teams(coll, rt.size(), rt.rank(), nodes);
            final Shmem s = new Shmem(rt, peers, heap, ops, sync, coll, teams, requested);
            rt.barrier(); // every PE's slots are reset before anyone signals into them
            current = s;
            return s;
        } catch (final RuntimeException e) {
            if (heap != null) {
                heap.close();
            }
            if (peers != null) {
                peers.close();
            }
            rt.close();
            throw e;
        }
    }

    private static int[] nodes(final Runtime rt) {
        final byte[][] all = rt.allgather(new byte[] {(byte) (rt.nodeId() >>> 24), (byte) (rt.nodeId() >>> 16),
            (byte) (rt.nodeId() >>> 8), (byte) rt.nodeId()});
        final int[] nodes = new int[all.length];
        for (int i = 0; i < all.length; i++) {
            nodes[i] = (all[i][0] & 0xFF) << 24 | (all[i][1] & 0xFF) << 16 | (all[i][2] & 0xFF) << 8 | all[i][3] & 0xFF;
        }
        return nodes;
    }

    /**
     * The initialized instance, for library code that is not handed one.
     *
     * @throws IllegalStateException before {@link #init()} or after the last {@link #close()}
     */
    public static synchronized Shmem current() {
        if (current == null) {
            throw new IllegalStateException("OpenSHMEM is not initialized: call Shmem.init() first");
        }
        return current;
    }

    /** {@code shmem_query_initialized} (1.6): true between init and the last finalize. */
    public static synchronized boolean queryInitialized() {
        return current != null;
    }

    /** {@code shmem_query_thread}: the thread level provided. */
    public int queryThread() {
        return threadLevel;
    }

    /** {@code shmem_my_pe}. */
    public int myPe() {
        return ops.rank();
    }

    /** {@code shmem_n_pes}. */
    public int nPes() {
        return ops.size();
    }

    /** {@code shmem_pe_accessible}: true for every PE of the job (all are reachable). */
    public boolean peAccessible(final int pe) {
        return pe >= 0 && pe < nPes();
    }

    /** {@code shmem_addr_accessible}: true if {@code addr} is symmetric and {@code pe} is a PE of the job. */
    public boolean addrAccessible(final MemorySegment addr, final int pe) {
        if (!peAccessible(pe) || !addr.isNative()) {
            return false;
        }
        final long off = addr.address() - heap.base();
        return off >= 0 && off < heap.size();
    }

    /**
     * {@code shmem_ptr}: {@code dest} (symmetric) of {@code pe} as local memory that loads and stores reach
     * directly, or null when {@code pe} is not mapped here (another node, or tcp only).
     */
    public MemorySegment ptr(final MemorySegment dest, final int pe) {
        ops.checkPe(pe);
        final long off = heap.offsetOf(dest, 0, "the address");
        final MemorySegment m = ops.direct(pe);
        return m == null ? null : m.asSlice(off, Math.min(dest.byteSize(), heap.size() - off));
    }

    /** {@code shmem_team_ptr} (1.6): {@link #ptr} with {@code pe} numbered in {@code team}. */
    public MemorySegment teamPtr(final ShmemTeam team, final MemorySegment dest, final int pe) {
        return ptr(dest, teams.resolve(team).worldPe(pe));
    }

    /** {@code shmem_info_get_version}: {major, minor}. */
    public int[] infoGetVersion() {
        return new int[] {MAJOR_VERSION, MINOR_VERSION};
    }

    /** {@code shmem_info_get_name}: {@link #VENDOR_STRING}. */
    public String infoGetName() {
        return VENDOR_STRING;
    }

    // ------------------------------------------------------------------ memory management

    /** {@code shmem_malloc}: {@code size} symmetric bytes (null for 0 or when the heap is full). Collective. */
    public MemorySegment malloc(final long size) {
        return allocations.allocate("malloc", size, 0, false);
    }

    /** {@code shmem_malloc_with_hints} (1.5): as {@link #malloc}; the hints do not change the placement here. */
    public MemorySegment mallocWithHints(final long size, final long hints) {
        if ((hints & ~(MALLOC_ATOMICS_REMOTE | MALLOC_SIGNAL_REMOTE)) != 0) {
            throw new IllegalArgumentException("unknown malloc hints 0x" + Long.toHexString(hints));
        }
        return allocations.allocate("mallocWithHints", size, 0, false);
    }

    /** {@code shmem_calloc}: {@code count * size} zeroed symmetric bytes, or null. Collective. */
    public MemorySegment calloc(final long count, final long size) {
        if (count < 0 || size < 0) {
            throw new IllegalArgumentException("negative calloc arguments " + count + ", " + size);
        }
        return allocations.allocate("calloc", Math.multiplyExact(count, size), 0, true);
    }

    /** {@code shmem_align}: {@code size} symmetric bytes aligned to {@code alignment} (a power of two), or null. */
    public MemorySegment align(final long alignment, final long size) {
        if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
            throw new IllegalArgumentException("alignment " + alignment + " is not a power of two");
        }
        return allocations.allocate("align", size, alignment, false);
    }

    /**
     * {@code shmem_realloc}: the block resized (in place when the space after it is free, else moved with its
     * contents); null (the old block kept) when the heap cannot hold it. Collective.
     */
    public MemorySegment realloc(final MemorySegment ptr, final long size) {
        return allocations.realloc(ptr, size);
    }

    /** {@code shmem_free}: returns a block from malloc/calloc/align/realloc (null: nothing). Collective. */
    public void free(final MemorySegment ptr) {
        allocations.free(ptr);
    }

    /** Bytes of the symmetric heap in use by live allocations (rounded to the allocator's granule). */
    public long heapUsed() {
        return heap.allocator().usedBytes();
    }

    // ------------------------------------------------------------------ synchronization and collectives

    /** {@code shmem_barrier_all}: completes this PE's operations, then waits for every PE. */
    public void barrierAll() {
        coll.quietBarrier(teams.world());
    }

    /** {@code shmem_sync_all}: waits for every PE (no completion of operations). */
    public void syncAll() {
        coll.barrier(teams.world());
    }

    /** {@code shmem_team_sync}: waits for every member of {@code team}. */
    public void teamSync(final ShmemTeam team) {
        coll.barrier(teams.resolve(team));
    }

    /** {@code shmem_sync} (team form): the same as {@link #teamSync}. */
    public void sync(final ShmemTeam team) {
        teamSync(team);
    }

    /** {@code shmem_broadcastmem}: {@code nelems} bytes of the root's {@code source} to every member's {@code dest}. */
    public void broadcastmem(final ShmemTeam team, final MemorySegment dest, final MemorySegment source,
                             final long nelems, final int peRoot) {
        coll.broadcast(teams.resolve(team), dest, source, bytes(nelems, 1), peRoot);
    }

    /** {@code shmem_collectmem}: members' {@code source} blocks (sizes may differ) concatenated in {@code dest}. */
    public void collectmem(final ShmemTeam team, final MemorySegment dest, final MemorySegment source,
                           final long nelems) {
        coll.collect(teams.resolve(team), dest, source, bytes(nelems, 1));
    }

    /** {@code shmem_fcollectmem}: members' {@code nelems}-byte {@code source} blocks concatenated in {@code dest}. */
    public void fcollectmem(final ShmemTeam team, final MemorySegment dest, final MemorySegment source,
                            final long nelems) {
        coll.fcollect(teams.resolve(team), dest, source, bytes(nelems, 1));
    }

    /** {@code shmem_alltoallmem}: block j of my {@code source} to block (my index) of member j's {@code dest}. */
    public void alltoallmem(final ShmemTeam team, final MemorySegment dest, final MemorySegment source,
                            final long nelems) {
        coll.alltoall(teams.resolve(team), dest, source, bytes(nelems, 1));
    }

    /** {@code shmem_alltoallsmem}: the strided alltoall on bytes (strides in bytes). */
    public void alltoallsmem(final ShmemTeam team, final MemorySegment dest, final MemorySegment source,
                             final long dst, final long sst, final long nelems) {
        coll.alltoalls(teams.resolve(team), dest, source, dst, sst, nelems, 1);
    }

    // ------------------------------------------------------------------ teams

    /** {@code shmem_team_my_pe}: this PE's number in {@code team} (-1 for {@link #TEAM_INVALID}). */
    public int teamMyPe(final ShmemTeam team) {
        return team == TEAM_INVALID ? -1 : teams.resolve(team).me;
    }

    /** {@code shmem_team_n_pes}: the team's size (-1 for {@link #TEAM_INVALID}). */
    public int teamNPes(final ShmemTeam team) {
        return team == TEAM_INVALID ? -1 : teams.resolve(team).size();
    }

    /** {@code shmem_team_get_config}: the team's configuration (the fields {@code mask} selects). */
    public ShmemTeamConfig teamGetConfig(final ShmemTeam team, final long mask) {
        return ShmemTeamConfig.masked(teams.resolve(team).config, mask);
    }

    /** {@code shmem_team_translate_pe}: {@code srcPe} of {@code srcTeam} numbered in {@code destTeam}, or -1. */
    public int teamTranslatePe(final ShmemTeam srcTeam, final int srcPe, final ShmemTeam destTeam) {
        if (srcTeam == TEAM_INVALID || destTeam == TEAM_INVALID) {
            return -1;
        }
        final ShmemTeam s = teams.resolve(srcTeam);
        if (srcPe < 0 || srcPe >= s.size()) {
            return -1;
        }
        return teams.resolve(destTeam).indexOf(s.pes[srcPe]);
    }

    /**
     * {@code shmem_team_split_strided}: the team of {@code parent}'s PEs {@code start, start + stride, ...}
     * ({@code size} of them; a negative stride counts down). Collective over {@code parent}.
     *
     * @return the new team, or {@link #TEAM_INVALID} on a PE outside it
     * @throws IllegalArgumentException when the PEs are not all in the parent (or repeat)
     * @throws IllegalStateException when no team slot is free (too many live teams)
     */
    public ShmemTeam teamSplitStrided(final ShmemTeam parent, final int start, final int stride, final int size,
                                      final ShmemTeamConfig config, final long configMask) {
        final ShmemTeam p = teams.resolve(parent);
        final long last = start + (long) stride * (size - 1);
        if (size < 1 || start < 0 || start >= p.size() || last < 0 || last >= p.size() || (stride == 0 && size > 1)) {
            throw new IllegalArgumentException("teamSplitStrided(start " + start + ", stride " + stride + ", size " + size
                + ") does not select distinct PEs of a team of " + p.size());
        }
        int[] members = null;
        final int rel = p.me - start;
        if (stride == 0 ? rel == 0 : rel % stride == 0 && rel / stride >= 0 && rel / stride < size) {
            members = new int[size];
            for (int i = 0; i < size; i++) {
                members[i] = start + i * stride;
            }
        }
        return teams.create(p, members, ShmemTeamConfig.masked(config, configMask), "split" + start + ":" + stride
            + ":" + size);
    }

    /**
     * {@code shmem_team_split_2d}: {@code parent} as a grid of rows of {@code xrange} PEs; returns {x team (my
     * row), y team (my column)}. Collective over {@code parent}.
     */
    public ShmemTeam[] teamSplit2d(final ShmemTeam parent, final int xrange, final ShmemTeamConfig xconfig,
                                   final long xmask, final ShmemTeamConfig yconfig, final long ymask) {
        final ShmemTeam p = teams.resolve(parent);
        if (xrange < 1) {
            throw new IllegalArgumentException("xrange must be >= 1, got " + xrange);
        }
        final int x = Math.min(xrange, p.size());
        final int row = p.me / x;
        final int col = p.me % x;
        final int[] rowMembers = new int[Math.min(x, p.size() - row * x)];
        for (int i = 0; i < rowMembers.length; i++) {
            rowMembers[i] = row * x + i;
        }
        final int[] colMembers = new int[(p.size() - col + x - 1) / x];
        for (int i = 0; i < colMembers.length; i++) {
            colMembers[i] = col + i * x;
        }
        final ShmemTeam xt = teams.create(p, rowMembers, ShmemTeamConfig.masked(xconfig, xmask), "row" + row);
        final ShmemTeam yt = teams.create(p, colMembers, ShmemTeamConfig.masked(yconfig, ymask), "col" + col);
        return new ShmemTeam[] {xt, yt};
    }

    /** {@code shmem_team_destroy}: synchronizes the members, completes this PE's operations, frees the team. */
    public void teamDestroy(final ShmemTeam team) {
        if (team == TEAM_INVALID) {
            return;
        }
        final ShmemTeam t = teams.resolve(team);
        if (t == teams.world() || team == TEAM_SHARED) {
            throw new IllegalArgumentException("the predefined teams cannot be destroyed: " + team);
        }
        coll.quietAllBarrier(t);
        teams.destroy(t);
    }

    // ------------------------------------------------------------------ contexts

    /**
     * {@code shmem_ctx_create}: a context with its own worker. {@link #CTX_PRIVATE}: only the creating thread
     * uses it; {@link #CTX_SERIALIZED}: one thread at a time; otherwise as the thread level allows
     * ({@link #THREAD_MULTIPLE}: any threads). {@link #CTX_NOSTORE} is accepted as a hint.
     */
    public ShmemCtx ctxCreate(final long options) {
        return createCtx(TEAM_WORLD, null, options);
    }

    /**
     * {@code shmem_team_create_ctx}: a context whose PE arguments number the members of {@code team} (as
     * {@code teamMyPe} does); otherwise as {@link #ctxCreate}. Not collective.
     *
     * @throws IllegalArgumentException for {@link #TEAM_INVALID} or a destroyed team
     */
    public ShmemCtx teamCreateCtx(final ShmemTeam team, final long options) {
        final ShmemTeam t = teams.resolve(team);
        return createCtx(team, t == teams.world() ? null : t, options);
    }

    private ShmemCtx createCtx(final ShmemTeam handle, final ShmemTeam numbering, final long options) {
        if ((options & ~(CTX_SERIALIZED | CTX_PRIVATE | CTX_NOSTORE)) != 0) {
            throw new IllegalArgumentException("unknown context options 0x" + Long.toHexString(options));
        }
        final ThreadMode mode = (options & CTX_PRIVATE) != 0 ? ThreadMode.SINGLE
            : (options & CTX_SERIALIZED) != 0 || threadLevel == THREAD_SERIALIZED ? ThreadMode.SERIALIZED
            : threadLevel == THREAD_MULTIPLE ? ThreadMode.MULTI : ThreadMode.SINGLE;
        final UcpPeers p = peers.withWorker(mode);
        return new ShmemCtx(new OneSided(p, heap, numbering), p, options, handle);
    }

    /** {@code shmem_ctx_get_team}: the team {@code ctx} numbers PEs by. */
    public ShmemTeam ctxGetTeam(final ShmemCtx ctx) {
        return ctx.getTeam();
    }

    /** {@code shmem_ctx_destroy}. */
    public void ctxDestroy(final ShmemCtx ctx) {
        ctx.close();
    }

    // ------------------------------------------------------------------ locks

    /** {@code shmem_set_lock}: acquires the symmetric lock (a {@code long}), first come first served. */
    public void setLock(final MemorySegment lock) {
        locks.set(lock);
    }

    /** {@code shmem_test_lock}: 0 if the lock was free and is now held, 1 otherwise (as in C). */
    public int testLock(final MemorySegment lock) {
        return locks.test(lock) ? 0 : 1;
    }

    /** {@code shmem_clear_lock}: completes this PE's operations, then releases the lock. */
    public void clearLock(final MemorySegment lock) {
        locks.clear(lock);
    }

    // ------------------------------------------------------------------ exit and finalize

    /**
     * {@code shmem_global_exit}: ends every PE of the job with {@code status}, 0 included (under
     * {@code weft run} the launcher exits with it too; under PMIx or PMI-2 it is the resource manager's
     * abort with that status). Does not return.
     */
    public void globalExit(final int status) {
        runtime.globalExit(status, "shmem.globalExit(" + status + ") called on PE " + myPe());
    }

    /** Endpoints this PE connected (dynamic connections: only to PEs it addressed). */
    public int endpointCount() {
        return peers.endpointCount();
    }

    /** Remote keys of the heap this PE unpacked (one per PE it addressed over a transport). */
    public int unpackedKeyCount() {
        return peers.unpackedKeyCount();
    }

    /** Unpacked transport keys the worker holds once for several PEs (symmetric keys, e.g. tcp). */
    public int sharedRemoteKeyCount() {
        return peers.worker().sharedRemoteKeyCount();
    }

    /** The ucp resources under this instance (for layers that share them). */
    public UcpPeers peers() {
        return peers;
    }

    /**
     * {@code shmem_finalize}: a barrier over all PEs, then the heap, the worker and the context are released.
     * After a matching number of {@link #initThread} calls only; earlier calls just count down. The barrier
     * waits at most {@code WEFT_SHMEM_FINALIZE_TIMEOUT} (a PE that failed inside {@code try (Shmem s = ...)}
     * reaches it while the others may wait for that PE elsewhere), then throws {@link IllegalStateException}
     * after releasing everything.
     */
    @Override
    public void close() {
        synchronized (Shmem.class) {
            if (closed || --initCount > 0) {
                return;
            }
            closed = true;
            current = null;
        }
        try {
            ops.quietAll();
            coll.barrier(teams.world(), System.nanoTime() + finalizeTimeoutNs);
            // Out of band: once every PE is past the barrier, every signal of it was delivered and nothing is
            // in flight, so no PE closes its worker under another's operation.
            runtime.barrier();
        } finally {
            try {
                heap.close();
            } finally {
                try {
                    peers.close();
                } finally {
                    runtime.close();
                }
            }
        }
    }
}
