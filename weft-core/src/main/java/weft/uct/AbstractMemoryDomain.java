package weft.uct;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.RegistrationCache;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Base of the memory domains that register process memory through {@link RegistrationCache}s (self,
 * cma, tcp). It owns the handle bookkeeping every such domain needs: a handle is the caller's range
 * plus the (shared, reference counted) {@link Region} the cache answered; {@link #allocate} memory
 * belongs to its handle and is freed on {@link #deregister} or {@link #close}; deregistering is
 * idempotent; memory that goes away invalidates every registration inside it.
 *
 * <p>A subclass says what a region is (its registrar makes one, its deregistrar revokes it), packs
 * and unpacks keys, and may keep several caches (tcp keeps one for private and one for symmetric
 * registrations). Setup path only: nothing here runs per message.
 *
 * @param <R> the subclass's region type
 */
public abstract class AbstractMemoryDomain<R extends AbstractMemoryDomain.Region> implements MemoryDomain {
    private final String name;
    private final List<RegistrationCache<R>> caches = new ArrayList<>(2);
    // handles that own memory, freed on close() if the user did not deregister them
    private final Set<Handle<R>> owned = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * A registered range of process memory, shared by the handles the cache answers for it. Its
     * {@code live} flag turns false once, when the last reference goes or the memory goes away; keys
     * that name it fail from then on.
     */
    public static class Region {
        private final long id;
        private final long address;
        private final long length;
        private volatile boolean live = true;

        public Region(final long id, final MemorySegment segment) {
            this.id = id;
            this.address = segment.address();
            this.length = segment.byteSize();
        }

        /** The domain's id of this registration (what keys name). */
        public final long id() {
            return id;
        }

        /** Start address of the registered range. */
        public final long address() {
            return address;
        }

        /** Length of the registered range. */
        public final long length() {
            return length;
        }

        /** True until {@link #revoke}. */
        public final boolean isLive() {
            return live;
        }

        /** Marks the region dead; true if it was live (only the first call revokes). */
        public final synchronized boolean revoke() {
            final boolean was = live;
            live = false;
            return was;
        }
    }

    /** What {@link #register}/{@link #allocate} return: the caller's range and its region. */
    public static final class Handle<R extends Region> implements MemoryHandle {
        private final AbstractMemoryDomain<R> md;
        private final RegistrationCache<R> cache;
        private final R region;
        private final MemorySegment segment;
        private final Arena arena; // owned memory (allocate) or null (registered user memory)
        private boolean released;

        Handle(final AbstractMemoryDomain<R> md, final RegistrationCache<R> cache, final MemorySegment segment,
               final Arena arena) {
            this.md = md;
            this.cache = cache;
            this.region = cache.register(segment);
            this.segment = segment;
            this.arena = arena;
        }

        /** The shared region (the same object for every handle the cache answered from it). */
        public R region() {
            return region;
        }

        /** True if this handle came from the given cache (tcp: symmetric or private). */
        public boolean isIn(final RegistrationCache<R> c) {
            return cache == c;
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public MemoryDomain domain() {
            return md;
        }

        /** Marks the handle released; false if it already was. */
        synchronized boolean release() {
            if (released) {
                return false;
            }
            released = true;
            return true;
        }

        synchronized boolean isReleased() {
            return released;
        }
    }

    protected AbstractMemoryDomain(final String name) {
        this.name = name;
    }

    /**
     * A new cache of this domain: {@code registrar} makes a region for a segment the cache does not
     * hold, and the region is {@link #revoked} when its last reference goes.
     */
    protected final RegistrationCache<R> newCache(final Function<MemorySegment, R> registrar) {
        final RegistrationCache<R> c = new RegistrationCache<>(registrar, this::revoked);
        caches.add(c);
        return c;
    }

    /** Called once per region when the caches drop it: revoke it (keys naming it fail from now on). */
    protected abstract void revoked(R region);

    @Override
    public final String name() {
        return name;
    }

    @Override
    public MemoryHandle allocate(final long length) {
        return allocate(caches.get(0), length);
    }

    /** Allocates {@code length} bytes this domain owns, registered in {@code cache}. */
    protected final MemoryHandle allocate(final RegistrationCache<R> cache, final long length) {
        checkOpen();
        if (length < 0) {
            throw new WeftException(Status.INVALID_PARAM, name + ": negative allocation length " + length);
        }
        final Arena arena = Arena.ofShared();
        try {
            final MemorySegment seg = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
            final Handle<R> h = new Handle<>(this, cache, seg, arena);
            owned.add(h);
            return h;
        } catch (final RuntimeException | OutOfMemoryError e) {
            arena.close();
            throw new WeftException(Status.NO_MEMORY, name + ": cannot allocate " + length + " bytes", e);
        }
    }

    @Override
    public MemoryHandle register(final MemorySegment segment) {
        return register(caches.get(0), segment);
    }

    /** Registers user memory in {@code cache} (a lookup if a live registration holds it). */
    protected final MemoryHandle register(final RegistrationCache<R> cache, final MemorySegment segment) {
        checkOpen();
        if (!segment.isNative()) {
            throw new WeftException(Status.INVALID_PARAM, name + ": only off-heap (native) memory can be registered");
        }
        return new Handle<>(this, cache, segment, null);
    }

    @Override
    public final void deregister(final MemoryHandle handle) {
        final Handle<R> h = own(handle);
        if (!h.release()) {
            return;
        }
        if (h.region.isLive()) {
            h.cache.release(h.region);
        }
        if (h.arena != null) {
            // the memory goes away: no registration may outlive it
            final long length = Math.max(1, h.segment.byteSize());
            for (final RegistrationCache<R> c : caches) {
                c.invalidate(h.segment.address(), length);
            }
            owned.remove(h);
            h.arena.close();
        }
    }

    /**
     * The handle a key may be packed for: this domain's, not released, its region live.
     *
     * @throws WeftException INVALID_PARAM otherwise
     */
    protected final Handle<R> packable(final MemoryHandle handle) {
        if (!(handle instanceof Handle<?> h) || h.md != this || h.isReleased() || !h.region.isLive()) {
            throw new WeftException(Status.INVALID_PARAM, name + ": cannot pack a key for a foreign or released handle");
        }
        @SuppressWarnings("unchecked") // h.md == this, so its region is an R
        final Handle<R> mine = (Handle<R>) h;
        return mine;
    }

    private Handle<R> own(final MemoryHandle handle) {
        if (!(handle instanceof Handle<?> h) || h.md != this) {
            throw new WeftException(Status.INVALID_PARAM, name + ": handle does not belong to this domain");
        }
        @SuppressWarnings("unchecked") // h.md == this, so its region is an R
        final Handle<R> mine = (Handle<R>) h;
        return mine;
    }

    /** Registrations answered from the caches (tests, benchmarks). */
    public final long cacheHits() {
        long n = 0;
        for (final RegistrationCache<R> c : caches) {
            n += c.hits();
        }
        return n;
    }

    /** Registrations the caches hold now (tests). */
    public final int cachedRegions() {
        int n = 0;
        for (final RegistrationCache<R> c : caches) {
            n += c.size();
        }
        return n;
    }

    private void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, name + ": memory domain is closed");
        }
    }

    /** Frees the memory this domain allocated and drops every registration (their keys fail from now on). */
    protected final void releaseAll() {
        for (final Handle<R> h : owned) {
            deregister(h);
        }
        for (final RegistrationCache<R> c : caches) {
            c.clear();
        }
    }

    /** Releases everything (see {@link #releaseAll}); later allocations and registrations answer CLOSED. */
    @Override
    public void close() {
        closed = true;
        releaseAll();
    }
}
