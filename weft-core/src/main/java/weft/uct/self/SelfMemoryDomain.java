package weft.uct.self;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;

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
 * deregistered answers INVALID_RKEY on every access.
 */
final class SelfMemoryDomain implements MemoryDomain {
    private static final int PID = LibC.getpid();
    private static final int BODY = 4 + 8 + 8 + 8;

    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Region> regions = new ConcurrentHashMap<>();

    /** A registered region; {@code live} turns false on deregistration. */
    static final class Region implements MemoryHandle {
        final long id;
        final MemorySegment segment;
        final Arena arena; // owned (allocate) or null (registered user memory)
        final SelfMemoryDomain md;
        volatile boolean live = true;

        Region(final SelfMemoryDomain md, final long id, final MemorySegment segment, final Arena arena) {
            this.md = md;
            this.id = id;
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

    /** An unpacked key: a view of the region's memory. */
    static final class Key implements RemoteKey {
        final Region region;
        final long base;

        Key(final Region region) {
            this.region = region;
            this.base = region.segment.address();
        }

        @Override
        public long base() {
            return base;
        }

        @Override
        public long length() {
            return region.segment.byteSize();
        }

        /** The region segment, or null if the region is gone. */
        MemorySegment memory() {
            return region.live ? region.segment : null;
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
            return region.segment.asSlice(address - base, len);
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
        return add(seg, arena);
    }

    @Override
    public MemoryHandle register(final MemorySegment segment) {
        if (!segment.isNative()) {
            throw new WeftException(Status.INVALID_PARAM, "self: only off-heap (native) memory can be registered");
        }
        return add(segment, null);
    }

    private Region add(final MemorySegment seg, final Arena arena) {
        final Region r = new Region(this, ids.incrementAndGet(), seg, arena);
        regions.put(r.id, r);
        return r;
    }

    @Override
    public void deregister(final MemoryHandle handle) {
        if (!(handle instanceof Region r) || r.md != this) {
            throw new WeftException(Status.INVALID_PARAM, "self: handle does not belong to this domain");
        }
        if (regions.remove(r.id) != null) {
            r.live = false;
            if (r.arena != null) {
                r.arena.close();
            }
        }
    }

    @Override
    public byte[] packRkey(final MemoryHandle handle) {
        if (!(handle instanceof Region r) || !r.live) {
            throw new WeftException(Status.INVALID_PARAM, "self: cannot pack a key for a foreign or released handle");
        }
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PID).putLong(r.id).putLong(r.segment.address()).putLong(r.segment.byteSize());
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
            if (r == null || r.segment.address() != base || r.segment.byteSize() != len) {
                throw RkeyCodec.invalid("self", "no registered region matches the key");
            }
            return new Key(r);
        });
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        final Key x = (Key) a;
        final Key y = (Key) b;
        final int c = Long.compare(x.region.id, y.region.id);
        return Integer.signum(c);
    }

    @Override
    public void close() {
        for (final Region r : regions.values()) {
            deregister(r);
        }
    }
}
