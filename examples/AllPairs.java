import weft.runtime.Runtime;
import weft.ucp.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Run with: ./weft run -n 64 examples/AllPairs.java — every PE connects to every other, sends each one an
 * 8-byte tagged message (its rank), receives one from each, checks them, and meets a barrier. Rank 0 prints
 * the time from init to the barrier and the Java heap and resident memory it uses.
 */
public class AllPairs {
    public static void main(String[] args) {
        long t0 = System.nanoTime();
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
            for (int i = 1; i < n; i++) {                        // then connect and send, each to the next ones
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
            if (me == 0) {
                long rss = rssBytes();
                System.out.printf("%d PEs: all-pairs wireup + exchange + barrier in %.2f s after rank 0 started; rank 0: "
                    + "heap used %d KiB, resident %d KiB, %d endpoints%n", n, (System.nanoTime() - t0) / 1e9,
                    (java.lang.Runtime.getRuntime().totalMemory() - java.lang.Runtime.getRuntime().freeMemory()) / 1024,
                    rss / 1024, w.endpoints().size());
            }
        }
    }

    private static long rssBytes() {
        try {
            for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return -1;
    }
}
