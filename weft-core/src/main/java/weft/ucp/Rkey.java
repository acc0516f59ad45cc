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
    final Lane rmaLane;
    final RemoteKey rmaKey;
    final Lane amoLane;
    final RemoteKey amoKey;
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
        Lane bestRma = null;
        RemoteKey bestRmaKey = null;
        Lane bestAmo = null;
        RemoteKey bestAmoKey = null;
        final StringBuilder why = new StringBuilder();
        try {
            for (int i = 0; i < p.transports().size(); i++) {
                final Lane lane = ep.laneFor(p.transports().get(i));
                if (lane == null) {
                    why.append(' ').append(p.transports().get(i)).append(": no lane to the peer;");
                    continue;
                }
                final RemoteKey k;
                try {
                    k = ep.worker.remoteKeys.acquire(lane.local.md, p.keys().get(i));
                } catch (final WeftException e) {
                    why.append(' ').append(lane.name()).append(": ").append(e.getMessage()).append(';');
                    continue;
                }
                unpacked.add(k);
                used.put(p.transports().get(i), p.keys().get(i));
                final long caps = lane.local.attrs.flags();
                if ((caps & (Capability.PUT_SHORT | Capability.PUT_BCOPY | Capability.PUT_ZCOPY)) != 0
                    && (caps & (Capability.GET_BCOPY | Capability.GET_ZCOPY)) != 0
                    && (bestRma == null || score(lane) > score(bestRma))) {
                    bestRma = lane;
                    bestRmaKey = k;
                }
                if (Capability.has(caps, Capability.ATOMIC64 | Capability.ATOMIC32)
                    && (bestAmo == null || score(lane) > score(bestAmo))) {
                    bestAmo = lane;
                    bestAmoKey = k;
                }
            }
            if (bestRma == null && bestAmo == null) {
                throw new WeftException(Status.UNREACHABLE, "no lane of " + ep + " can reach this remote memory"
                    + (why.isEmpty() ? "" : ":" + why));
            }
        } catch (final RuntimeException e) {
            for (final RemoteKey k : unpacked) {
                ep.worker.remoteKeys.release(k);
            }
            throw e;
        }
        this.identity = identity(p, used);
        this.rmaLane = bestRma;
        this.rmaKey = bestRmaKey;
        this.amoLane = bestAmo;
        this.amoKey = bestAmoKey;
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

    /** The lanes used: {@code "rma=shm/memory amo=shm/memory"}. */
    public String describe() {
        return "rma=" + (rmaLane == null ? "none" : rmaLane.name()) + " amo="
            + (amoLane == null ? "none" : amoLane.name());
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
        if (amoLane == null) {
            return false;
        }
        return ((is64 ? amoLane.local.attrs.atomic64Ops() : amoLane.local.attrs.atomic32Ops()) & op.bit()) != 0;
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
