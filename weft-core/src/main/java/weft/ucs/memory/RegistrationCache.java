package weft.ucs.memory;

import java.lang.foreign.MemorySegment;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Caches registrations by address range so that registering memory that is already registered
 * (or lies inside a registered region) is a lookup. Entries are reference counted:
 * {@link #release} drops a reference and deregisters at zero; {@link #invalidate} drops an entry
 * at once (the memory is going away). Thread safe; used on the setup path, not per message.
 *
 * @param <H> the registration handle type
 */
public final class RegistrationCache<H> {
    private final Function<MemorySegment, H> registrar;
    private final Consumer<H> deregistrar;
    // ordered by (start, end, seq): two regions may start at the same address with different ends
    private final TreeSet<Entry<H>> byStart = new TreeSet<>(RegistrationCache::compare);
    // release finds an entry in O(1); handles are distinct per entry
    private final java.util.IdentityHashMap<H, Entry<H>> byHandle = new java.util.IdentityHashMap<>();
    /** No entry was ever longer than this: a lookup stops scanning at entries starting before end - maxLength. */
    private long maxLength;
    private long seq;
    private long hits;
    private long misses;

    private static final class Entry<H> {
        final long start;
        final long end;
        final long seq;
        final H handle;
        int refs;

        Entry(final long start, final long end, final long seq, final H handle) {
            this.start = start;
            this.end = end;
            this.seq = seq;
            this.handle = handle;
        }
    }

    public RegistrationCache(final Function<MemorySegment, H> registrar, final Consumer<H> deregistrar) {
        this.registrar = registrar;
        this.deregistrar = deregistrar;
    }

    /** Returns the handle of a registered region containing {@code seg}, registering it if none does. */
    public synchronized H register(final MemorySegment seg) {
        final long start = seg.address();
        final long end = start + seg.byteSize();
        // any entry starting at or before seg may contain it, not only the nearest one; none starting
        // before end - maxLength can reach end, which bounds the scan
        final Entry<H> probe = new Entry<>(start, Long.MAX_VALUE, Long.MAX_VALUE, null);
        for (final Entry<H> e : byStart.headSet(probe, true).descendingSet()) {
            if (e.start < end - maxLength) {
                break;
            }
            if (e.end >= end) {
                hits++;
                e.refs++;
                return e.handle;
            }
        }
        misses++;
        final H h = registrar.apply(seg);
        final Entry<H> e = new Entry<>(start, end, seq++, h);
        e.refs = 1;
        byStart.add(e);
        byHandle.put(h, e);
        maxLength = Math.max(maxLength, end - start);
        return h;
    }

    /** Drops one reference to {@code handle}; deregisters it when none is left. */
    public synchronized void release(final H handle) {
        final Entry<H> e = byHandle.get(handle);
        if (e == null) {
            throw new IllegalArgumentException("handle is not in the registration cache");
        }
        if (--e.refs == 0) {
            byStart.remove(e);
            byHandle.remove(handle);
            deregistrar.accept(e.handle);
        }
    }

    /** Deregisters every entry overlapping {@code [address, address + length)} (memory is being freed). */
    public synchronized int invalidate(final long address, final long length) {
        int n = 0;
        for (final var it = byStart.iterator(); it.hasNext();) {
            final Entry<H> e = it.next();
            if (e.start < address + length && address < e.end) {
                it.remove();
                byHandle.remove(e.handle);
                deregistrar.accept(e.handle);
                n++;
            }
        }
        return n;
    }

    public synchronized int size() {
        return byStart.size();
    }

    public synchronized long hits() {
        return hits;
    }

    public synchronized long misses() {
        return misses;
    }

    /** Deregisters everything. */
    public synchronized void clear() {
        for (final Entry<H> e : byStart) {
            deregistrar.accept(e.handle);
        }
        byStart.clear();
        byHandle.clear();
    }

    // by hand: Comparator.comparing's lambdas are serializable ones, which the AOT cache does not link
    private static <H> int compare(final Entry<H> a, final Entry<H> b) {
        final int c = Long.compare(a.start, b.start);
        if (c != 0) {
            return c;
        }
        final int d = Long.compare(a.end, b.end);
        return d != 0 ? d : Long.compare(a.seq, b.seq);
    }
}
