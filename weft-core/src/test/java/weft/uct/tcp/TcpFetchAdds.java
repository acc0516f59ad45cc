package weft.uct.tcp;

import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.MemoryDomain;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fetch-adds of 1 on one counter in a region of the target, and a put of a known pattern after each: what
 * the tcp fault tests check was applied exactly once (the counter, every fetched value unique, the bytes).
 */
final class TcpFetchAdds {
    private static final int SLOT = 64;
    private final MemoryHandle region;
    private final RemoteKey key;
    private final MemorySegment results;
    private final MemorySegment pattern;
    private final int max;
    private final List<Completion> pending = new ArrayList<>();
    int issued;
    /** The fetch-add of the next index went; its put did not yet. */
    private boolean fetched;

    /** Room for {@code max} fetch-adds; the region is deregistered by {@code toClose}. */
    TcpFetchAdds(final int max, final Arena arena, final List<AutoCloseable> toClose) {
        final MemoryDomain md = TcpTestSupport.TRANSPORT.memoryDomain();
        this.region = md.allocate(8 + (long) SLOT * max);
        toClose.add(() -> md.deregister(region));
        this.key = md.unpackRkey(md.packRkey(region));
        this.max = max;
        this.results = arena.allocate(8L * max, 8);
        this.pattern = arena.allocate(SLOT, 8);
    }

    /** Issues the next fetch-add and its put on {@code ep}: false if the endpoint had no room now (try again). */
    boolean issue(final Endpoint ep) {
        if (issued == max) {
            return true;
        }
        final int i = issued;
        if (!fetched) {
            final Completion c = new Completion().reset(1);
            final Status st = ep.atomic64Fetch(AtomicOp.ADD, 1, results, 8L * i, key.base(), key, c);
            if (st == Status.NO_RESOURCE) {
                return false;
            }
            assertEquals(Status.IN_PROGRESS, st, "fetch-add " + i);
            pending.add(c);
            fetched = true;
        }
        for (int k = 0; k < SLOT; k++) {
            pattern.set(ValueLayout.JAVA_BYTE, k, (byte) (i * 13 + k));
        }
        final Status p = ep.putShort(pattern, 0, SLOT, key.base() + 8 + (long) SLOT * i, key);
        if (p == Status.NO_RESOURCE) {
            return false;
        }
        assertEquals(Status.OK, p, "put " + i);
        fetched = false;
        issued++;
        return true;
    }

    /** Every fetch-add completed. */
    boolean done() {
        for (final Completion c : pending) {
            if (!c.isDone()) {
                return false;
            }
        }
        return true;
    }

    /** Each fetch-add applied once (the counter, unique results), each put's bytes in place (after a flush). */
    void check() {
        final MemorySegment mem = region.segment();
        for (final Completion c : pending) {
            assertEquals(Status.OK, c.status());
        }
        assertEquals(issued, mem.get(ValueLayout.JAVA_LONG, 0), "every fetch-add applied once");
        final BitSet seen = new BitSet(issued);
        for (int i = 0; i < issued; i++) {
            final long v = results.get(ValueLayout.JAVA_LONG, 8L * i);
            assertTrue(v >= 0 && v < issued && !seen.get((int) v), "fetch-add result " + v + " repeated or out of range");
            seen.set((int) v);
            for (int k = 0; k < SLOT; k++) {
                assertEquals((byte) (i * 13 + k), mem.get(ValueLayout.JAVA_BYTE, 8 + (long) SLOT * i + k),
                    "put " + i + " byte " + k);
            }
        }
    }
}
