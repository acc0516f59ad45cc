package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A peer's memory as seen through one endpoint: made by {@link Endpoint#unpackRkey(byte[])} from the
 * bytes of the peer's {@link MemoryMap#packRkey()}. It fixes, once, the lane that carries put/get to that
 * memory and the lane that carries atomics (one lane for all atomics on this key, so atomicity domains
 * never mix): the fastest lane of the endpoint whose transport has a key in the bundle and the needed
 * capability, preferring memory the lane maps directly (shm: plain loads, stores and CPU atomics). Atomics
 * are emulated at the target over the endpoint's AM lane ({@link SoftAtomics}) when no lane has atomics on
 * the memory or when the AM lane is faster than every lane that has (a same-node peer's registered memory:
 * shm rather than tcp). Put and get are emulated the same way ({@link SoftRma}) when no lane reaches the
 * memory at all (registered memory over shm without cma), and gets from {@link #softGetMin} bytes when the only
 * lanes that reach it cost a system call per operation (cma) and the AM lane is faster (shm).
 */
public final class Rkey implements AutoCloseable {
    final Endpoint ep;
    final long base;
    final long length;
    final int flags;
    /** Lanes that carry put/get to this memory, best first (see {@link Rails}); rmaLane is the first. */
    final Lane[] rails;
    final RemoteKey[] railKeys;
    final Lane rmaLane;
    final RemoteKey rmaKey;
    final Lane amoLane;
    final RemoteKey amoKey;
    /**
     * The longest contiguous put or get that {@link Rails#choose} sends over the first rail alone: any length
     * with one rail, below two chunks under the fixed policy with several (longer ones are striped), none
     * (-1) without rails or with a policy that picks a rail per operation. {@link Rma#immediate} reads it.
     */
    final long oneRailMax;
    /** The longest put that goes straight to the first rail's {@code putShort} ({@link Rma#putShort}); -1: none. */
    final long putShortMax;
    /**
     * The longest put that fuses with its signal on the first rail ({@link Rma#putSignal}): what the rail copies
     * out inside the call ({@code putShort} or {@code putBcopy} sizes) with {@link weft.uct.Capability#PUT_SIGNAL},
     * within {@link #oneRailMax}; -1: none.
     */
    final long putSignalMax;
    /** The longest get copied by the first rail's {@code getShort} ({@link Rma#immediate}: a mapping); -1: none. */
    final long getShortMax;
    /** No lane has atomics on this memory: they are emulated at the target ({@link SoftAtomics}). */
    final boolean softAmo;
    /** No lane has put/get on this memory: they are emulated at the target over active messages ({@link SoftRma}). */
    final boolean softRma;
    /**
     * Gets of at least this many bytes are emulated ({@link SoftRma}) though a rail reaches the memory: the rail
     * is a system call per get (cma) and the AM lane is faster (shm). {@link Long#MAX_VALUE}: never.
     */
    final long softGetMin;
    final long softNonce;
    final long softMapId;
    /** The atomic lane's {@code AtomicOp} bits, 32 and 64 bit (all when emulated, 0 without atomics): one load per check. */
    private final int amo32Ops;
    private final int amo64Ops;
    private final List<RemoteKey> unpacked = new ArrayList<>();
    /** What this key grants, canonical: see {@link #compare(Rkey, Rkey)}. */
    private final byte[] identity;
    private boolean closed;

    Rkey(final Endpoint ep, final byte[] bytes) {
        final MemoryMap.Packed p = MemoryMap.Packed.parse(bytes);
        this.ep = ep;
        this.base = p.address();
        this.length = p.length();
        this.flags = p.flags();
        final java.util.TreeMap<String, byte[]> used = new java.util.TreeMap<>();
        final List<Lane> rma = new ArrayList<>();
        final List<RemoteKey> rmaKeys = new ArrayList<>();
        LaneOption bestAmo = null;
        RemoteKey bestAmoKey = null;
        Lane amo = null;
        boolean emulate;
        final StringBuilder why = new StringBuilder();
        boolean stale = false; // a lane refused its key as revoked: the owner unmapped the memory
        byte[] soft = null;
        final int maxRails = Math.min(63, ep.worker.context.maxRmaRails);
        final double ratio = ep.worker.context.multiLaneMaxRatio;
        try {
            // every transport of the key, weighed without connecting: a lane is connected only if used
            final List<LaneOption> rmaOpts = new ArrayList<>();
            final List<RemoteKey> rmaOptKeys = new ArrayList<>();
            final List<Integer> rmaTransport = new ArrayList<>();
            for (int i = 0; i < p.transports().size(); i++) {
                if (p.transports().get(i).equals(SoftAtomics.ENTRY)) {
                    if (p.keys().get(i).length != weft.ucp.wire.AmoKeyEntry.LENGTH) {
                        throw new WeftException(Status.INVALID_RKEY, "remote key has a malformed "
                            + SoftAtomics.ENTRY + " entry");
                    }
                    soft = p.keys().get(i);
                    continue;
                }
                final LaneOption opt = ep.laneSet.option(p.transports().get(i));
                if (opt == null) {
                    why.append(' ').append(p.transports().get(i)).append(": no lane to the peer;");
                    continue;
                }
                final RemoteKey k;
                try {
                    k = ep.worker.remoteKeys.acquire(opt.local().md, p.keys().get(i));
                } catch (final WeftException e) {
                    why.append(' ').append(opt.name()).append(": ").append(e.getMessage()).append(';');
                    stale |= e.status() == Status.INVALID_RKEY;
                    continue;
                }
                unpacked.add(k);
                used.put(p.transports().get(i), p.keys().get(i));
                final long caps = opt.local().attrs.flags();
                if ((caps & (Capability.PUT_SHORT | Capability.PUT_BCOPY | Capability.PUT_ZCOPY)) != 0
                    && (caps & (Capability.GET_BCOPY | Capability.GET_ZCOPY)) != 0) {
                    rmaOpts.add(opt);
                    rmaOptKeys.add(k);
                    rmaTransport.add(i);
                } else {
                    why.append(' ').append(opt.name()).append(": no put/get;");
                }
                if (Capability.has(caps, Capability.ATOMIC64 | Capability.ATOMIC32)
                    && (bestAmo == null || opt.score() > bestAmo.score())) {
                    bestAmo = opt;
                    bestAmoKey = k;
                }
            }
            if (rmaOpts.isEmpty() && bestAmo == null && stale) { // not a case for emulation: the memory is gone
                throw new WeftException(Status.INVALID_RKEY, "remote key of " + ep + " is stale:" + why);
            }
            if (rmaOpts.isEmpty() && bestAmo == null && soft == null) {
                throw new WeftException(Status.UNREACHABLE, "no lane of " + ep + " can reach this remote memory,"
                    + " and the key offers no emulation (" + SoftAtomics.ENTRY + "); lanes considered: "
                    + ep.laneSet.describeLanes() + (why.isEmpty() ? "" : ";" + why));
            }
            // put/get: the transports within WEFT_MULTI_LANE_MAX_RATIO of the best (the others never make a
            // rail), with more lanes (devices, connections) of each of them when several rails are allowed
            final LaneOption best = best(rmaOpts);
            for (int j = 0; j < rmaOpts.size(); j++) {
                if (!qualifies(rmaOpts.get(j), best, ratio)) {
                    continue;
                }
                final Lane lane = ep.laneSet.connect(rmaOpts.get(j));
                rma.add(lane);
                rmaKeys.add(rmaOptKeys.get(j));
                if (maxRails == 1) {
                    continue;
                }
                final int i = rmaTransport.get(j);
                for (final Lane more : ep.laneSet.forTransport(p.transports().get(i), maxRails)) {
                    if (rma.contains(more)) {
                        continue;
                    }
                    final RemoteKey k = ep.worker.remoteKeys.acquire(more.local.md, p.keys().get(i)); // valid above
                    unpacked.add(k);
                    rma.add(more);
                    rmaKeys.add(k);
                }
            }
            // atomics emulated at the target: a request and a reply on the AM lane, as a lane's own atomic costs
            // a round trip on that lane (tcp's are served by the target's progress too). So the emulation wins
            // where the AM lane scores better than the best lane with atomics on this memory (registered memory
            // of a same-node peer: the shm AM lane against a tcp connection); at a tie the lane's own atomics
            // stay (shm maps allocated memory and is itself the AM lane). Both end in a CPU atomic on the
            // target's word, so the choice does not change what other keys on that memory observe.
            emulate = soft != null && (bestAmo == null || LaneOption.of(ep.am).score() > bestAmo.score());
            if (!emulate && bestAmo != null) {
                amo = ep.laneSet.connect(bestAmo);
            }
        } catch (final RuntimeException e) {
            for (final RemoteKey k : unpacked) {
                ep.worker.remoteKeys.release(k);
            }
            throw e;
        }
        this.softAmo = emulate;
        this.softRma = rma.isEmpty() && soft != null;
        this.softGetMin = soft == null || rma.isEmpty() ? Long.MAX_VALUE : softGetMin(ep, rma);
        if (softAmo || softRma || softGetMin != Long.MAX_VALUE) {
            used.put(SoftAtomics.ENTRY, soft); // what the key grants: the target's map
            bestAmoKey = null;
        }
        final MemorySegment se = softAmo || softRma || softGetMin != Long.MAX_VALUE ? MemorySegment.ofArray(soft) : null;
        this.softNonce = se != null ? weft.ucp.wire.AmoKeyEntry.nonce(se) : 0;
        this.softMapId = se != null ? weft.ucp.wire.AmoKeyEntry.mapId(se) : 0;
        this.identity = identity(p, used);
        // rails: the best put/get lane (lowest latency, preferring memory the lane maps directly), then every
        // other lane within WEFT_MULTI_LANE_MAX_RATIO of it in bandwidth and in latency, best first
        final Integer[] order = new Integer[rma.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        // not Comparator.comparing: its lambdas are serializable ones, which the AOT cache does not link
        java.util.Arrays.sort(order, (x, y) -> {
            final Lane a = rma.get(x);
            final Lane b = rma.get(y);
            int c = Double.compare(-score(a), -score(b));
            if (c == 0) {
                c = Double.compare(-a.bandwidth(), -b.bandwidth());
            }
            return c != 0 ? c : Integer.compare(a.index, b.index);
        });
        final List<Lane> rails = new ArrayList<>();
        final List<RemoteKey> railKeys = new ArrayList<>();
        for (final Integer i : order) {
            final Lane l = rma.get(i);
            if (!rails.isEmpty() && (rails.size() == maxRails
                || !qualifies(LaneOption.of(l), LaneOption.of(rails.get(0)), ratio))) {
                continue;
            }
            rails.add(l);
            railKeys.add(rmaKeys.get(i));
        }
        this.rails = rails.toArray(new Lane[0]);
        this.railKeys = railKeys.toArray(new RemoteKey[0]);
        this.rmaLane = this.rails.length == 0 ? null : this.rails[0];
        this.rmaKey = this.rails.length == 0 ? null : this.railKeys[0];
        this.amoLane = amo;
        this.amoKey = bestAmoKey;
        this.oneRailMax = oneRailMax(ep.worker.context, this.rails);
        this.putShortMax = this.rails.length == 0 || !this.rails[0].local.attrs.has(weft.uct.Capability.PUT_SHORT)
            ? -1 : Math.min(this.oneRailMax, this.rails[0].local.attrs.putMaxShort());
        this.putSignalMax = this.rails.length == 0 || !this.rails[0].local.attrs.has(weft.uct.Capability.PUT_SIGNAL)
            ? -1 : Math.min(this.oneRailMax, Math.max(this.rails[0].local.attrs.putMaxShort(),
                this.rails[0].local.attrs.putMaxBcopy()));
        this.getShortMax = this.rails.length == 0 || !this.rails[0].local.attrs.has(weft.uct.Capability.GET_SHORT)
            ? -1 : Math.min(Math.min(this.oneRailMax, this.softGetMin - 1), Integer.MAX_VALUE);
        this.amo32Ops = amo != null ? amo.local.attrs.atomic32Ops() : soft != null ? -1 : 0;
        this.amo64Ops = amo != null ? amo.local.attrs.atomic64Ops() : soft != null ? -1 : 0;
    }

    /** {@code u8 flags u64 base u64 length} then, by transport name, {@code name NUL key bytes}. */
    private static byte[] identity(final MemoryMap.Packed p, final java.util.TreeMap<String, byte[]> used) {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(64);
        final java.nio.ByteBuffer head = java.nio.ByteBuffer.allocate(17).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        head.put((byte) p.flags()).putLong(p.address()).putLong(p.length());
        out.writeBytes(head.array());
        for (final var e : used.entrySet()) {
            out.writeBytes(e.getKey().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.write(0);
            out.writeBytes(e.getValue());
        }
        return out.toByteArray();
    }

    /** A rail beside {@code best}: within {@code ratio} of it in bandwidth and in latency score. */
    private static boolean qualifies(final LaneOption l, final LaneOption best, final double ratio) {
        return l.bandwidth() * ratio >= best.bandwidth() && l.score() * ratio >= best.score();
    }

    private static LaneOption best(final List<LaneOption> options) {
        LaneOption b = null;
        for (final LaneOption o : options) {
            if (b == null || o.score() > b.score()) {
                b = o;
            }
        }
        return b;
    }

    private static double score(final Lane l) {
        return LaneOption.of(l).score();
    }

    /** Start of the remote region (in the peer's address space). */
    public long base() {
        return base;
    }

    /** Length of the remote region in bytes. */
    public long length() {
        return length;
    }

    /** The endpoint this key was unpacked for. */
    public Endpoint endpoint() {
        return ep;
    }

    /**
     * The lanes used: {@code "rma=shm/memory amo=shm/memory"}; several rails are listed best first, and
     * {@code get>=N=emulated(lane)} says from which size gets leave them for the emulation.
     */
    public String describe() {
        final StringBuilder sb = new StringBuilder("rma=");
        for (int i = 0; i < rails.length; i++) {
            sb.append(i == 0 ? "" : ",").append(rails[i].name());
        }
        if (softGetMin != Long.MAX_VALUE) {
            sb.append(" get>=").append(softGetMin).append("=emulated(").append(ep.am.name()).append(')');
        }
        return sb.append(rails.length == 0 ? softRma ? "emulated(" + ep.am.name() + ")" : "none" : "").append(" amo=")
            .append(amoLane != null ? amoLane.name() : softAmo ? "emulated(" + ep.am.name() + ")" : "none").toString();
    }

    /**
     * A local view of {@code [remoteAddress, +len)} of the peer's memory, where a lane maps it (same-node
     * shared memory): loads and stores go straight to the peer's memory, as {@code shmem_ptr} needs.
     *
     * @throws WeftException UNSUPPORTED if no lane can map it, OUT_OF_RANGE outside the region, INVALID_RKEY
     *     if the owner unmapped it
     */
    public MemorySegment ptr(final long remoteAddress, final long len) {
        checkOpen();
        for (final RemoteKey k : unpacked) {
            try {
                return k.ptr(remoteAddress, len);
            } catch (final WeftException e) {
                if (e.status() == Status.OUT_OF_RANGE || e.status() == Status.INVALID_RKEY) {
                    throw e; // a lane maps it, but not this range, or the owner unmapped it
                }
            }
        }
        throw new WeftException(Status.UNSUPPORTED, "no lane maps this remote memory locally (" + describe() + ")");
    }

    /** True if 64-bit (or 32-bit) atomics of {@code op} can go on this key's atomic lane. */
    boolean supportsAtomic(final AtomicOp op, final boolean is64) {
        return ((is64 ? amo64Ops : amo32Ops) & op.bit()) != 0; // both 0 without atomics, all bits when emulated
    }

    /**
     * Total order (-1, 0, +1) on keys, so that a caller can keep keys in a sorted store and find
     * duplicates in O(log n). It compares what the key grants on this side: the region (flags, base,
     * length) and the packed transport keys this side unpacked (by transport name), as bytes, length
     * first, then unsigned. 0 means the same region through byte-equal transport keys: with
     * {@link MemoryMap#SYMMETRIC_RKEY} memory mapped identically (same address, length and order, e.g.
     * with {@link MemoryMap#FIXED}) by PEs reached over a transport with symmetric keys (tcp) compares
     * equal, and this worker already holds one unpacked copy for all of them ({@link
     * Worker#sharedRemoteKeyCount()}). Keys over shm, cma or self never compare equal across PEs: they
     * name one process's memory. An Rkey still serves the endpoint it was unpacked for.
     */
    public static int compare(final Rkey a, final Rkey b) {
        return compare(a.identity, b.identity);
    }

    /**
     * The total order of {@link #compare(Rkey, Rkey)} on any byte strings (e.g. whole packed keys
     * from {@link MemoryMap#packRkey()}): length first, then bytes unsigned. Returns -1, 0 or +1.
     */
    public static int compare(final byte[] a, final byte[] b) {
        if (a.length != b.length) {
            return a.length < b.length ? -1 : 1;
        }
        return Integer.signum(java.util.Arrays.compareUnsigned(a, b));
    }

    /**
     * Where gets leave the best put/get lane for the emulation: that lane reaches the memory only with a system
     * call per operation (no short or copy put/get: cma's {@code process_vm_readv}, whose kernel page pinning
     * costs more than the two copies of the emulated get through shm's FIFO), and the AM lane is better in
     * latency and in bandwidth. The peer's progress then serves the gets, as for the emulated atomics.
     */
    private static long softGetMin(final Endpoint ep, final List<Lane> rma) {
        final long thresh = ep.worker.context.softGetThresh;
        Lane best = null;
        for (final Lane l : rma) {
            if (best == null || score(l) > score(best)) {
                best = l;
            }
        }
        final long direct = Capability.GET_SHORT | Capability.GET_BCOPY | Capability.PUT_SHORT | Capability.PUT_BCOPY;
        if (thresh == Long.MAX_VALUE || ep.am == null || best == null || (best.local.attrs.flags() & direct) != 0) {
            return Long.MAX_VALUE;
        }
        final LaneOption am = LaneOption.of(ep.am);
        final LaneOption rail = LaneOption.of(best);
        return am.score() > rail.score() && am.bandwidth() >= rail.bandwidth() ? thresh : Long.MAX_VALUE;
    }

    /** True if a get of {@code len} bytes is emulated over the AM lane though a rail reaches the memory. */
    boolean softGet(final byte op, final long len) {
        return op == Rma.GET && len >= softGetMin;
    }

    private static long oneRailMax(final Context context, final Lane[] rails) {
        if (rails.length == 1) {
            return Long.MAX_VALUE;
        }
        return rails.length > 1 && context.lanePolicy == Rails.FIXED ? 2 * context.minRmaChunk - 1 : -1;
    }

    void checkOpen() {
        if (closed) {
            throw new WeftException(Status.INVALID_RKEY, "remote key is destroyed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Destroys the key (unmaps what a lane mapped). Operations must have completed (flush first). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (final RemoteKey k : unpacked) {
            ep.worker.remoteKeys.release(k);
        }
        unpacked.clear();
    }

    @Override
    public String toString() {
        return "Rkey[0x" + Long.toHexString(base) + ", +" + length + ", " + describe() + "]";
    }
}
