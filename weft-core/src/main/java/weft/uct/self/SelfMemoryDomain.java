package weft.uct.self;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;
import weft.ucs.memory.RegistrationCache;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory domain of the self transport: process memory, keys valid only in this process.
 * Key body: {@code u32 pid, u64 region id, u64 base, u64 length}. A key whose region was
 * deregistered answers INVALID_RKEY on every access. Registrations go through a
 * {@link RegistrationCache}: registering memory inside a live registration is a lookup.
 */
final class SelfMemoryDomain implements MemoryDomain {
    private static final int PID = LibC.getpid();
    private static final int BODY = 4 + 8 + 8 + 8;

    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Region> regions = new ConcurrentHashMap<>();
    private final RegistrationCache<Region> cache = new RegistrationCache<>(this::add, this::remove);
    // handles that own memory, freed on close() if the user did not deregister them
    private final java.util.Set<Handle> owned = ConcurrentHashMap.newKeySet();

    /** A registered region (shared by the handles the cache answers); {@code live} turns false on deregistration. */
    static final class Region {
        final SelfMemoryDomain md;
        final long id;
        final MemorySegment segment;
        volatile boolean live = true;

        Region(final SelfMemoryDomain md, final long id, final MemorySegment segment) {
            this.md = md;
            this.id = id;
            this.segment = segment;
        }
    }

    /** What {@link #register}/{@link #allocate} return: the caller's range and its region. */
    static final class Handle implements MemoryHandle {
        final SelfMemoryDomain md;
        final Region region;
        final MemorySegment segment;
        final Arena arena; // owned (allocate) or null (registered user memory)
        boolean released;

        Handle(final SelfMemoryDomain md, final Region region, final MemorySegment segment, final Arena arena) {
            this.md = md;
            this.region = region;
            this.segment = segment;
            this.arena = arena;
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public MemoryDomain domain() {
            return md;
        }
    }

    /** An unpacked key: a view of the key's range of the region. */
    static final class Key implements RemoteKey {
        final Region region;
        final long base;
        final MemorySegment view;

        Key(final Region region, final long base, final long length) {
            this.region = region;
            this.base = base;
            this.view = region.segment.asSlice(base - region.segment.address(), length);
        }

        @Override
        public long base() {
            return base;
        }

        @Override
        public long length() {
            return view.byteSize();
        }

        /** The key's memory, or null if the region is gone. */
        MemorySegment memory() {
            return region.live ? view : null;
        }

        @Override
        public MemorySegment ptr(final long address, final long len) {
            if (!region.live) {
                throw new WeftException(Status.INVALID_RKEY, "self: remote key refers to deregistered memory");
            }
            if (!contains(address, len)) {
                throw new WeftException(Status.OUT_OF_RANGE, "self: [" + Long.toHexString(address) + ", +" + len
                    + ") is outside the region of the key");
            }
            return view.asSlice(address - base, len);
        }

        @Override
        public void close() {
            // nothing mapped
        }
    }

    @Override
    public String name() {
        return "self";
    }

    @Override
    public MemoryDomainAttributes attributes() {
        return new MemoryDomainAttributes(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.REG
            | MemoryDomainAttributes.NEED_RKEY | MemoryDomainAttributes.RKEY_PTR,
            Long.MAX_VALUE, Long.MAX_VALUE, 0, 0, BODY + 16);
    }

    @Override
    public MemoryHandle allocate(final long length) {
        final Arena arena = Arena.ofShared();
        final MemorySegment seg = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
        final Handle h = new Handle(this, cache.register(seg), seg, arena);
        owned.add(h);
        return h;
    }

    @Override
    public MemoryHandle register(final MemorySegment segment) {
        if (!segment.isNative()) {
            throw new WeftException(Status.INVALID_PARAM, "self: only off-heap (native) memory can be registered");
        }
        return new Handle(this, cache.register(segment), segment, null);
    }

    private Region add(final MemorySegment seg) {
        final Region r = new Region(this, ids.incrementAndGet(), seg);
        regions.put(r.id, r);
        return r;
    }

    private void remove(final Region r) {
        if (regions.remove(r.id) != null) {
            r.live = false;
        }
    }

    @Override
    public void deregister(final MemoryHandle handle) {
        if (!(handle instanceof Handle h) || h.md != this) {
            throw new WeftException(Status.INVALID_PARAM, "self: handle does not belong to this domain");
        }
        synchronized (h) {
            if (h.released) {
                return;
            }
            h.released = true;
        }
        if (h.region.live) {
            cache.release(h.region);
        }
        if (h.arena != null) {
            cache.invalidate(h.segment.address(), Math.max(1, h.segment.byteSize()));
            owned.remove(h);
            h.arena.close();
        }
    }

    @Override
    public byte[] packRkey(final MemoryHandle handle) {
        if (!(handle instanceof Handle h) || h.released || !h.region.live) {
            throw new WeftException(Status.INVALID_PARAM, "self: cannot pack a key for a foreign or released handle");
        }
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PID).putLong(h.region.id).putLong(h.segment.address()).putLong(h.segment.byteSize());
        return RkeyCodec.pack("self", b.array());
    }

    @Override
    public RemoteKey unpackRkey(final byte[] packed) {
        return RkeyCodec.read("self", packed, b -> {
            final int pid = b.getInt();
            final long id = b.getLong();
            final long base = b.getLong();
            final long len = b.getLong();
            if (pid != PID) {
                throw RkeyCodec.invalid("self", "key of process " + pid + " used in process " + PID);
            }
            final Region r = regions.get(id);
            final long start = r == null ? 0 : r.segment.address();
            if (r == null || !r.live || len < 0 || base < start || base - start > r.segment.byteSize() - len) {
                throw RkeyCodec.invalid("self", "no registered region matches the key");
            }
            return new Key(r, base, len);
        });
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        final Key x = (Key) a;
        final Key y = (Key) b;
        int c = Long.compare(x.region.id, y.region.id);
        if (c == 0) {
            c = Long.compare(x.base, y.base);
        }
        if (c == 0) {
            c = Long.compare(x.length(), y.length());
        }
        return Integer.signum(c);
    }

    /** Registrations answered from the cache (tests, benchmarks). */
    long cacheHits() {
        return cache.hits();
    }

    @Override
    public void close() {
        for (final Handle h : owned) {
            deregister(h);
        }
        cache.clear();
    }
}
