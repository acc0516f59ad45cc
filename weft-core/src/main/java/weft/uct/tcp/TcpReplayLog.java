package weft.uct.tcp;

import weft.ucs.memory.LazyMemory;
import weft.ucs.memory.MemoryCopy;

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
 *   <li>{@link #VOLATILE}: large get replies written straight from a registered region; the
 *   region may change once the reply left (a later put), so such bytes cannot be replayed, and a
 *   resume that would need them fails the connection.</li>
 * </ul>
 * The copy ring grows by doubling up to {@code max} bytes; beyond that the oldest bytes are
 * forgotten unacknowledged, and a resume from below them fails ({@link #replayable}).
 *
 * <p>Single threaded (the interface's progress thread).
 */
final class TcpReplayLog {
    static final byte COPY = 0;
    static final byte REF = 1;
    static final byte VOLATILE = 2;
    /** First ring: a connection that carries a few small messages between acknowledgements costs 1 KiB. */
    static final int FIRST_CAP = 1024;
    /** Rings from this size on are mapped lazily (pages appear as copies are written); smaller ones are malloc'd. */
    private static final int LAZY_CAP = 64 * 1024;
    /** First size of the entry arrays. */
    static final int FIRST_ENTRIES = 16;
    private static final MemorySegment ALL = TcpInterface.ALL;

    private final int max;
    private Arena arena;
    private MemorySegment buf;
    private int cap;
    private int head;
    private int tail;
    private int copies;

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
    /** Bytes handed to the last {@link #fill}. */
    long filled;

    TcpReplayLog(final long position, final int max) {
        this.start = position;
        this.end = position;
        this.lost = position;
        this.max = Math.max(LAZY_CAP, max);
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
        MemorySegment.copy(src, off, buf, at, n);
        appendCopy(at, n);
    }

    /** Logs {@code n} bytes of memory at {@code address} as a copy. */
    void copyFrom(final long address, final long n) {
        long done = 0;
        while (done < n) {
            final int k = (int) Math.min(n - done, LAZY_CAP);
            final int at = room(k);
            MemoryCopy.copy(ALL, address + done, buf, at, k);
            appendCopy(at, k);
            done += k;
        }
    }

    private void appendCopy(final int at, final int n) {
        tail = at + n;
        copies++;
        if (eCount > 0) {
            final int last = (eHead + eCount - 1) & (eCap - 1);
            if (eKind[last] == COPY && eAddr[last] + eLen[last] == at) {
                eLen[last] += n; // contiguous with the previous copy: one entry
                end += n;
                return;
            }
        }
        push(COPY, at, n);
    }

    /** Logs {@code n} bytes of memory at {@code address} by reference ({@link #REF} or {@link #VOLATILE}). */
    void reference(final byte kind, final long address, final long n) {
        if (n > 0) {
            push(kind, address, n);
        }
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
                if (eKind[i] == COPY) {
                    head = (int) eAddr[i];
                }
            }
            break;
        }
        start = Math.max(start, Math.min(position, end));
    }

    private void pop() {
        final int i = eHead;
        if (eKind[i] == COPY) {
            head = (int) (eAddr[i] + eLen[i]);
            if (--copies == 0) {
                head = 0;
                tail = 0;
            }
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

    /**
     * True when the bytes {@code [from, to)} are all kept and may be sent again; {@code from} must
     * also be at least the oldest position kept (the peer cannot have consumed less than it acked).
     */
    boolean replayable(final long from, final long to) {
        if (from < start || from < lost || from > to || to > end) {
            return false;
        }
        for (int k = 0; k < eCount; k++) {
            final int i = (eHead + k) & (eCap - 1);
            if (ePos[i] >= to) {
                break;
            }
            if (eKind[i] == VOLATILE && ePos[i] + eLen[i] > from) {
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
            final long base = (eKind[i] == COPY ? buf.address() : 0) + eAddr[i] + (s - p);
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
        if (buf == null) {
            allocate(Math.max(FIRST_CAP, Integer.highestOneBit(n - 1) << 1));
        }
        while (true) {
            final int at = fit(n);
            if (at >= 0) {
                return at;
            }
            if (cap < max) {
                grow(n);
            } else if (copies > 0) {
                lost = Math.max(lost, ePos[eHead] + eLen[eHead]);
                pop(); // full at its limit: the oldest bytes go unacknowledged
            } else {
                allocate(Math.max(cap, Integer.highestOneBit(n - 1) << 1));
            }
        }
    }

    private int fit(final int n) {
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

    /** Doubles the ring (at least to hold {@code n} more), moving the copies to its start in order. */
    private void grow(final int n) {
        int c = cap;
        while (c < max && c - used() <= n) {
            c *= 2;
        }
        final MemorySegment old = buf;
        final Arena oldArena = arena;
        allocate(Math.max(c, cap * 2));
        int at = 0;
        for (int k = 0; k < eCount; k++) {
            final int i = (eHead + k) & (eCap - 1);
            if (eKind[i] == COPY) {
                MemorySegment.copy(old, eAddr[i], buf, at, eLen[i]);
                eAddr[i] = at;
                at += (int) eLen[i];
            }
        }
        head = 0;
        tail = at;
        oldArena.close();
    }

    private int used() {
        if (copies == 0) {
            return 0;
        }
        return tail >= head ? tail - head : cap - head + tail;
    }

    private void allocate(final int c) {
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

    private void growEntries() {
        final long from = eHead;
        final long to = from + eCount;
        ePos = RingArrays.doubled(ePos, from, to, from);
        eAddr = RingArrays.doubled(eAddr, from, to, from);
        eLen = RingArrays.doubled(eLen, from, to, from);
        eKind = RingArrays.doubled(eKind, from, to, from);
        eHead = 0;
        eCap *= 2;
    }

    /** Bytes the copy ring holds before it grows (0 before the first copy; for tests). */
    int capacity() {
        return buf == null ? 0 : cap;
    }

    /** Entries the entry ring holds before it grows (for tests). */
    int entryCapacity() {
        return eCap;
    }

    /** Copied bytes kept (for tests and counters). */
    int copiedBytes() {
        return used();
    }

    /** Frees the copy ring. Idempotent. */
    void close() {
        if (arena != null) {
            arena.close();
            arena = null;
            buf = null;
        }
        Arrays.fill(eKind, COPY);
        eCount = 0;
        copies = 0;
    }
}
