package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * Memory domain of the tcp transport: any native memory can be registered; the target's progress
 * serves remote puts, gets and atomics on it. Regions live in one process-wide table, so every tcp
 * interface of the process serves every region.
 *
 * <p>Key body: {@code u64 incarnation | u64 region id | u64 base | u64 length}. The incarnation is
 * random per process: a key from another process or an earlier run names no region here and is
 * answered with INVALID_RKEY. A region id is {@code generation << 32 | slot}, so a key of a
 * deregistered region never matches the region that reuses its slot.
 *
 * <p>Regions are read by the progress thread of any interface without a lock: the slot array is
 * published by a volatile write and a region's {@code live} flag is volatile. Deregistering memory
 * while a remote operation on it is being served is the caller's race (as with UCX).
 */
final class TcpMemoryDomain implements MemoryDomain {
    /** Random per process, never 0. */
    static final long INCARNATION = new SecureRandom().nextLong() | 1L;
    static final TcpMemoryDomain INSTANCE = new TcpMemoryDomain();
    private static final int BODY = 32;

    private volatile Region[] slots = new Region[16];
    private int[] generations = new int[16];
    private int nextFree;

    /** A registered region. */
    static final class Region implements MemoryHandle {
        final long id;
        final long address;
        final long length;
        /** Global-scope view of the memory, usable from any progress thread. */
        final MemorySegment global;
        final MemorySegment user;
        final Arena arena;
        volatile boolean live = true;

        Region(final long id, final MemorySegment user, final Arena arena) {
            this.id = id;
            this.user = user;
            this.arena = arena;
            this.address = user.address();
            this.length = user.byteSize();
            this.global = MemorySegment.ofAddress(address).reinterpret(length);
        }

        @Override
        public MemorySegment segment() {
            return user;
        }

        @Override
        public MemoryDomain domain() {
            return INSTANCE;
        }
    }

    /** An unpacked key: the identity of a region on the peer. */
    static final class Key implements RemoteKey {
        final long incarnation;
        final long regionId;
        final long base;
        final long length;

        Key(final long incarnation, final long regionId, final long base, final long length) {
            this.incarnation = incarnation;
            this.regionId = regionId;
            this.base = base;
            this.length = length;
        }

        @Override
        public long base() {
            return base;
        }

        @Override
        public long length() {
            return length;
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
    }

    /** The live region with {@code id}, or null. No allocation, no lock. */
    Region lookup(final long id) {
        final Region[] s = slots;
        final int slot = (int) id;
        if (slot < 0 || slot >= s.length) {
            return null;
        }
        final Region r = s[slot];
        return r != null && r.id == id && r.live ? r : null;
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public MemoryDomainAttributes attributes() {
        return new MemoryDomainAttributes(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.REG
            | MemoryDomainAttributes.NEED_RKEY, Long.MAX_VALUE, Long.MAX_VALUE, 100, 0,
            RkeyCodec.pack("tcp", new byte[BODY]).length);
    }

    @Override
    public MemoryHandle allocate(final long length) {
        if (length < 0) {
            throw new WeftException(Status.INVALID_PARAM, "tcp: negative allocation length " + length);
        }
        final Arena arena = Arena.ofShared();
        final MemorySegment seg = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
        return add(seg, arena);
    }

    @Override
    public MemoryHandle register(final MemorySegment segment) {
        if (!segment.isNative()) {
            throw new WeftException(Status.INVALID_PARAM, "tcp: only off-heap (native) memory can be registered");
        }
        return add(segment, null);
    }

    private synchronized Region add(final MemorySegment seg, final Arena arena) {
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
        final Region r = new Region(id, seg, arena);
        s[slot] = r;
        slots = s; // volatile write publishes the region to lock-free readers
        return r;
    }

    @Override
    public synchronized void deregister(final MemoryHandle handle) {
        if (!(handle instanceof Region r)) {
            throw new WeftException(Status.INVALID_PARAM, "tcp: handle does not belong to this domain");
        }
        if (!r.live) {
            return;
        }
        r.live = false; // targets answer INVALID_RKEY from now on
        final Region[] s = slots.clone();
        final int slot = (int) r.id;
        if (s[slot] == r) {
            s[slot] = null;
        }
        slots = s;
        if (r.arena != null) {
            r.arena.close();
        }
    }

    @Override
    public byte[] packRkey(final MemoryHandle handle) {
        if (!(handle instanceof Region r) || !r.live) {
            throw new WeftException(Status.INVALID_PARAM, "tcp: cannot pack a key for a foreign or released handle");
        }
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(INCARNATION).putLong(r.id).putLong(r.address).putLong(r.length);
        return RkeyCodec.pack("tcp", b.array());
    }

    @Override
    public RemoteKey unpackRkey(final byte[] packed) {
        return RkeyCodec.read("tcp", packed, b -> {
            final long inc = b.getLong();
            final long id = b.getLong();
            final long base = b.getLong();
            final long len = b.getLong();
            if (len < 0 || base + len < base) {
                throw RkeyCodec.invalid("tcp", "remote key has an impossible range");
            }
            return new Key(inc, id, base, len);
        });
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        final Key x = (Key) a;
        final Key y = (Key) b;
        int c = Long.compare(x.incarnation, y.incarnation);
        if (c == 0) {
            c = Long.compare(x.regionId, y.regionId);
        }
        if (c == 0) {
            c = Long.compare(x.base, y.base);
        }
        if (c == 0) {
            c = Long.compare(x.length, y.length);
        }
        return Integer.signum(c);
    }

    /** Releases every region (they are process-wide: only for process teardown). */
    @Override
    public void close() {
        for (final Region r : slots) {
            if (r != null) {
                deregister(r);
            }
        }
    }
}
