package mpi;

import weft.ucp.AmMessage;
import weft.ucp.ThreadMode;
import weft.ucp.Worker;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.ReentrantLock;

/**
 * MPI matching over ucp active messages ({@code WEFT_MPI_TRANSPORT=am}): every message is one active message
 * of id {@link #AM_ID} carrying its 64-bit {@link Tags} word, and this class does what ucp tag matching does
 * on the other path. Posted receives wait in a hash of (context, source) buckets, or in one wildcard list for
 * ANY_SOURCE, each stamped with a posting number: an arriving message takes the older of its bucket's first
 * match and the wildcard list's first match. Messages nobody waits for go to the unexpected queue: a bucket
 * list per (context, source) for receives from one rank, and one list in arrival order for ANY_SOURCE; eager
 * data is copied into a pooled bounce buffer ({@link Bounces}), a rendezvous message is kept (its data stays
 * at the sender until a receive matches it, then ucp pulls it straight into the receive buffer). Both lists
 * keep arrival order per source, so messages do not overtake. Buckets hash colliding keys together and
 * compare the full bits, so every operation costs a bucket walk, not a queue walk.
 *
 * <p>Thread use: the handler runs inside {@link Worker#progress()}; receives are posted by MPI calls. Under
 * THREAD_MULTIPLE the queues are guarded by a lock, which is never held across a call into the worker (the
 * worker's own guard is taken first inside progress, so the two never nest the other way); at the other
 * thread levels they take none, as the tag path's matching takes none.
 */
final class AmMatcher {
    /** The active-message id of MPI messages. */
    static final int AM_ID = 0x4D50;
    private static final int BUCKETS = 1024;
    private static final int POOL_MAX = 1024;

    final Worker worker;
    final AmSends sends;
    private final Bounces bounces = new Bounces();

    /** The posted lists' slot of the ANY_SOURCE receives, after the buckets. */
    private static final int WILD = BUCKETS;

    // posted receives: per-bucket lists and the ANY_SOURCE list at WILD (intrusive, FIFO)
    private final AmRecv[] postedHead = new AmRecv[BUCKETS + 1];
    private final AmRecv[] postedTail = new AmRecv[BUCKETS + 1];
    private long sn;

    // unexpected messages: per-bucket lists and one in arrival order
    private final AmUnexpected[] unexHead = new AmUnexpected[BUCKETS];
    private final AmUnexpected[] unexTail = new AmUnexpected[BUCKETS];
    private AmUnexpected allHead;
    private AmUnexpected allTail;

    private final AmRecv[] freeRecvs = new AmRecv[POOL_MAX];
    private int freeRecvCount;
    private final AmUnexpected[] freeUnex = new AmUnexpected[POOL_MAX];
    private int freeUnexCount;
    private long malformed;
    /**
     * Guards the queues when several threads may call MPI at once (THREAD_MULTIPLE, a MULTI worker); at the
     * other levels one thread at a time calls in, ordered by the program, and the queues take no lock.
     */
    private final ReentrantLock lock;

    AmMatcher(final Worker worker) {
        this.worker = worker;
        this.lock = worker.threadMode() == ThreadMode.MULTI ? new ReentrantLock() : null;
        this.sends = new AmSends();
        worker.setAmHandler(AM_ID, this::onMessage, 0);
    }

    /**
     * Removes the handler (at finalize; the worker may live on for another layer) and drops the rendezvous
     * messages nobody received (their senders complete).
     */
    void close() {
        worker.setAmHandler(AM_ID, null, 0);
        while (true) {
            final AmUnexpected u;
            lock();
            try {
                u = allHead;
                if (u == null) {
                    return;
                }
                unlinkUnexpected(u);
            } finally {
                unlock();
            }
            if (u.rendezvous != null) {
                worker.releaseAmData(u.rendezvous);
            }
        }
    }

    private void lock() {
        if (lock != null) {
            lock.lock();
        }
    }

    private void unlock() {
        if (lock != null) {
            lock.unlock();
        }
    }

    private static int bucket(final long tag) {
        final long key = tag >>> Tags.TAG_BITS;
        return (int) (key ^ key >>> 11 ^ key >>> 23) & (BUCKETS - 1);
    }

