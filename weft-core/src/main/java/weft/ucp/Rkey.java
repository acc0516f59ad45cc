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
 * capability, preferring memory the lane maps directly (shm: plain loads, stores and CPU atomics).
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
    private final List<RemoteKey> unpacked = new ArrayList<>();
    private final byte[] packed;
    private boolean closed;

    Rkey(final Endpoint ep, final byte[] bytes) {
        final MemoryMap.Packed p = MemoryMap.Packed.parse(bytes);
        this.ep = ep;
        this.base = p.address();
        this.length = p.length();
        this.flags = p.flags();
        this.packed = bytes.clone();
        final List<Lane> rma = new ArrayList<>();
        final List<RemoteKey> rmaKeys = new ArrayList<>();
        Lane bestAmo = null;
        RemoteKey bestAmoKey = null;
        final StringBuilder why = new StringBuilder();
        final int maxRails = Math.min(63, ep.worker.context.maxRmaRails);
        try {
            final List<Integer> rmaTransport = new ArrayList<>();
            for (int i = 0; i < p.transports().size(); i++) {
                final Lane lane = ep.laneFor(p.transports().get(i));
                if (lane == null) {
                    why.append(' ').append(p.transports().get(i)).append(": no lane to the peer;");
                    continue;
                }
                final RemoteKey k;
                try {
                    k = lane.local.md.unpackRkey(p.keys().get(i));
                } catch (final WeftException e) {
                    why.append(' ').append(lane.name()).append(": ").append(e.getMessage()).append(';');
                    continue;
                }
                unpacked.add(k);
                final long caps = lane.local.attrs.flags();
                if ((caps & (Capability.PUT_SHORT | Capability.PUT_BCOPY | Capability.PUT_ZCOPY)) != 0
                    && (caps & (Capability.GET_BCOPY | Capability.GET_ZCOPY)) != 0) {
                    rma.add(lane);
                    rmaKeys.add(k);
                    rmaTransport.add(i);
                }
                if (Capability.has(caps, Capability.ATOMIC64 | Capability.ATOMIC32)
                    && (bestAmo == null || score(lane) > score(bestAmo))) {
                    bestAmo = lane;
                    bestAmoKey = k;
                }
            }
            if (rma.isEmpty() && bestAmo == null) {
                throw new WeftException(Status.UNREACHABLE, "no lane of " + ep + " can reach this remote memory"
                    + (why.isEmpty() ? "" : ":" + why));
            }
            // more rails: other lanes (devices, connections) of a transport that qualifies beside the best
            final Lane best = best(rma);
            final int first = rma.size();
            for (int j = 0; j < first && maxRails > 1; j++) {
                if (!qualifies(rma.get(j), best, ep.worker.context.multiLaneMaxRatio)) {
                    continue;
                }
                final int i = rmaTransport.get(j);
                for (final Lane lane : ep.lanesFor(p.transports().get(i), maxRails)) {
                    if (rma.contains(lane)) {
                        continue;
                    }
                    final RemoteKey k = lane.local.md.unpackRkey(p.keys().get(i)); // unpacked above: valid
                    unpacked.add(k);
                    rma.add(lane);
                    rmaKeys.add(k);
                }
            }
        } catch (final RuntimeException e) {
            for (final RemoteKey k : unpacked) {
                k.close();
            }
            throw e;
        }
        // rails: the best put/get lane (lowest latency, preferring memory the lane maps directly), then every
        // other lane within WEFT_MULTI_LANE_MAX_RATIO of it in bandwidth and in latency, best first
        final Integer[] order = new Integer[rma.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, java.util.Comparator.comparingDouble((Integer i) -> -score(rma.get(i)))
            .thenComparingDouble(i -> -rma.get(i).bandwidth()).thenComparingInt(i -> rma.get(i).index));
        final double ratio = ep.worker.context.multiLaneMaxRatio;
        final List<Lane> rails = new ArrayList<>();
        final List<RemoteKey> railKeys = new ArrayList<>();
        for (final Integer i : order) {
            final Lane l = rma.get(i);
            if (!rails.isEmpty() && (rails.size() == maxRails || !qualifies(l, rails.get(0), ratio))) {
                continue;
            }
            rails.add(l);
            railKeys.add(rmaKeys.get(i));
        }
        this.rails = rails.toArray(new Lane[0]);
        this.railKeys = railKeys.toArray(new RemoteKey[0]);
        this.rmaLane = this.rails.length == 0 ? null : this.rails[0];
        this.rmaKey = this.rails.length == 0 ? null : this.railKeys[0];
        this.amoLane = bestAmo;
        this.amoKey = bestAmoKey;
    }

    /** A rail beside {@code best}: within {@code ratio} of it in bandwidth and in latency score. */
    private static boolean qualifies(final Lane l, final Lane best, final double ratio) {
        return l.bandwidth() * ratio >= best.bandwidth() && score(l) * ratio >= score(best);
    }

    private static Lane best(final List<Lane> lanes) {
        Lane b = null;
        for (final Lane l : lanes) {
            if (b == null || score(l) > score(b)) {
                b = l;
            }
        }
        return b;
    }

    private static double score(final Lane l) {
        return 1e3 / (l.latencyNs() + l.local.attrs.overheadNs() + l.remote.overheadNs());
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

    /** The lanes used: {@code "rma=shm/memory amo=shm/memory"}; several rails are listed best first. */
    public String describe() {
        final StringBuilder sb = new StringBuilder("rma=");
        for (int i = 0; i < rails.length; i++) {
            sb.append(i == 0 ? "" : ",").append(rails[i].name());
        }
        return sb.append(rails.length == 0 ? "none" : "").append(" amo=")
            .append(amoLane == null ? "none" : amoLane.name()).toString();
    }

    /**
     * A local view of {@code [remoteAddress, +len)} of the peer's memory, where a lane maps it (same-node
     * shared memory): loads and stores go straight to the peer's memory, as {@code shmem_ptr} needs.
     *
     * @throws WeftException UNSUPPORTED if no lane can map it, OUT_OF_RANGE outside the region
     */
    public MemorySegment ptr(final long remoteAddress, final long len) {
        checkOpen();
        for (final RemoteKey k : unpacked) {
            try {
                return k.ptr(remoteAddress, len);
            } catch (final WeftException e) {
                if (e.status() == Status.OUT_OF_RANGE) {
                    throw e;
                }
            }
        }
        throw new WeftException(Status.UNSUPPORTED, "no lane maps this remote memory locally (" + describe() + ")");
    }

    /** True if 64-bit (or 32-bit) atomics of {@code op} can go on this key's atomic lane. */
    boolean supportsAtomic(final AtomicOp op, final boolean is64) {
        if (amoLane == null) {
            return false;
        }
        return ((is64 ? amoLane.local.attrs.atomic64Ops() : amoLane.local.attrs.atomic32Ops()) & op.bit()) != 0;
    }

    /**
     * Total order on keys by their packed bytes (length first, then bytes unsigned), so that a caller
     * can keep keys in a sorted store and find duplicates in O(log n). Equal keys name the same memory
     * through the same transports.
     */
    public static int compare(final Rkey a, final Rkey b) {
        return compare(a.packed, b.packed);
    }

    /** {@link #compare(Rkey, Rkey)} on packed bytes. Returns -1, 0 or +1. */
    public static int compare(final byte[] a, final byte[] b) {
        if (a.length != b.length) {
            return a.length < b.length ? -1 : 1;
        }
        return Integer.signum(java.util.Arrays.compareUnsigned(a, b));
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
            k.close();
        }
        unpacked.clear();
    }

    @Override
    public String toString() {
        return "Rkey[0x" + Long.toHexString(base) + ", +" + length + ", " + describe() + "]";
    }
}
