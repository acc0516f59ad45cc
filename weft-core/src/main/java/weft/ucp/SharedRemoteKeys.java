package weft.ucp;

import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.RemoteKey;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The unpacked transport keys of one worker, shared where a domain allows it: a key of a domain with
 * {@link MemoryDomainAttributes#SYMMETRIC_RKEY} is pure identity (no local resource), so byte-equal
 * keys, as every PE of a job packs for a symmetric registration, are unpacked once and shared,
 * reference counted, by every {@link Rkey} that carries them, whatever endpoint (PE) it was unpacked
 * for. N peers × S symmetric segments thus hold S unpacked keys, not N × S (the OpenSHMEM rkey store,
 * built in). The store is sorted by {@link Rkey#compare(byte[], byte[])} on the packed key: a lookup
 * is O(log n). Keys of other domains (shm, cma, self name one process's memory) are unpacked per call,
 * as before. Setup path (unpack, close), thread safe.
 */
final class SharedRemoteKeys {
    private final TreeMap<byte[], Entry> byBytes = new TreeMap<>(Rkey::compare);
    private final Map<RemoteKey, Entry> byKey = new IdentityHashMap<>();

    private static final class Entry {
        final byte[] bytes;
        final RemoteKey key;
        int refs;

        Entry(final byte[] bytes, final RemoteKey key) {
            this.bytes = bytes;
            this.key = key;
        }
    }

    /** The unpacked key for {@code packed}: shared when {@code md} allows, else a new one. */
    RemoteKey acquire(final MemoryDomain md, final byte[] packed) {
        if (!md.attributes().has(MemoryDomainAttributes.SYMMETRIC_RKEY)) {
            return md.unpackRkey(packed);
        }
        synchronized (this) {
            Entry e = byBytes.get(packed);
            if (e == null) {
                final byte[] own = packed.clone();
                e = new Entry(own, md.unpackRkey(own));
                byBytes.put(own, e);
                byKey.put(e.key, e);
            }
            e.refs++;
            return e.key;
        }
    }

    /** Drops one use of {@code k}; closes it when it is not shared or no use is left. */
    void release(final RemoteKey k) {
        synchronized (this) {
            final Entry e = byKey.get(k);
            if (e != null) {
                if (--e.refs > 0) {
                    return;
                }
                byKey.remove(k);
                byBytes.remove(e.bytes);
            }
        }
        k.close();
    }

    /** Shared keys held now. */
    synchronized int size() {
        return byBytes.size();
    }
}
