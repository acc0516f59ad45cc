package weft.ucp;

/**
 * The tag-matching engine of one worker.
 *
 * <p>Expected receives with a full mask live in hash buckets (exact tags); masked receives live in one
 * ordered wildcard list. Every receive gets a sequence number when posted; an arriving message takes
 * the matching receive with the lowest number, so matching follows posting order (the MPI rule).
 * Unexpected messages are kept both in their tag's bucket and in one arrival-ordered list: an exact
 * receive searches its bucket, a masked one the arrival list. Everything is intrusive and allocation
 * free.
 */
final class TagMatcher {
    static final int BUCKETS = 1024;

    private final Request[] expHead = new Request[BUCKETS];
    private final Request[] expTail = new Request[BUCKETS];
    private Request wildHead;
    private Request wildTail;
    private final TagMessage[] unexpHead = new TagMessage[BUCKETS];
    private final TagMessage[] unexpTail = new TagMessage[BUCKETS];
    private TagMessage allHead;
    private TagMessage allTail;
    private long nextSn;
    private int expectedCount;
    private int unexpectedCount;

    static int bucket(final long tag) {
        return (int) ((tag * 0x9E3779B97F4A7C15L) >>> 54); // top 10 bits of a Fibonacci hash
    }

    static boolean matches(final long recvTag, final long postedTag, final long mask) {
        return ((recvTag ^ postedTag) & mask) == 0;
    }

    int expectedCount() {
        return expectedCount;
    }

    int unexpectedCount() {
        return unexpectedCount;
    }

    /** Posts a receive that found no unexpected message. */
    void addExpected(final Request r) {
        r.sn = nextSn++;
        r.next = null;
        if (r.mask == -1L) {
            final int b = bucket(r.tag);
            r.bucket = b;
            r.prev = expTail[b];
            if (r.prev == null) {
                expHead[b] = r;
            } else {
                r.prev.next = r;
            }
            expTail[b] = r;
        } else {
            r.bucket = -1;
            r.prev = wildTail;
            if (wildTail == null) {
                wildHead = r;
            } else {
                wildTail.next = r;
            }
            wildTail = r;
        }
        expectedCount++;
    }

    /** Removes and returns the earliest-posted receive matching {@code tag}, or null. */
    Request matchExpected(final long tag) {
        if (expectedCount == 0) {
            return null;
        }
        final int b = bucket(tag);
        Request exact = expHead[b];
        while (exact != null && exact.tag != tag) {
            exact = exact.next;
        }
        Request wild = wildHead;
        while (wild != null && !matches(tag, wild.tag, wild.mask)) {
            wild = wild.next;
        }
        final Request r = exact == null ? wild : wild == null || exact.sn < wild.sn ? exact : wild;
        if (r != null) {
            removeExpected(r);
        }
        return r;
    }

    /** Unlinks a posted receive (match or cancel). Returns false if it was not posted. */
    boolean removeExpected(final Request r) {
        if (r.bucket >= 0) {
            if (r.prev == null ? expHead[r.bucket] != r : r.prev.next != r) {
                return false;
            }
            if (r.prev == null) {
                expHead[r.bucket] = r.next;
            } else {
                r.prev.next = r.next;
            }
            if (r.next == null) {
                expTail[r.bucket] = r.prev;
            } else {
                r.next.prev = r.prev;
            }
        } else {
            if (r.prev == null ? wildHead != r : r.prev.next != r) {
                return false;
            }
            if (r.prev == null) {
                wildHead = r.next;
            } else {
                r.prev.next = r.next;
            }
            if (r.next == null) {
                wildTail = r.prev;
            } else {
                r.next.prev = r.prev;
            }
        }
        r.prev = r.next = null;
        r.bucket = -1;
        expectedCount--;
        return true;
    }

    /** Queues a message no receive matched, in arrival order. */
    void addUnexpected(final TagMessage m) {
        m.sn = nextSn++;
        final int b = bucket(m.tag);
        m.bucket = b;
        m.bnext = null;
        m.bprev = unexpTail[b];
        if (m.bprev == null) {
            unexpHead[b] = m;
        } else {
            m.bprev.bnext = m;
        }
        unexpTail[b] = m;
        m.anext = null;
        m.aprev = allTail;
        if (allTail == null) {
            allHead = m;
        } else {
            allTail.anext = m;
        }
        allTail = m;
        unexpectedCount++;
    }

    /** The earliest unexpected message matching (tag, mask), or null; removes it if {@code remove}. */
    TagMessage matchUnexpected(final long tag, final long mask, final boolean remove) {
        if (unexpectedCount == 0) {
            return null;
        }
        TagMessage m;
        if (mask == -1L) {
            m = unexpHead[bucket(tag)];
            while (m != null && m.tag != tag) {
                m = m.bnext;
            }
        } else {
            m = allHead;
            while (m != null && !matches(m.tag, tag, mask)) {
                m = m.anext;
            }
        }
        if (m != null && remove) {
            removeUnexpected(m);
        }
        return m;
    }

    /**
     * Removes and returns the earliest unexpected message matching (tag, mask) if it is a whole eager
     * message (not rendezvous, not still arriving); null otherwise, leaving the queue as it was.
     */
    TagMessage matchUnexpectedComplete(final long tag, final long mask) {
        final TagMessage m = matchUnexpected(tag, mask, false);
        if (m == null || m.rts || m.received != m.length) {
            return null;
        }
        removeUnexpected(m);
        return m;
    }

    void removeUnexpected(final TagMessage m) {
        if (m.bucket < 0) {
            return;
        }
        if (m.bprev == null) {
            unexpHead[m.bucket] = m.bnext;
        } else {
            m.bprev.bnext = m.bnext;
        }
        if (m.bnext == null) {
            unexpTail[m.bucket] = m.bprev;
        } else {
            m.bnext.bprev = m.bprev;
        }
        if (m.aprev == null) {
            allHead = m.anext;
        } else {
            m.aprev.anext = m.anext;
        }
        if (m.anext == null) {
            allTail = m.aprev;
        } else {
            m.anext.aprev = m.aprev;
        }
        m.bnext = m.bprev = m.anext = m.aprev = null;
        m.bucket = -1;
        unexpectedCount--;
    }

    /** Removes every posted receive (worker close), handing each to {@code sink}. */
    void drainExpected(final java.util.function.Consumer<Request> sink) {
        // most workers close with nothing posted: skip the walk over every bucket (with the AOT cache's
        // training profile, that loop was compiled at close, 10 ms of each PE's exit)
        for (int b = 0; expectedCount > 0 && b < BUCKETS; b++) {
            while (expHead[b] != null) {
                final Request r = expHead[b];
                removeExpected(r);
                sink.accept(r);
            }
        }
        while (wildHead != null) {
            final Request r = wildHead;
            removeExpected(r);
            sink.accept(r);
        }
    }

    /** Removes every unexpected message (worker close). */
    void drainUnexpected(final java.util.function.Consumer<TagMessage> sink) {
        while (allHead != null) {
            final TagMessage m = allHead;
            removeUnexpected(m);
            sink.accept(m);
        }
    }
}