    private static boolean anySource(final long mask) {
        return (mask >>> Tags.TAG_BITS & ((1L << Tags.SOURCE_BITS) - 1)) == 0;
    }

    // ------------------------------------------------------------------ arrival

    private weft.ucs.Status onMessage(final MemorySegment header, final long hOff, final long hLen,
                                      final MemorySegment data, final long dOff, final long dLen, final AmMessage m) {
        final long tag;
        long off = dOff;
        long len = dLen;
        if (hLen == Long.BYTES) {
            tag = header.get(ValueLayout.JAVA_LONG_UNALIGNED, hOff);
        } else if (hLen == 0 && !m.isRendezvous() && dLen >= Long.BYTES) {
            tag = data.get(ValueLayout.JAVA_LONG_UNALIGNED, dOff); // a short message: the tag leads the data
            off += Long.BYTES;
            len -= Long.BYTES;
        } else {
            malformed++;
            return weft.ucs.Status.OK;
        }
        final AmRecv r;
        lock();
        try {
            r = takePosted(tag);
            if (r == null) {
                final AmUnexpected u = newUnexpected(tag, len);
                if (m.isRendezvous()) {
                    u.rendezvous = m;
                } else {
                    u.bounce = bounces.take(len);
                    if (len > 0) {
                        MemorySegment.copy(data, off, u.bounce, 0, len);
                    }
                }
                appendUnexpected(u);
                return m.isRendezvous() ? weft.ucs.Status.IN_PROGRESS : weft.ucs.Status.OK;
            }
        } finally {
            unlock();
        }
        if (m.isRendezvous()) {
            r.deliverRendezvous(worker, tag, m);
        } else {
            r.deliverEager(tag, data, off, len);
        }
        return weft.ucs.Status.OK;
    }

    /** The oldest posted receive matching {@code tag}, taken out of its list; null if none. */
    private AmRecv takePosted(final long tag) {
        final int b = bucket(tag);
        AmRecv best = null;
        for (AmRecv r = postedHead[b]; r != null; r = r.next) {
            if (((tag ^ r.tag) & r.mask) == 0) {
                best = r;
                break;
            }
        }
        for (AmRecv r = postedHead[WILD]; r != null; r = r.next) {
            if (((tag ^ r.tag) & r.mask) == 0) {
                if (best == null || r.sn < best.sn) {
                    best = r;
                }
                break;
            }
        }
        if (best != null) {
            unlinkPosted(best);
        }
        return best;
    }

    // ------------------------------------------------------------------ receives

    /** Posts a receive (or matches it with an unexpected message at once). */
    AmRecv post(final long tag, final long mask, final Span span, final int count, final Datatype type) {
        final AmRecv r;
        final AmUnexpected u;
        lock();
        try {
            r = freeRecvCount > 0 ? freeRecvs[--freeRecvCount] : new AmRecv(this);
            r.set(tag, mask, span, count, type);
            u = takeUnexpected(tag, mask);
            if (u == null) {
                appendPosted(r);
                return r;
            }
        } finally {
            unlock();
        }
        deliver(r, u);
        return r;
    }

    /** Receives a message {@link #take} took out of the queue. */
    AmRecv receive(final AmUnexpected u, final Span span, final int count, final Datatype type) {
        final AmRecv r;
        lock();
        try {
            r = freeRecvCount > 0 ? freeRecvs[--freeRecvCount] : new AmRecv(this);
        } finally {
            unlock();
        }
        r.set(u.tag, -1L, span, count, type);
        deliver(r, u);
        return r;
    }

    private void deliver(final AmRecv r, final AmUnexpected u) {
        if (u.rendezvous != null) {
            r.deliverRendezvous(worker, u.tag, u.rendezvous);
        } else {
            r.deliverEager(u.tag, u.bounce, 0, u.length);
        }
        lock();
        try {
            if (u.bounce != null) {
                bounces.give(u.bounce);
            }
            u.clear();
            if (freeUnexCount < POOL_MAX) {
                freeUnex[freeUnexCount++] = u;
            }
        } finally {
            unlock();
        }
    }

