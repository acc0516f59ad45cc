package weft.bench;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.config.Config;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Put/get bandwidth and small-put rate of weft.ucp over tcp with one or several rails, in one process:
 * two workers, one thread progressing both (the target serves tcp puts and gets from its progress), so
 * the figure is the CPU cost of the data path, not a two-core race. Each configuration is a fresh
 * context; the rails come from {@code WEFT_TCP_RAILS} (set as a system property here) and
 * {@code WEFT_MAX_RMA_RAILS}.
 *
 * <pre>{@code
 * java -cp weft-bench/target/weft-bench-0.1.0-SNAPSHOT.jar:weft-bench/target/lib/* \
 *     --enable-native-access=ALL-UNNAMED weft.bench.MultiRailRmaBench [SECONDS-PER-POINT [ROUNDS]]
 * }</pre>
 */
public final class MultiRailRmaBench {
    private static final long BIG = 1 << 20;
    private static final int WINDOW = 16; // operations between flushes

    private MultiRailRmaBench() {
    }

    public static void main(final String[] args) {
        final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        final String[][] configs = {
            {"1", "1", "fixed"}, {"2", "2", "fixed"}, {"2", "2", "rr"}, {"2", "2", "lu"},
        };
        System.out.printf("# tcp, one process, %.1f s per point; rails = WEFT_TCP_RAILS (lo, lo#1) and "
            + "WEFT_MAX_RMA_RAILS%n", seconds);
        System.out.printf("%-24s %12s %12s %14s %14s %16s%n", "config", "put 1MiB MB/s", "get 1MiB MB/s",
            "put 8B Mop/s", "get 8B kop/s", "put+fence kop/s");
        for (int round = 0; round < rounds; round++) { // configurations alternate: compare medians
            for (final String[] c : configs) {
                run(c[0], c[1], c[2], seconds);
            }
        }
    }

    private static void run(final String tcpRails, final String rmaRails, final String policy, final double seconds) {
        System.setProperty("weft.tcp_rails", tcpRails);
        System.setProperty("weft.tcp_devices", "lo");
        final Config cfg = Config.global().with("MAX_RMA_RAILS", rmaRails).with("LANE_POLICY", policy)
            .with("KEEPALIVE_INTERVAL", "10m");
        try (Context ctx = Context.builder().features(Feature.values()).transports("tcp").config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined();
             MemoryMap heap = ctx.memMap(BIG, 0)) {
            final Endpoint ab = a.connect(b.address());
            final MemorySegment buf = arena.allocate(BIG, 4096);
            try (Rkey rk = ab.unpackRkey(heap.packRkey())) {
                final double put = bw(a, b, ab, rk, buf, true, seconds);
                final double get = bw(a, b, ab, rk, buf, false, seconds);
                final double put8 = rate(a, b, ab, rk, buf, true, seconds);
                final double get8 = rate(a, b, ab, rk, buf, false, seconds);
                final double fenced = fenced(a, b, ab, rk, buf, seconds);
                System.out.printf("%-24s %12.0f %12.0f %14.3f %14.1f %16.1f   %s%n",
                    "rails " + rmaRails + " (tcp " + tcpRails + ") " + policy, put, get, put8, get8 * 1e3,
                    fenced * 1e3, rk.describe());
            }
        }
    }

    private static double bw(final Worker a, final Worker b, final Endpoint ab, final Rkey rk, final MemorySegment buf,
                             final boolean put, final double seconds) {
        long bytes = 0;
        final long start = System.nanoTime();
        final long warm = start + (long) (seconds * 0.25e9);
        long t0 = 0;
        final long end = start + (long) (seconds * 1.25e9);
        while (true) {
            final long now = System.nanoTime();
            if (t0 == 0 && now >= warm) {
                t0 = now;
                bytes = 0;
            }
            if (now >= end) {
                return bytes / ((now - t0) / 1e9) / 1e6;
            }
            for (int i = 0; i < WINDOW / 4; i++) {
                final Status st = put ? ab.putNbi(buf, 0, BIG, rk.base(), rk) : ab.getNbi(buf, 0, BIG, rk.base(), rk);
                check(st);
                bytes += BIG;
            }
            flush(a, b, ab);
        }
    }

    private static double rate(final Worker a, final Worker b, final Endpoint ab, final Rkey rk,
                               final MemorySegment buf, final boolean put, final double seconds) {
        long ops = 0;
        final long start = System.nanoTime();
        final long warm = start + (long) (seconds * 0.25e9);
        long t0 = 0;
        final long end = start + (long) (seconds * 1.25e9);
        while (true) {
            final long now = System.nanoTime();
            if (t0 == 0 && now >= warm) {
                t0 = now;
                ops = 0;
            }
            if (now >= end) {
                return ops / ((now - t0) / 1e9) / 1e6;
            }
            for (int i = 0; i < WINDOW * 4; i++) {
                final Status st = put ? ab.putNbi(buf, 8 * i, 8, rk.base() + 8 * i, rk)
                    : ab.getNbi(buf, 8 * i, 8, rk.base() + 8 * i, rk);
                check(st);
            }
            ops += WINDOW * 4;
            flush(a, b, ab);
        }
    }

    /** 8-byte puts each followed by a worker fence (OpenSHMEM put; fence; put ...), flushed every 64. */
    private static double fenced(final Worker a, final Worker b, final Endpoint ab, final Rkey rk,
                                 final MemorySegment buf, final double seconds) {
        long ops = 0;
        final long start = System.nanoTime();
        final long end = start + (long) (seconds * 1e9);
        while (true) {
            final long now = System.nanoTime();
            if (now >= end) {
                return ops / ((now - start) / 1e9) / 1e6;
            }
            for (int i = 0; i < WINDOW * 4; i++) {
                check(ab.putNbi(buf, 8 * i, 8, rk.base() + 8 * i, rk));
                a.fence();
                a.progress();
                b.progress();
            }
            ops += WINDOW * 4;
            flush(a, b, ab);
        }
    }

    private static void check(final Status st) {
        if (st.isError()) {
            throw new IllegalStateException("operation failed: " + st);
        }
    }

    private static void flush(final Worker a, final Worker b, final Endpoint ab) {
        final Request f = ab.flush();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!f.isCompleted()) {
            a.progress();
            b.progress();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("flush did not complete in 10 s");
            }
        }
        if (f.status() != Status.OK) {
            throw new IllegalStateException("flush: " + f.status());
        }
        f.release();
    }
}
