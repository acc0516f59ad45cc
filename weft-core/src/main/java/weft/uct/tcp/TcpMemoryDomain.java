package weft.uct.tcp;

import weft.ucs.SplitMix;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.RegistrationCache;
import weft.uct.AbstractMemoryDomain;
import weft.uct.AbstractRemoteKey;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Comparator;

import static weft.ucs.SplitMix.mix;

/**
 * Memory domain of the tcp transport: any native memory can be registered; the target's progress
 * serves remote puts, gets and atomics on it. Regions live in one process-wide table, so every tcp
 * interface of the process serves every region.
 *
 * <p>Key body (32 B, little endian): {@code u64 stamp | u64 region id | u64 base | u64 length}.
 * <ul>
 *   <li>Private registrations: the stamp is the process incarnation (random, odd): a key from another
 *   process or an earlier run names no region here and is answered with INVALID_RKEY. The region id
 *   is {@code generation << 32 | slot}, so a key of a deregistered region never matches the region
 *   that reuses its slot.</li>
 *   <li>Symmetric registrations ({@link #REG_SYMMETRIC}): nothing random. The stamp is even and the
 *   same for every process of a job (derived from {@code WEFT_JOB_ID}, a constant without one); the
 *   id is {@code 1 << 63 | seq << 32 | hash32(job, base, length)} with {@code seq} the process's
 *   count of symmetric registrations, never reused. Processes that make the same symmetric
 *   registrations in the same order at the same addresses therefore pack byte-equal keys, while a
 *   key of an unmapped region still names nothing (its seq is never handed out again in that
 *   process, and a process of another job or layout differs in the hash).</li>
 * </ul>
 *
 * <p>Registrations go through a {@link RegistrationCache} (one for private, one for symmetric
 * registrations): registering memory that lies inside a live registration is a lookup and a
 * reference; the region is deregistered (and its keys revoked) when the last reference goes. Nothing
 * is kept registered lazily after that: a revoked key must fail at once. A key carries the caller's
 * range ({@code base}, {@code length}), which the initiator checks; the target checks the
 * registered region.
 *
 * <p>Regions are read by the progress thread of any interface without a lock: the slot array and the
 * symmetric table are published by volatile writes and a region's {@code live} flag is volatile.
 * Deregistering memory while a remote operation on it is being served is the caller's race (as with UCX).
 */
final class TcpMemoryDomain extends AbstractMemoryDomain<TcpMemoryDomain.Region> {
    /** Random per process, odd (never a symmetric stamp). */
    static final long INCARNATION = weft.ucs.sys.KernelRandom.nextLong() | 1L;
    /** Stamp of symmetric keys: even, non-zero, equal in every process of a job. */
    static final long SYMMETRIC_STAMP = symmetricStamp(System.getenv("WEFT_JOB_ID"));
    private static final long SYMMETRIC_BIT = 1L << 63;
    static final TcpMemoryDomain INSTANCE = new TcpMemoryDomain();
    private static final int BODY = 32;

    private volatile Region[] slots = new Region[16];
    private int[] generations = new int[16];
    private int nextFree;
    /** Live symmetric regions by id: open addressing, linear probing, copied on write. */
    private volatile Region[] symmetric = new Region[16];
    private int symmetricCount;
    private long symmetricSeq;
    // the first cache is the default of allocate and register
    private final RegistrationCache<Region> privateCache = newCache(seg -> add(seg, false));
    private final RegistrationCache<Region> symmetricCache = newCache(seg -> add(seg, true));

    /** A registered region. */
    static final class Region extends AbstractMemoryDomain.Region {
        final long stamp;
        /** Global-scope view of the memory, usable from any progress thread. */
        final MemorySegment global;

        @SuppressWarnings("restricted") // a global view of registered user memory: served only within [address, +length)
        Region(final long id, final long stamp, final MemorySegment user) {
            super(id, user);
            this.stamp = stamp;
            this.global = MemorySegment.ofAddress(user.address()).reinterpret(user.byteSize());
        }
    }

    /** An unpacked key: the identity of a region on the peer. */
    static final class Key extends AbstractRemoteKey {
        /** Keys in a total order: interchangeable keys compare equal. */
        static final Comparator<Key> ORDER = Comparator.<Key>comparingLong(k -> k.incarnation)
            .thenComparingLong(k -> k.regionId).thenComparingLong(Key::base).thenComparingLong(Key::length);
        /** The stamp: the owner's incarnation (private) or the symmetric stamp. */
        final long incarnation;
        final long regionId;

        Key(final long incarnation, final long regionId, final long base, final long length) {
            super(base, length);
            this.incarnation = incarnation;
            this.regionId = regionId;
        }

        @Override
        public MemorySegment ptr(final long address, final long len) {
            throw new WeftException(Status.UNSUPPORTED, "tcp: remote memory cannot be mapped locally");
        }

        @Override
        public void close() {
            // nothing held locally
        }
    }

    private TcpMemoryDomain() {
        super("tcp");
    }

    /** Even, non-zero, a function of the job id only. */
    static long symmetricStamp(final String jobId) {
        return SplitMix.evenJobStamp(0x5357_4D4B_4559_5331L, jobId);
    }

