package weft.uct.self;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory domain of the self transport: process memory, keys valid only in this process.
 * Key body: {@code u32 pid, u64 region id, u64 base, u64 length}. A key whose region was
 * deregistered answers INVALID_RKEY on every access. Registrations go through a
 * {@link weft.ucs.memory.RegistrationCache}: registering memory inside a live registration is a lookup.
 */
final class SelfMemoryDomain extends AbstractMemoryDomain<SelfMemoryDomain.Region> {
    private static final int PID = LibC.getpid();
    private static final int BODY = 4 + 8 + 8 + 8;

    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Region> regions = new ConcurrentHashMap<>();

    /** A registered region: its memory, which keys view, and its domain (keys of another one are refused). */
    static final class Region extends AbstractMemoryDomain.Region {
        final SelfMemoryDomain md;
        final MemorySegment segment;

        Region(final SelfMemoryDomain md, final long id, final MemorySegment segment) {
            super(id, segment);
            this.md = md;
            this.segment = segment;
        }
    }

    SelfMemoryDomain() {
        super("self");
        newCache(this::add);
    }

    /** An unpacked key: a view of the key's range of the region. */
    static final class Key extends AbstractRemoteKey {
        /** Keys in a total order: interchangeable keys compare equal. */
        static final Comparator<Key> ORDER = Comparator.<Key>comparingLong(k -> k.region.id())
            .thenComparingLong(Key::base).thenComparingLong(Key::length);
        final Region region;
        final MemorySegment view;

        Key(final Region region, final long base, final long length) {
            super(base, length);
            this.region = region;
            this.view = region.segment.asSlice(base - region.segment.address(), length);
        }

        /** The key's memory, or null if the region is gone. */
        MemorySegment memory() {
            return region.isLive() ? view : null;
        }

        @Override
        public MemorySegment ptr(final long address, final long len) {
            if (!region.isLive()) {
                throw new WeftException(Status.INVALID_RKEY, "self: remote key refers to deregistered memory");
            }
            if (!contains(address, len)) {
                throw new WeftException(Status.OUT_OF_RANGE, "self: [" + Long.toHexString(address) + ", +" + len
                    + ") is outside the region of the key");
            }
            return view.asSlice(address - base(), len);
        }

        @Override
        public void close() {
            // nothing mapped
        }
    }

    @Override
    public MemoryDomainAttributes attributes() {
        return new MemoryDomainAttributes(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.REG
            | MemoryDomainAttributes.NEED_RKEY | MemoryDomainAttributes.RKEY_PTR,
            Long.MAX_VALUE, Long.MAX_VALUE, 0, 0, BODY + 16);
    }

    private Region add(final MemorySegment seg) {
        final Region r = new Region(this, ids.incrementAndGet(), seg);
        regions.put(r.id(), r);
        return r;
    }

    @Override
    protected void revoked(final Region r) {
        if (regions.remove(r.id()) != null) {
            r.revoke();
        }
    }

    @Override
    public byte[] packRkey(final MemoryHandle handle) {
        final Handle<Region> h = packable(handle);
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PID).putLong(h.region().id()).putLong(h.segment().address()).putLong(h.segment().byteSize());
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
            if (r == null || !r.isLive() || len < 0 || base < start || base - start > r.segment.byteSize() - len) {
                throw RkeyCodec.invalid("self", "no registered region matches the key");
            }
            return new Key(r, base, len);
        });
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        return Integer.signum(Key.ORDER.compare((Key) a, (Key) b));
    }
}
