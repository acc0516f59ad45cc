package weft.tools.run;

import weft.runtime.Runtime;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.uct.AtomicOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A PE for the resource-manager tests ({@link SlurmJobTest}): one-sided operations between every pair,
 * with results that are exact. Each PE's heap holds: at {@link #PUT} what its predecessor put, at
 * {@link #PATTERN} its own pattern (read by its successor with a get), at {@link #COUNTER} a counter every
 * other PE fetch-adds 1 to, at {@link #SLOT} a word every other PE tries to compare-and-swap from 0 to
 * its rank + 1 (one wins). A tagged "done" from every peer ends the operations (each PE progresses until
 * then, which serves tcp's operations). Args: {@code PIDDIR}. Prints {@code rma ok RANK/SIZE via BOOTSTRAP}.
 */
public final class RmaScenarioPe {
    static final long PUT = 0;
    static final long PATTERN = 8;
    static final long COUNTER = 16;
    static final long SLOT = 24;
    private static final long DONE_TAG = 91;

    private RmaScenarioPe() {
    }

    public static void main(final String[] args) throws Exception {
        Files.writeString(Path.of(args[0]).resolve(Long.toString(ProcessHandle.current().pid())), "");
        try (Runtime rt = Runtime.init(); Context ctx = Context.create(Feature.TAG, Feature.RMA, Feature.AMO64);
             Worker w = ctx.newWorker(); MemoryMap heap = ctx.memMap(4096, 0); Arena arena = Arena.ofConfined()) {
            final int n = rt.size();
            final int me = rt.rank();
            final MemorySegment mine = heap.segment();
            mine.fill((byte) 0);
            mine.set(JAVA_LONG, PATTERN, 1000 + me);
            final byte[][] addrs = rt.allgather(w.address());
            final byte[][] keys = rt.allgather(heap.packRkey()); // a fence: every pattern is in place
            final MemorySegment buf = arena.allocate(64, 8);
            final Endpoint[] eps = new Endpoint[n];
            final Rkey[] rks = new Rkey[n];
            for (int j = 0; j < n; j++) {
                if (j != me) {
                    eps[j] = w.connect(addrs[j]);
                    rks[j] = eps[j].unpackRkey(keys[j]);
                }
            }
            int wins = 0;
            if (n > 1) {
                final int next = (me + 1) % n;
                final int prev = (me + n - 1) % n;
                buf.set(JAVA_LONG, 0, 2000 + me);
                ok(eps[next].put(buf, 0, 8, rks[next].base() + PUT, rks[next]), "put");
                ok(eps[prev].get(buf, 8, 8, rks[prev].base() + PATTERN, rks[prev]), "get");
                check(buf.get(JAVA_LONG, 8) == 1000 + prev, "get from rank " + prev + ": " + buf.get(JAVA_LONG, 8));
                for (int j = 0; j < n; j++) {
                    if (j == me) {
                        continue;
                    }
                    ok(eps[j].atomicFetch(AtomicOp.ADD, 1, buf, 16, rks[j].base() + COUNTER, rks[j]), "fetch-add");
                    final long before = buf.get(JAVA_LONG, 16);
                    check(before >= 0 && before < n - 1, "fetch-add on rank " + j + " saw " + before);
                    ok(eps[j].atomicCswap(0, me + 1, buf, 24, rks[j].base() + SLOT, rks[j]), "cswap");
                    wins += buf.get(JAVA_LONG, 24) == 0 ? 1 : 0;
                    ok(eps[j].flush(), "flush");
                }
                for (int j = 0; j < n; j++) {
                    if (j != me) {
                        ok(eps[j].sendTag(DONE_TAG, buf, 0, 8), "done send");
                        ok(eps[j].flush(), "done flush");
                    }
                }
                for (int j = 0; j < n - 1; j++) {
                    ok(w.recvTag(buf, 32, 8, DONE_TAG, -1L), "done receive");
                }
                check(mine.get(JAVA_LONG, PUT) == 2000 + prev, "put from rank " + prev + ": " + mine.get(JAVA_LONG, PUT));
                check(mine.get(JAVA_LONG, COUNTER) == n - 1, "counter " + mine.get(JAVA_LONG, COUNTER));
                final long slot = mine.get(JAVA_LONG, SLOT);
                check(slot >= 1 && slot <= n && slot != me + 1, "cswap slot " + slot);
            }
            final byte[][] allWins = rt.allgather(new byte[] {(byte) wins});
            int total = 0;
            for (final byte[] b : allWins) {
                total += b[0];
            }
            check(total == (n > 1 ? n : 0), "cswap winners " + total + " for " + n + " slots");
            for (final Rkey rk : rks) {
                if (rk != null) {
                    rk.close();
                }
            }
            rt.barrier();
            System.out.println("rma ok " + me + "/" + n + " via " + rt.bootstrapName());
        }
    }

    private static void ok(final Request r, final String what) {
        final Status st = r.await();
        check(st == Status.OK, what + ": " + st);
        r.release();
    }

    private static void check(final boolean ok, final String what) {
        if (!ok) {
            throw new AssertionError("wrong " + what);
        }
    }
}
