import weft.runtime.Runtime;
import weft.ucp.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Run with: ./weft run -n 64 examples/AllPairs.java — every PE connects to every other, sends each one an
 * 8-byte tagged message (its rank), receives one from each, checks them, and meets a barrier. Rank 0 prints
 * the time from init to the barrier.
 *
 * <p>With the argument {@code footprint} ({@code ./weft run -n 32 examples/AllPairs.java footprint}) rank 0
 * also prints the memory each PE spends per connected peer. That measurement changes the job (a first peer
 * and a barrier before the others, four full GCs a PE), so the plain run is the one to time.
 * The footprint per peer is measured between two points of every PE: after its first endpoint is up and
 * used (so classes, compiled code and pools that any first endpoint brings are already paid), and after all
 * n-1 are; the difference is divided by the n-2 peers added in between. Three figures: Java heap in use
 * after a GC, private resident memory (heap, off-heap buffers, our own shared-memory FIFO pages, from
 * /proc/self/smaps_rollup) and shared resident memory (the peers' FIFOs we mapped). Rank 0 prints the
 * median and the largest over all PEs. Needs n >= 3. For the private figure to leave the heap out, give
 * the PEs a fixed, pre-touched heap: {@code ./weft run -n 32 -J -Xms64m -J -Xmx64m -J -XX:+AlwaysPreTouch
 * examples/AllPairs.java footprint}.
 */
public class AllPairs {
    public static void main(String[] args) {
        long t0 = System.nanoTime();
        boolean measure = args.length > 0 && args[0].equals("footprint");
        try (Runtime rt = Runtime.init(); Context ctx = Context.create(Feature.TAG);
             Worker w = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            int n = rt.size(), me = rt.rank();
            byte[][] workers = rt.allgather(w.address());
            Endpoint[] eps = new Endpoint[n];
            Request[] sends = new Request[n];
            Request[] recvs = new Request[n];
            MemorySegment in = arena.allocate(8L * n);
            MemorySegment out = arena.allocate(8);
            out.set(JAVA_LONG, 0, me);
            for (int i = 1; i < n; i++) {                        // post every receive first
                int from = (me + n - i) % n;
                recvs[from] = w.recvTag(in, 8L * from, 8, from, -1L);
            }
            long[] before = null;
            if (measure) {
                // the first peer: connect, exchange, and wait for everyone, so the second sample counts peers only
                int first = (me + 1) % n;
                eps[first] = w.connect(workers[first]);
                sends[first] = eps[first].sendTag(me, out, 0, 8);
                sends[first].await();
                recvs[(me + n - 1) % n].await();
                rt.barrier();
                before = footprint();
            }
            for (int i = measure ? 2 : 1; i < n; i++) {          // connect and send to the others
                int to = (me + i) % n;
                eps[to] = w.connect(workers[to]);
                sends[to] = eps[to].sendTag(me, out, 0, 8);
            }
            for (int i = 0; i < n; i++) {
                if (i == me) {
                    continue;
                }
                sends[i].await();
                recvs[i].await();
                if (in.get(JAVA_LONG, 8L * i) != i) {
                    throw new IllegalStateException("rank " + me + " got " + in.get(JAVA_LONG, 8L * i) + " from " + i);
                }
            }
            for (Endpoint ep : eps) {
                if (ep != null) {
                    ep.flush().await();
                }
            }
            rt.barrier();
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (me == 0) {
                System.out.printf("%d PEs: all-pairs wireup + exchange + barrier in %.2f s after rank 0 started; "
                    + "rank 0 has %d endpoints%n", n, seconds, w.endpoints().size());
            }
            if (!measure) {
                return;
            }
            long[] after = footprint();
            ByteBuffer mine = ByteBuffer.allocate(24);
            for (int k = 0; k < 3; k++) {
                mine.putLong(n > 2 ? (after[k] - before[k]) / (n - 2) : 0);
            }
            byte[][] all = rt.allgather(mine.array());
            if (me == 0) {
                String[] what = {"Java heap", "private resident", "shared resident"};
                for (int k = 0; k < 3; k++) {
                    long[] v = new long[n];
                    for (int r = 0; r < n; r++) {
                        v[r] = ByteBuffer.wrap(all[r]).getLong(8 * k);
                    }
                    Arrays.sort(v);
                    System.out.printf("  per connected peer, %-16s median %,8d B   largest %,8d B%n", what[k] + ":",
                        v[n / 2], v[n - 1]);
                }
            }
        }
    }

    /** Heap in use after a GC, private and shared resident bytes. */
    private static long[] footprint() {
        System.gc();
        System.gc();
        long heap = java.lang.Runtime.getRuntime().totalMemory() - java.lang.Runtime.getRuntime().freeMemory();
        long priv = 0, shared = 0;
        try {
            for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/smaps_rollup"))) {
                long kib = l.matches("^[A-Za-z_]+:\\s+\\d+ kB$") ? Long.parseLong(l.replaceAll("[^0-9]", "")) : 0;
                if (l.startsWith("Private_Clean:") || l.startsWith("Private_Dirty:")) {
                    priv += kib * 1024;
                } else if (l.startsWith("Shared_Clean:") || l.startsWith("Shared_Dirty:")) {
                    shared += kib * 1024;
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new long[] {heap, priv, shared};
    }
}