    /** The live region a key's (stamp, id) names, or null. No allocation, no lock. */
    Region find(final long stamp, final long id) {
        if (stamp == INCARNATION) {
            return lookup(id);
        }
        if (stamp != SYMMETRIC_STAMP) {
            return null;
        }
        final Region[] t = symmetric;
        final int mask = t.length - 1;
        for (int i = (int) mix(id) & mask, n = 0; n < t.length; i = (i + 1) & mask, n++) {
            final Region r = t[i];
            if (r == null) {
                return null;
            }
            if (r.id() == id) {
                return r.isLive() ? r : null;
            }
        }
        return null;
    }

    /** The live private region with {@code id}, or null. No allocation, no lock. */
    Region lookup(final long id) {
        final Region[] s = slots;
        final int slot = (int) id;
        if (id < 0 || slot < 0 || slot >= s.length) {
            return null;
        }
        final Region r = s[slot];
        return r != null && r.id() == id && r.isLive() ? r : null;
    }

    @Override
    public MemoryDomainAttributes attributes() {
        return new MemoryDomainAttributes(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.REG
            | MemoryDomainAttributes.NEED_RKEY | MemoryDomainAttributes.SYMMETRIC_RKEY, Long.MAX_VALUE,
            Long.MAX_VALUE, 100, 0, RkeyCodec.pack("tcp", new byte[BODY]).length);
    }

    @Override
    public MemoryHandle register(final MemorySegment segment, final int flags) {
        return register((flags & REG_SYMMETRIC) != 0 ? symmetricCache : privateCache, segment);
    }

    /** Registrar of the caches: a new region in the table. */
    private synchronized Region add(final MemorySegment seg, final boolean sym) {
        if (sym) {
            if (symmetricSeq == 0x7FFF_FFFFL) {
                throw new WeftException(Status.NO_MEMORY, "tcp: symmetric registration sequence exhausted");
            }
            final long seq = ++symmetricSeq;
            final long hash = mix(SYMMETRIC_STAMP ^ mix(seg.address() ^ mix(seg.byteSize()))) & 0xFFFF_FFFFL;
            final Region r = new Region(SYMMETRIC_BIT | seq << 32 | hash, SYMMETRIC_STAMP, seg);
            putSymmetric(r);
            return r;
        }
        Region[] s = slots;
        int slot = -1;
        for (int i = 0; i < s.length; i++) {
            final int k = (nextFree + i) % s.length;
            if (s[k] == null) {
                slot = k;
                break;
            }
        }
        if (slot < 0) {
            if (s.length >= 1 << 24) {
                throw new WeftException(Status.NO_MEMORY, "tcp: too many registered regions");
            }
            slot = s.length;
            s = java.util.Arrays.copyOf(s, s.length * 2);
            generations = java.util.Arrays.copyOf(generations, s.length);
        } else {
            s = s.clone();
        }
        nextFree = slot + 1;
        final long id = (long) (++generations[slot] & 0x7FFFFFFF) << 32 | slot;
        final Region r = new Region(id, INCARNATION, seg);
        s[slot] = r;
        slots = s; // volatile write publishes the region to lock-free readers
        return r;
    }

    private void putSymmetric(final Region r) {
        final int n = symmetricCount + 1;
        int cap = symmetric.length;
        while (cap < n * 2) {
            cap <<= 1;
        }
        rebuildSymmetric(cap, r, null);
        symmetricCount = n;
    }

    /** Copies the symmetric table into a new one of {@code cap} slots, adding {@code add}, leaving out {@code drop}. */
    private void rebuildSymmetric(final int cap, final Region add, final Region drop) {
        final Region[] t = new Region[cap];
        for (final Region r : symmetric) {
            if (r != null && r != drop) {
                insert(t, r);
            }
        }
        if (add != null) {
            insert(t, add);
        }
        symmetric = t; // volatile write publishes the table (and the regions in it)
    }

    private static void insert(final Region[] t, final Region r) {
        final int mask = t.length - 1;
        int i = (int) mix(r.id()) & mask;
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = r;
    }

    /** Deregistrar of the caches: revokes the region (its keys answer INVALID_RKEY from now on). */
    @Override
    protected synchronized void revoked(final Region r) {
        if (!r.revoke()) {
            return;
        }
        if (r.stamp == SYMMETRIC_STAMP) {
            rebuildSymmetric(symmetric.length, null, r);
            symmetricCount--;
        } else {
            final Region[] s = slots.clone();
            final int slot = (int) r.id();
            if (s[slot] == r) {
                s[slot] = null;
            }
            slots = s;
        }
    }

    @Override
    public byte[] packRkey(final MemoryHandle handle) {
        final Region r = packable(handle).region();
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(r.stamp).putLong(r.id()).putLong(handle.segment().address()).putLong(handle.segment().byteSize());
        return RkeyCodec.pack("tcp", b.array());
    }

    @Override
    public RemoteKey unpackRkey(final byte[] packed) {
        return RkeyCodec.read("tcp", packed, b -> {
            final long stamp = b.getLong();
            final long id = b.getLong();
            final long base = b.getLong();
            final long len = b.getLong();
            if (len < 0 || base + len < base) {
                throw RkeyCodec.invalid("tcp", "remote key has an impossible range");
            }
            if (stamp == 0 || ((stamp & 1) == 0) != (id < 0)) {
                throw RkeyCodec.invalid("tcp", "remote key has a malformed stamp/id pair");
            }
            return new Key(stamp, id, base, len);
        });
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        return Integer.signum(Key.ORDER.compare((Key) a, (Key) b));
    }

    /** Releases every region (they are process-wide: only for process teardown); the domain stays usable. */
    @Override
    public void close() {
        releaseAll();
    }
}