    /** The status of the first unexpected message matching {@code tag}/{@code mask} (left queued), or null. */
    Status peek(final long tag, final long mask) {
        lock();
        try {
            final AmUnexpected u = findUnexpected(tag, mask);
            return u == null ? null : new Status(Tags.source(u.tag), Tags.tag(u.tag), MPI.SUCCESS, u.length, false);
        } finally {
            unlock();
        }
    }

    /** The first unexpected message matching {@code tag}/{@code mask} taken out of the queue (mprobe), or null. */
    AmUnexpected take(final long tag, final long mask) {
        lock();
        try {
            return takeUnexpected(tag, mask);
        } finally {
            unlock();
        }
    }

    /** Cancels a posted receive that has not matched: it completes CANCELED. */
    void cancel(final AmRecv r) {
        lock();
        try {
            if (!r.posted) {
                return;
            }
            unlinkPosted(r);
        } finally {
            unlock();
        }
        r.cancelled();
    }

    void recycle(final AmRecv r) {
        r.span = null;
        r.type = null;
        r.packed = null;
        lock();
        try {
            if (freeRecvCount < POOL_MAX) {
            freeRecvs[freeRecvCount++] = r;
            }
        } finally {
            unlock();
        }
    }

    /** Messages dropped as malformed (no tag word). */
    long malformed() {
        return malformed;
    }

    // ------------------------------------------------------------------ the lists (callers hold the lock)

    private void appendPosted(final AmRecv r) {
        final int b = anySource(r.mask) ? WILD : bucket(r.tag);
        r.sn = sn++;
        r.posted = true;
        r.bucket = b;
        r.next = null;
        r.prev = postedTail[b];
        if (postedTail[b] == null) {
            postedHead[b] = r;
        } else {
            postedTail[b].next = r;
        }
        postedTail[b] = r;
    }

    private void unlinkPosted(final AmRecv r) {
        if (r.prev == null) {
            postedHead[r.bucket] = r.next;
        } else {
            r.prev.next = r.next;
        }
        if (r.next == null) {
            postedTail[r.bucket] = r.prev;
        } else {
            r.next.prev = r.prev;
        }
        r.prev = r.next = null;
        r.posted = false;
    }

    private AmUnexpected newUnexpected(final long tag, final long len) {
        final AmUnexpected u = freeUnexCount > 0 ? freeUnex[--freeUnexCount] : new AmUnexpected();
        u.tag = tag;
        u.length = len;
        return u;
    }

    private void appendUnexpected(final AmUnexpected u) {
        final int b = bucket(u.tag);
        u.bucket = b;
        u.prev = unexTail[b];
        u.next = null;
        if (unexTail[b] == null) {
            unexHead[b] = u;
        } else {
            unexTail[b].next = u;
        }
        unexTail[b] = u;
        u.allPrev = allTail;
        u.allNext = null;
        if (allTail == null) {
            allHead = u;
        } else {
            allTail.allNext = u;
        }
        allTail = u;
    }

    private AmUnexpected findUnexpected(final long tag, final long mask) {
        if (anySource(mask)) {
            for (AmUnexpected u = allHead; u != null; u = u.allNext) {
                if (((u.tag ^ tag) & mask) == 0) {
                    return u;
                }
            }
            return null;
        }
        for (AmUnexpected u = unexHead[bucket(tag)]; u != null; u = u.next) {
            if (((u.tag ^ tag) & mask) == 0) {
                return u;
            }
        }
        return null;
    }

    private AmUnexpected takeUnexpected(final long tag, final long mask) {
        final AmUnexpected u = findUnexpected(tag, mask);
        if (u != null) {
            unlinkUnexpected(u);
        }
        return u;
    }

    private void unlinkUnexpected(final AmUnexpected u) {
        final int b = u.bucket;
        if (u.prev == null) {
            unexHead[b] = u.next;
        } else {
            u.prev.next = u.next;
        }
        if (u.next == null) {
            unexTail[b] = u.prev;
        } else {
            u.next.prev = u.prev;
        }
        if (u.allPrev == null) {
            allHead = u.allNext;
        } else {
            u.allPrev.allNext = u.allNext;
        }
        if (u.allNext == null) {
            allTail = u.allPrev;
        } else {
            u.allNext.allPrev = u.allPrev;
        }
        u.prev = u.next = u.allPrev = u.allNext = null;
    }
}
