package weft.uct.cma;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.RegistrationCache;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory domain of the cma transport. Registration pins nothing: the kernel reads a peer's memory
 * by virtual address, so a registration is only a record (id, base, length) that a remote key
 * names. Registering a region that is already registered (or lies inside one) is a cache lookup.
 *
 * <p>Remote key body (inside the {@link RkeyCodec} envelope, little endian):
 * <pre>
 *  0        4                12               20               28
 *  +--------+----------------+----------------+----------------+
 *  | pid    | base           | length         | registration id|
 *  +--------+----------------+----------------+----------------+
 *    u32       u64              u64              u64
 * </pre>
 * The initiator bounds-checks every access against {@code [base, base + length)}; the kernel cannot
 * revoke access, so a peer must not use a key after the owner deregistered (as in UCX). Keys are not
 * symmetric (no {@link weft.uct.MemoryDomainAttributes#SYMMETRIC_RKEY}): they name the owner's pid.
 */
final class CmaMemoryDomain implements MemoryDomain {
    static final String NAME = "cma";
    static final int BODY = 4 + 8 + 8 + 8;
    private static final int PID = LibC.getpid();

    private final AtomicLong ids = new AtomicLong();
    private final RegistrationCache<Registration> cache =
        new RegistrationCache<>(this::newRegistration, r -> r.live = false);
    // handles that own memory, freed on close() if the user did not deregister them
    private final java.util.Set<Handle> owned = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** One cached registration; several handles may share it. */
    static final class Registration {
        final long id;
        final long base;
        final long length;
        volatile boolean live = true;

        Registration(final long id, final long base, final long length) {
            this.id = id;
            this.base = base;
            this.length = length;
        }
    }

    /** What {@link #register}/{@link #allocate} return: the caller's range and its registration. */
    static final class Handle implements MemoryHandle {
        final CmaMemoryDomain md;
        final Registration reg;
        final MemorySegment segment;
        final Arena arena; // owned memory (allocate) or null (registered user memory)
        boolean released;

        Handle(final CmaMemoryDomain md, final Registration reg, final MemorySegment segment, final Arena arena) {
            this.md = md;
            this.reg = reg;
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

        /** Id of the shared registration (equal ids mean the cache answered). */
        long registrationId() {
            return reg.id;
        }
    }

    /** An unpacked key: which process, which range. Immutable apart from {@link #close()}. */
    static final class Key implements RemoteKey {
        final int pid;
        final long base;
        final long length;
        final long id;
        private volatile boolean closed;

        Key(final int pid, final long base, final long length, final long id) {
            this.pid = pid;
            this.base = base;
            this.length = length;
            this.id = id;
        }

        @Override
        public long base() {
            return base;
        }

        @Override
        public long length() {
            return length;
        }

        boolean isClosed() {
            return closed;
        }

        @Override
        public MemorySegment ptr(final long address, final long len) {
            throw new WeftException(Status.UNSUPPORTED, "cma: remote memory cannot be mapped (no rkey_ptr)");
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private Registration newRegistration(final MemorySegment seg) {
        return new Registration(ids.incrementAndGet(), seg.address(), seg.byteSize());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public MemoryDomainAttributes attributes() {
        return new MemoryDomainAttributes(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.REG
            | MemoryDomainAttributes.NEED_RKEY, Long.MAX_VALUE, Long.MAX_VALUE, 50, 0,
            RkeyCodec.pack(NAME, new byte[BODY]).length);
    }

    @Override
    public MemoryHandle allocate(final long length) {
        checkOpen();
        if (length < 0) {
            throw new WeftException(Status.INVALID_PARAM, "cma: negative allocation length " + length);
        }
        final Arena arena = Arena.ofShared();
        try {
            final MemorySegment seg = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
            final Handle h = new Handle(this, cache.register(seg), seg, arena);
            owned.add(h);
            return h;
        } catch (final RuntimeException | OutOfMemoryError e) {
            arena.close();
            throw new WeftException(Status.NO_MEMORY, "cma: cannot allocate " + length + " bytes", e);
        }
    }

    @Override
    public MemoryHandle register(final MemorySegment segment) {
        checkOpen();
        if (!segment.isNative()) {
            throw new WeftException(Status.INVALID_PARAM, "cma: only native (off-heap) memory can be registered");
        }
        return new Handle(this, cache.register(segment), segment, null);
    }

    @Override
    public void deregister(final MemoryHandle handle) {
        if (!(handle instanceof Handle h) || h.md != this) {
            throw new WeftException(Status.INVALID_PARAM, "cma: handle does not belong to this domain");
        }
        synchronized (h) {
            if (h.released) {
                return;
            }
            h.released = true;
        }
        if (h.reg.live) {
            cache.release(h.reg);
        }
        if (h.arena != null) {
            // the memory goes away: no other handle may keep a registration inside it
            cache.invalidate(h.segment.address(), h.segment.byteSize());
            owned.remove(h);
            h.arena.close();
        }
    }

    @Override
    public byte[] packRkey(final MemoryHandle handle) {
        if (!(handle instanceof Handle h) || h.md != this || h.released || !h.reg.live) {
            throw new WeftException(Status.INVALID_PARAM, "cma: cannot pack a key for a foreign or released handle");
        }
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PID).putLong(h.segment.address()).putLong(h.segment.byteSize()).putLong(h.reg.id);
        return RkeyCodec.pack(NAME, b.array());
    }

    @Override
    public RemoteKey unpackRkey(final byte[] packed) {
        return RkeyCodec.read(NAME, packed, b -> {
            final int pid = b.getInt();
            final long base = b.getLong();
            final long length = b.getLong();
            final long id = b.getLong();
            if (pid <= 0) {
                throw RkeyCodec.invalid(NAME, "bad process id " + pid + " in remote key");
            }
            if (length < 0 || base + length < base) {
                throw RkeyCodec.invalid(NAME, "remote key region [0x" + Long.toHexString(base) + ", +" + length
                    + ") wraps around the address space");
            }
            return new Key(pid, base, length, id);
        });
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        if (!(a instanceof Key x) || !(b instanceof Key y)) {
            throw new WeftException(Status.INVALID_RKEY, "cma: can only compare cma remote keys");
        }
        int c = Integer.compare(x.pid, y.pid);
        if (c == 0) {
            c = Long.compareUnsigned(x.base, y.base);
        }
        if (c == 0) {
            c = Long.compare(x.length, y.length);
        }
        if (c == 0) {
            c = Long.compare(x.id, y.id);
        }
        return Integer.signum(c);
    }

    /** Registrations currently cached (for tests and tools). */
    int cachedRegistrations() {
        return cache.size();
    }

    /** Times a registration was answered from the cache. */
    long cacheHits() {
        return cache.hits();
    }

    private void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "cma: memory domain is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        for (final Handle h : owned) {
            deregister(h);
        }
        cache.clear();
    }
}
