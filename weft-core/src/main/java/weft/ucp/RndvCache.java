package weft.ucp;

import weft.ucp.wire.KeyList;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One endpoint's rendezvous caches, so that a large message sent again and again from (or into) the same
 * buffer allocates nothing: the sender's registrations of its buffers on the rendezvous lanes with their
 * packed keys, and the receiver's unpacked remote keys by their packed bytes.
 *
 * <p>Registrations: a buffer lying inside a cached region of the same live memory scope reuses its
 * handles and packed keys (the same keys again, so the peer's key cache hits too). A region stays
 * registered while cached, also after its sends completed (as UCX's registration cache keeps it);
 * an entry whose scope was closed is dropped at the next lookup, and everything at endpoint close.
 *
 * <p>Remote keys: the key bytes of an RTS or RTR_PUT are compared in place with the cached ones; a hit
 * returns the cached {@code byte[][]} (no copy), whose unpacked keys are reused by
 * {@link #unpack}. A key is the same bytes only for the same live registration (a new registration has a
 * new id), so a reused key is as valid as a fresh one.
 *
 * <p>Entries in use by a request (reference counted) are never evicted; when every slot is in use the
 * caller falls back to an uncached registration or copy (which allocates, as before). Single-threaded:
 * used under the worker's guard.
 */
final class RndvCache {
    private static final int SLOTS = 4;
    private static final byte[][] NO_KEYS = new byte[0][];

    // ------------------------------------------------------------------ registrations (local buffers)
    private final Endpoint ep;
    private final MemorySegment[] regScope = new MemorySegment[SLOTS]; // the registered region (scope, range)
    private final MemoryHandle[][] regHandles = new MemoryHandle[SLOTS][];
    private final byte[][][] regKeys = new byte[SLOTS][][];
    private final int[] regRefs = new int[SLOTS];
    private final long[] regUsed = new long[SLOTS];

    // ------------------------------------------------------------------ remote keys (peer's buffers)
    private final byte[][][] keyBytes = new byte[SLOTS][][];
    private final RemoteKey[][] keyUnpacked = new RemoteKey[SLOTS][];
    private final int[] keyRefs = new int[SLOTS];
    private final long[] keyUsed = new long[SLOTS];
    private long clock;
    private boolean closed; // endpoint closed: entries still in use are dropped at their last release
    /** Registrations and remote keys found in the cache (tests check the caches work). */
    long registrationHits;
    long keyHits;

    RndvCache(final Endpoint ep) {
        this.ep = ep;
    }

    /**
     * The handles of {@code [offset, offset + length)} of {@code buf} on every rendezvous lane, with their
     * packed keys at {@link #packedKeys}: cached, or registered now (may throw
     * {@link weft.ucs.WeftException}). Pair with {@link #releaseHandles}.
     */
    MemoryHandle[] acquireHandles(final MemorySegment buf, final long offset, final long length) {
        final Lane[] lanes = ep.rndv;
        if (!buf.isNative() || closed) {
            return registerUncached(buf, offset, length, lanes);
        }
        final long start = buf.address() + offset;
        final long end = start + length;
        int victim = -1;
        for (int i = 0; i < SLOTS; i++) {
            final MemorySegment s = regScope[i];
            if (s != null && !s.scope().isAlive() && regRefs[i] == 0) {
                dropRegistration(i); // the memory is gone: its registration must not match a new buffer
            }
            if (regScope[i] == null) {
                if (victim < 0 || regScope[victim] != null) {
                    victim = i;
                }
                continue;
            }
            if (regScope[i].scope().equals(buf.scope()) && regScope[i].address() <= start
                && end <= regScope[i].address() + regScope[i].byteSize() && regHandles[i].length == lanes.length) {
                regRefs[i]++;
                regUsed[i] = ++clock;
                registrationHits++;
                return regHandles[i];
            }
            if (regRefs[i] == 0 && (victim < 0 || regScope[victim] != null && regUsed[i] < regUsed[victim])) {
                victim = i;
            }
        }
        if (victim < 0) {
            return registerUncached(buf, offset, length, lanes);
        }
        if (regScope[victim] != null) {
            dropRegistration(victim);
        }
        final MemorySegment region = buf.asSlice(offset, length);
        final MemoryHandle[] hs = registerUncached(buf, offset, length, lanes);
        final byte[][] keys = new byte[hs.length][];
        for (int i = 0; i < hs.length; i++) {
            keys[i] = lanes[i].local.md.packRkey(hs[i]);
        }
        regScope[victim] = region;
        regHandles[victim] = hs;
        regKeys[victim] = keys;
        regRefs[victim] = 1;
        regUsed[victim] = ++clock;
        return hs;
    }

    private static MemoryHandle[] registerUncached(final MemorySegment buf, final long offset, final long length,
                                                   final Lane[] lanes) {
        final MemoryHandle[] hs = new MemoryHandle[lanes.length];
        final MemorySegment region = buf.asSlice(offset, length);
        try {
            for (int i = 0; i < lanes.length; i++) {
                hs[i] = lanes[i].local.md.register(region);
            }
        } catch (final RuntimeException e) {
            for (int i = 0; i < hs.length; i++) {
                if (hs[i] != null) {
                    lanes[i].local.md.deregister(hs[i]);
                }
            }
            throw e;
        }
        return hs;
    }

    /** The packed keys of handles from {@link #acquireHandles}: cached, or packed now. */
    byte[][] packedKeys(final MemoryHandle[] hs) {
        for (int i = 0; i < SLOTS; i++) {
            if (regHandles[i] == hs) {
                return regKeys[i];
            }
        }
        final byte[][] keys = new byte[hs.length][];
        for (int i = 0; i < hs.length; i++) {
            keys[i] = ep.rndv[i].local.md.packRkey(hs[i]);
        }
        return keys;
    }

    /** Releases the rendezvous registrations of {@code r}'s data, if any. */
    void release(final Request r) {
        final MemoryHandle[] hs = r.rndv.handles;
        r.rndv.handles = null;
        if (hs != null) {
            releaseHandles(hs);
        }
    }

    /** Releases handles from {@link #acquireHandles}: a cached entry stays registered, others are deregistered. */
    void releaseHandles(final MemoryHandle[] hs) {
        for (int i = 0; i < SLOTS; i++) {
            if (regHandles[i] == hs) {
                if (--regRefs[i] == 0 && closed) {
                    dropRegistration(i);
                }
                return;
            }
        }
        for (int i = 0; i < hs.length; i++) {
            if (hs[i] != null) {
                ep.rndv[i].local.md.deregister(hs[i]);
            }
        }
    }

    private void dropRegistration(final int i) {
        final MemoryHandle[] hs = regHandles[i];
        regScope[i] = null;
        regHandles[i] = null;
        regKeys[i] = null;
        regRefs[i] = 0;
        for (int l = 0; l < hs.length && l < ep.rndv.length; l++) {
            ep.rndv[l].local.md.deregister(hs[l]);
        }
    }

    // ------------------------------------------------------------------ remote keys

    /**
     * The {@code n} keys packed at {@code p} of {@code d} as {@code [u16 len][key]*n}: a cached array when
     * the same bytes came before, else a copy (cached if a slot is free). Null if they run past
     * {@code end}.
     */
    byte[][] keys(final MemorySegment d, final long p, final int n, final long end) {
        if (n == 0) {
            return NO_KEYS; // no get offered (put or AM data path)
        }
        int victim = -1;
        for (int i = 0; i < SLOTS; i++) {
            final byte[][] k = keyBytes[i];
            if (k == null) {
                if (victim < 0 || keyBytes[victim] != null) {
                    victim = i;
                }
                continue;
            }
            if (k.length == n && same(d, p, end, k)) {
                keyUsed[i] = ++clock;
                return k;
            }
            if (keyRefs[i] == 0 && (victim < 0 || keyBytes[victim] != null && keyUsed[i] < keyUsed[victim])) {
                victim = i;
            }
        }
        final byte[][] keys = new byte[n][];
        long q = p;
        for (int i = 0; i < n; i++) {
            if (q + KeyList.LENGTH_SIZE > end) {
                return null;
            }
            final int kl = KeyList.keyLength(d, q);
            if (q + KeyList.LENGTH_SIZE + kl > end) {
                return null;
            }
            keys[i] = d.asSlice(q + KeyList.LENGTH_SIZE, kl).toArray(ValueLayout.JAVA_BYTE);
            q += KeyList.LENGTH_SIZE + kl;
        }
        if (victim >= 0 && !closed) {
            if (keyBytes[victim] != null) {
                dropKeys(victim);
            }
            keyBytes[victim] = keys;
            keyUsed[victim] = ++clock;
        }
        return keys;
    }

    /**
     * Whether the keys at {@code p} are byte for byte {@code keys}. Compared byte by byte (keys are tens of
     * bytes): no heap segment wraps the arrays, whose slicing would make the JDK's segment slicing
     * megamorphic (docs/ARCHITECTURE.md, errno capture).
     */
    private static boolean same(final MemorySegment d, final long p, final long end, final byte[][] keys) {
        long q = p;
        for (final byte[] k : keys) {
            final int kl = k.length;
            if (q + KeyList.LENGTH_SIZE + kl > end || KeyList.keyLength(d, q) != kl) {
                return false;
            }
            for (int i = 0; i < kl; i++) {
                if (d.get(ValueLayout.JAVA_BYTE, q + KeyList.LENGTH_SIZE + i) != k[i]) {
                    return false;
                }
            }
            q += KeyList.LENGTH_SIZE + kl;
        }
        return true;
    }


    /**
     * The unpacked keys of {@code keys} on the rendezvous lanes: the cached ones if {@code keys} came from
     * the cache, else unpacked now (may throw {@link weft.ucs.WeftException}). Pair with {@link #releaseKeys}.
     */
    RemoteKey[] unpack(final byte[][] keys) {
        int slot = -1;
        for (int i = 0; i < SLOTS; i++) {
            if (keyBytes[i] == keys) {
                slot = i;
                break;
            }
        }
        if (slot >= 0 && keyUnpacked[slot] != null) {
            keyRefs[slot]++;
            keyHits++;
            return keyUnpacked[slot];
        }
        final RemoteKey[] rk = new RemoteKey[keys.length];
        try {
            for (int i = 0; i < keys.length; i++) {
                rk[i] = ep.rndv[i].local.md.unpackRkey(keys[i]);
            }
        } catch (final RuntimeException e) {
            close(rk);
            throw e;
        }
        if (slot >= 0) {
            keyUnpacked[slot] = rk;
            keyRefs[slot] = 1;
        }
        return rk;
    }

    /** Releases keys from {@link #unpack}: cached ones stay unpacked, others are closed. */
    void releaseKeys(final RemoteKey[] rk) {
        for (int i = 0; i < SLOTS; i++) {
            if (keyUnpacked[i] == rk) {
                if (--keyRefs[i] == 0 && closed) {
                    dropKeys(i);
                }
                return;
            }
        }
        close(rk);
    }

    private void dropKeys(final int i) {
        close(keyUnpacked[i]);
        keyBytes[i] = null;
        keyUnpacked[i] = null;
        keyRefs[i] = 0;
    }

    private static void close(final RemoteKey[] rk) {
        if (rk == null) {
            return;
        }
        for (final RemoteKey k : rk) {
            if (k != null) {
                k.close();
            }
        }
    }

    /**
     * Endpoint close: deregisters and closes everything cached; what a request still uses goes at its
     * release (never twice).
     */
    void close() {
        closed = true;
        for (int i = 0; i < SLOTS; i++) {
            if (regHandles[i] != null && regRefs[i] == 0) {
                dropRegistration(i);
            }
            if (keyBytes[i] != null && keyRefs[i] == 0) {
                dropKeys(i);
            }
        }
    }
}
