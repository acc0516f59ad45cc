package weft.uct.tcp;

import weft.ucs.memory.LazyMemory;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;
import weft.uct.AbstractMemoryDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The bytes of one connection direction that the peer has not acknowledged yet, so that they can
 * be sent again on a new socket after the old one broke (see {@link TcpConnection}: resume).
 *
 * <p>The log mirrors the channel's stream: every byte queued after the handshake is logged at its
 * stream position ({@link TcpChannel#bytesQueued}'s scale), and an ACK from the peer forgets the
 * bytes below the position it names. Bytes come in three kinds:
 * <ul>
 *   <li>{@link #copy copied}: frames built in the tx buffer (which reuses its room once they are
 *   written) and zero-copy AM payloads (whose owner may reuse them once they are written): copied
 *   into the log's own ring;</li>
 *   <li>{@link #REF referenced}: put payloads, whose owner keeps them unchanged until the target's
 *   PUT_ACK, which comes only after the target consumed them (so they are never needed after);</li>
 *   <li>{@link #VOLATILE}: large get replies written straight from a registered region. The region
 *   stays as the reply read it until the server applies a later request of the same stream (a put,
 *   an atomic, an AM whose handler may write it; what else writes it races with the get, whose
 *   requester has not consumed these bytes yet). So before it applies such a request the server
 *   {@link #settle settles} the log: the volatile bytes not acknowledged yet are copied into a second
 *   ring ({@link #SETTLED}), in stream order as they are forgotten. A resume settles what is left
 *   (re-reading the region, which nothing ordered after the reply has changed), unless the region was
 *   deregistered meanwhile: then those bytes cannot be replayed and the connection fails.</li>
 * </ul>
 * The peer acknowledges every {@link TcpConnection#ACK_EVERY} bytes it consumed; between those, when the copies
 * kept reach {@link #ASK_AT}, the next frame logged asks for an ACK ({@link #copyFrames}), so that small-message
 * traffic keeps the copy ring at {@link #BUSY_CAP}.
 * Each ring grows by doubling up to {@code max} bytes; beyond that the oldest copies are forgotten
 * unacknowledged, and a resume from below them fails ({@link #replayable}); volatile bytes that do
 * not fit the settled ring stay volatile and are replayable only while no later request was applied.
 *
 * <p>Single threaded (the interface's progress thread).
 */
final class TcpReplayLog {
    static final byte COPY = 0;
    static final byte REF = 1;
    static final byte VOLATILE = 2;
    /** Volatile bytes copied into the settled ring. */
    static final byte SETTLED = 3;
    /** First ring: a connection that carries a few small messages between acknowledgements costs 1 KiB. */
    static final int FIRST_CAP = 1024;
    /**
     * A ring that outgrows its first size grows to this at once. With {@link #ASK_AT} at half of it, a ping-pong
     * or a window of small frames is acknowledged before it fills this ring: one ACK frame every 4 KiB of small
     * frames (~170 8-byte tag messages), against a ring of 8 KiB instead of up to 2 x {@link TcpConnection#ACK_EVERY}.
     */
    static final int BUSY_CAP = 8 * 1024;
    /** Copied bytes kept from which the next frame asks the peer for an ACK ({@link TcpFrame#FLAG_ASK}). */
    static final int ASK_AT = BUSY_CAP / 2;
    /** Rings from this size on are mapped lazily (pages appear as copies are written); smaller ones are malloc'd. */
    private static final int LAZY_CAP = 64 * 1024;
    /** First size of the entry arrays. */
    static final int FIRST_ENTRIES = 16;
    private static final MemorySegment ALL = TcpInterface.ALL;

    private final int max;
    /** Where the copy ring's largest size is counted ({@link Counter#REPLAY_LOG_BYTES}); null in unit tests. */
    private final Counters counters;
    /** The copy ring's largest size so far, and the most copied bytes it held unacknowledged at once. */
    private int peakCap;
    private int peakUsed;
    /** Frames and AM payloads ({@link #COPY}). */
    private final Ring ring = new Ring();
    /** Settled get replies ({@link #SETTLED}); allocated by the first settle. */
    private final Ring settledRing = new Ring();
    /** {@link #VOLATILE} entries kept; the regions they read, by entry index (allocated with the first). */
    private int volatiles;
    private AbstractMemoryDomain.Region[] eRegion;

    private int eCap = FIRST_ENTRIES;
    private int eHead;
    private int eCount;
    private long[] ePos = new long[eCap];
    private long[] eAddr = new long[eCap];
    private long[] eLen = new long[eCap];
    private byte[] eKind = new byte[eCap];

    /** Position of the oldest byte kept. */
    private long start;
    /** Position after the last byte logged (= the channel's bytesQueued). */
    private long end;
    /** Bytes below this position were forgotten unacknowledged (the ring was full). */
    private long lost;
    /** A frame asked the peer for an ACK, and no ACK came since. */
    private boolean asked;
    /** Bytes handed to the last {@link #fill}. */
    long filled;

    TcpReplayLog(final long position, final int max) {
        this(position, max, null);
    }

    TcpReplayLog(final long position, final int max, final Counters counters) {
        this.start = position;
        this.end = position;
        this.lost = position;
        this.max = Math.max(LAZY_CAP, max);
        this.counters = counters;
    }

    long start() {
        return start;
    }

    long end() {
        return end;
    }

    /** Logs {@code n} bytes at {@code off} of {@code src} (a copy). */
    void copy(final MemorySegment src, final long off, final int n) {
        if (n == 0) {
            return;
        }
        final int at = room(n);
        MemorySegment.copy(src, off, ring.buf, at, n);
        appendCopy(at, n);
    }

    /**
     * Logs {@code n} bytes of frames at {@code off} of {@code src} (the tx buffer, before they are written) as a
     * copy. When the copies kept reach {@link #ASK_AT} and no ask is outstanding, the first frame asks the peer
     * for an ACK: {@link TcpFrame#FLAG_ASK} is set in {@code src}, so the copy kept carries it too. One ask at a
     * time: a peer slow to answer (a stream faster than its reader) is asked once per ACK it sends.
     */
    void copyFrames(final MemorySegment src, final long off, final int n) {
        if (!asked && ring.used() >= ASK_AT) {
            asked = true;
            TcpFrame.ask(src, off);
            if (counters != null) {
                counters.increment(Counter.ACK_ASKS);
            }
        }
        copy(src, off, n);
    }

    /** Logs {@code n} bytes of memory at {@code address} as a copy. */
    void copyFrom(final long address, final long n) {
        long done = 0;
        while (done < n) {
            final int k = (int) Math.min(n - done, LAZY_CAP);
            final int at = room(k);
            MemoryCopy.copy(ALL, address + done, ring.buf, at, k);
            appendCopy(at, k);
            done += k;
        }
    }

    private void appendCopy(final int at, final int n) {
        ring.tail = at + n;
        ring.copies++;
        final int used = ring.used();
        if (used > peakUsed) {
            peakUsed = used;
        }
        if (eCount > 0) {
            final int last = (eHead + eCount - 1) & (eCap - 1);
            if (eKind[last] == COPY && eAddr[last] + eLen[last] == at) {
                eLen[last] += n; // contiguous with the previous copy: one entry
                ring.copies--;
                end += n;
                return;
            }
        }
        push(COPY, at, n);
    }

    /** Logs {@code n} bytes of memory at {@code address} by reference ({@link #REF}). */
    void reference(final long address, final long n) {
        if (n > 0) {
            push(REF, address, n);
        }
    }

    /** Logs {@code n} bytes of {@code region} at {@code address}, read by the socket as it takes them ({@link #VOLATILE}). */
    void referenceVolatile(final long address, final long n, final AbstractMemoryDomain.Region region) {
        if (n <= 0) {
            return;
        }
        if (eRegion == null) {
            eRegion = new AbstractMemoryDomain.Region[eCap];
        }
        push(VOLATILE, address, n);
        eRegion[(eHead + eCount - 1) & (eCap - 1)] = region;
        volatiles++;
    }

    private void push(final byte kind, final long addr, final long n) {
        if (eCount == eCap) {
            growEntries();
        }
        final int i = (eHead + eCount) & (eCap - 1);
        ePos[i] = end;
        eAddr[i] = addr;
        eLen[i] = n;
        eKind[i] = kind;
        eCount++;
        end += n;
    }

    /** The peer consumed every byte below {@code position}: forgets them. */
    void ack(final long position) {
        asked = false;
        while (eCount > 0) {
            final int i = eHead;
            final long e = ePos[i] + eLen[i];
            if (e <= position) {
                pop();
                continue;
            }
            if (ePos[i] < position) {
                final long d = position - ePos[i];
                ePos[i] += d;
                eAddr[i] += d;
                eLen[i] -= d;
                if (eKind[i] == COPY || eKind[i] == SETTLED) {
                    ringOf(eKind[i]).head = (int) eAddr[i];
                }
            }
            break;
        }
        start = Math.max(start, Math.min(position, end));
    }

    private Ring ringOf(final byte kind) {
        return kind == COPY ? ring : settledRing;
    }

    private void pop() {
        final int i = eHead;
        final byte kind = eKind[i];
        if (kind == COPY || kind == SETTLED) {
            ringOf(kind).release(eAddr[i] + eLen[i]);
        } else if (kind == VOLATILE) {
            eRegion[i] = null;
            volatiles--;
        }
        start = ePos[i] + eLen[i];
        eHead = (eHead + 1) & (eCap - 1);
        eCount--;
    }

    /** Forgets everything logged so far without an ack: no resume may replay it. */
    void forget() {
        while (eCount > 0) {
            pop();
        }
        start = end;
        lost = end;
    }

    /** Whether volatile bytes are kept (the server then settles before it applies a request). */
    boolean holdsVolatile() {
        return volatiles > 0;
    }

    /**
     * The server is about to apply a request that may change a region: copies every volatile byte
     * kept into the settled ring. Bytes that cannot be copied (no room within the limit, or their
     * region was deregistered) are marked lost: a resume that needs them fails.
     */
    void settleBeforeChange() {
        for (int k = 0; k < eCount && volatiles > 0; k++) {
            final int i = (eHead + k) & (eCap - 1);
            if (eKind[i] == VOLATILE && !settle(i)) {
                lost = Math.max(lost, ePos[i] + eLen[i]);
            }
        }
    }

    /**
     * Before a replay of the bytes below {@code to}: copies the volatile ones into the settled ring
     * (nothing ordered after their reply has changed their region), so that the replay reads no
     * region a later request may change. False if one could not be copied.
     */
    boolean settleForReplay(final long to) {
        boolean all = true;
        for (int k = 0; k < eCount && volatiles > 0; k++) {
            final int i = (eHead + k) & (eCap - 1);
            if (ePos[i] >= to) {
                break;
            }
            if (eKind[i] == VOLATILE && !settle(i)) {
                all = false;
            }
        }
        return all;
    }

    private boolean settle(final int i) {
        final AbstractMemoryDomain.Region region = eRegion[i];
        final long n = eLen[i];
        if (!region.isLive() || n > max) {
            return false;
        }
        final int at = settledRoom((int) n);
        if (at < 0) {
            return false;
        }
        // the region's owner may deregister it from another thread (its requester may already have
        // consumed these bytes): revoke() takes the same monitor, so the memory stays until the copy ends
        synchronized (region) {
            if (!region.isLive()) {
                return false;
            }
            MemoryCopy.copy(ALL, eAddr[i], settledRing.buf, at, n);
        }
        settledRing.tail = at + (int) n;
        settledRing.copies++;
        eKind[i] = SETTLED;
        eAddr[i] = at;
        eRegion[i] = null;
        volatiles--;
        return true;
    }

    /**
     * True when the bytes {@code [from, to)} are all kept and may be sent again; {@code from} must
     * also be at least the oldest position kept (the peer cannot have consumed less than it acked).
     * Volatile bytes count as kept while their region is registered ({@link #settleForReplay}
     * copies them before the replay).
     */
    boolean replayable(final long from, final long to) {
        if (from < start || from < lost || from > to || to > end) {
            return false;
        }
        for (int k = 0; k < eCount && volatiles > 0; k++) {
            final int i = (eHead + k) & (eCap - 1);
            if (ePos[i] >= to) {
                break;
            }
            if (eKind[i] == VOLATILE && ePos[i] + eLen[i] > from && !eRegion[i].isLive()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes iovec entries for the bytes from {@code from} (at most {@code to}) at {@code iovs},
     * at most {@code maxEntries}; returns their count and sets {@link #filled} to their bytes.
     */
    int fill(final long from, final long to, final long iovs, final int maxEntries) {
        int n = 0;
        long bytes = 0;
        for (int k = 0; k < eCount && n < maxEntries; k++) {
            final int i = (eHead + k) & (eCap - 1);
            final long p = ePos[i];
            final long e = p + eLen[i];
            if (e <= from) {
                continue;
            }
            if (p >= to) {
                break;
            }
            final long s = Math.max(p, from + bytes);
            final long len = Math.min(e, to) - s;
            final byte kind = eKind[i];
            final long base = (kind == COPY || kind == SETTLED ? ringOf(kind).buf.address() : 0) + eAddr[i] + (s - p);
            ALL.set(JAVA_LONG, iovs + 16L * n, base);
            ALL.set(JAVA_LONG, iovs + 16L * n + 8, len);
            bytes += len;
            n++;
        }
        filled = bytes;
        return n;
    }

    /** Offset of {@code n} contiguous free bytes in the copy ring, growing or forgetting to make room. */
    private int room(final int n) {
        if (ring.buf == null) {
            allocate(ring, Math.max(FIRST_CAP, Integer.highestOneBit(n - 1) << 1));
        }
        while (true) {
            final int at = ring.fit(n);
            if (at >= 0) {
                return at;
            }
            if (ring.cap < max) {
                grow(ring, COPY, n);
            } else if (ring.copies > 0) {
                lost = Math.max(lost, ePos[eHead] + eLen[eHead]);
                pop(); // full at its limit: the oldest bytes go unacknowledged
            } else {
                allocate(ring, Math.max(ring.cap, Integer.highestOneBit(n - 1) << 1));
            }
        }
    }

    /** Offset of {@code n} contiguous free bytes in the settled ring, growing to the limit; -1 if none. */
    private int settledRoom(final int n) {
        if (settledRing.buf == null) {
            settledRing.allocate(Math.max(FIRST_CAP, Integer.highestOneBit(Math.max(1, n - 1)) << 1));
        }
        while (true) {
            final int at = settledRing.fit(n);
            if (at >= 0) {
                return at;
            }
            if (settledRing.cap >= max) {
                return -1;
            }
            grow(settledRing, SETTLED, n);
        }
    }

    /**
     * Doubles ring {@code r}, to {@link #BUSY_CAP} at least (at least to hold {@code n} more), moving its entries'
     * bytes to its start in order.
     */
    private void grow(final Ring r, final byte kind, final int n) {
        int c = Math.max(BUSY_CAP, r.cap * 2);
        while (c < max && c - r.used() <= n) {
            c *= 2;
        }
        if (r.copies == 0) {
            allocate(r, c); // nothing to move; allocate frees the old ring
            return;
        }
        final MemorySegment old = r.buf;
        final Arena oldArena = r.arena;
        allocate(r, c);
        int at = 0;
        for (int k = 0; k < eCount; k++) {
            final int i = (eHead + k) & (eCap - 1);
            if (eKind[i] == kind) {
                MemorySegment.copy(old, eAddr[i], r.buf, at, eLen[i]);
                eAddr[i] = at;
                at += (int) eLen[i];
            }
        }
        r.head = 0;
        r.tail = at;
        oldArena.close();
    }

    /** Gives ring {@code r} a new buffer of {@code c} bytes; counts the copy ring's new largest size. */
    private void allocate(final Ring r, final int c) {
        r.allocate(c);
        if (r == ring && c > peakCap) {
            if (counters != null) {
                counters.add(Counter.REPLAY_LOG_BYTES, c - peakCap);
            }
            peakCap = c;
        }
    }

    private void growEntries() {
        final long from = eHead;
        final long to = from + eCount;
        ePos = RingArrays.doubled(ePos, from, to, from);
        eAddr = RingArrays.doubled(eAddr, from, to, from);
        eLen = RingArrays.doubled(eLen, from, to, from);
        eKind = RingArrays.doubled(eKind, from, to, from);
        if (eRegion != null) {
            eRegion = RingArrays.doubled(eRegion, from, to, from);
        }
        eHead = 0;
        eCap *= 2;
    }

    /** Bytes the copy ring holds before it grows (0 before the first copy; for tests). */
    int capacity() {
        return ring.buf == null ? 0 : ring.cap;
    }

    /** The copy ring's largest size so far (0 before the first copy; for tests and counters). */
    int peakCapacity() {
        return peakCap;
    }

    /** The most copied bytes the copy ring held unacknowledged at once (for tests). */
    int peakCopied() {
        return peakUsed;
    }

    /** Bytes the settled ring holds before it grows (0 before the first settle; for tests). */
    int settledCapacity() {
        return settledRing.buf == null ? 0 : settledRing.cap;
    }

    /** Entries the entry ring holds before it grows (for tests). */
    int entryCapacity() {
        return eCap;
    }

    /** Bytes of the copy ring the peer has not acknowledged: what {@link TcpSendGate}'s replay window bounds. */
    int copiedUnacked() {
        return ring.used();
    }

    /** Copied bytes kept (for tests and counters). */
    int copiedBytes() {
        return ring.used() + settledRing.used();
    }

    /** Frees both rings. Idempotent. */
    void close() {
        ring.close();
        settledRing.close();
        Arrays.fill(eKind, COPY);
        if (eRegion != null) {
            Arrays.fill(eRegion, null);
        }
        eCount = 0;
        volatiles = 0;
    }

    /**
     * A ring of copied bytes, used in entry order: bytes are added at {@code tail} and freed from
     * {@code head} as the entries that own them are forgotten.
     */
    private static final class Ring {
        Arena arena;
        MemorySegment buf;
        int cap;
        int head;
        int tail;
        /** Entries whose bytes are in this ring. */
        int copies;

        int fit(final int n) {
            if (copies == 0) {
                return n <= cap ? 0 : -1;
            }
            if (tail >= head) {
                if (cap - tail >= n) {
                    return tail;
                }
                return head > n ? 0 : -1;
            }
            return head - tail > n ? tail : -1;
        }

        int used() {
            if (copies == 0) {
                return 0;
            }
            return tail >= head ? tail - head : cap - head + tail;
        }

        /** The entry whose bytes end at {@code entryEnd} was forgotten. */
        void release(final long entryEnd) {
            head = (int) entryEnd;
            if (--copies == 0) {
                head = 0;
                tail = 0;
            }
        }

        void allocate(final int c) {
            if (arena != null && copies == 0) {
                arena.close();
            }
            arena = Arena.ofShared();
            buf = c < LAZY_CAP ? arena.allocate(c, 8) : LazyMemory.allocate(arena, c);
            cap = c;
            if (copies == 0) {
                head = 0;
                tail = 0;
            }
        }

        void close() {
            if (arena != null) {
                arena.close();
                arena = null;
                buf = null;
            }
            copies = 0;
        }
    }
}
