import weft.runtime.Runtime;
import weft.ucp.*;
import weft.ucs.Status;
import weft.uct.AtomicOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A soak run: ./weft run -n 4 examples/Soak.java MINUTES (default 1). The PEs form a ring and, round after
 * round until MINUTES pass, each one mixes every kind of operation with its neighbours at random sizes and
 * checks every byte:
 * <ul>
 * <li>a tagged message to the right (0 B to 2 MiB: short, eager, multi-fragment and rendezvous);</li>
 * <li>an active message to the right (0 B to 16 KiB, with a header naming the round);</li>
 * <li>a put of up to 512 KiB into the right neighbour's heap, flushed before the tagged message that
 * announces it, and checked there; an acknowledgement back keeps neighbours within one round;</li>
 * <li>a get of up to 512 KiB from the left neighbour's read-only area (a pattern written at start);</li>
 * <li>a 64-bit fetch-add on a counter in rank 0's heap: at the end the counter must equal the number of
 * adds, and the sum and sum of squares of the values fetched must be those of 0..total-1 (no value twice).</li>
 * </ul>
 * Every ~20 s each PE samples its Java heap after a GC, its resident memory and its open descriptors; at
 * the end rank 0 prints the samples of the first PE and fails the job if memory or descriptors grew between
 * the sample taken after the warm-up (a tenth of the run, at least the second sample) and the last one
 * (heap: more than 4 MiB, resident: more than 32 MiB, descriptors: any). Exit code 0 when all checks pass.
 */
public class Soak {
    static final long TAG_MAX = 2 << 20, RMA_MAX = 512 << 10, AM_MAX = 16 << 10;
    static final long READ_AREA = 0, PUT_AREA = 1 << 20, COUNTER = 2 << 20, HEAP = COUNTER + 64;
    static final long ACK = 1L << 62, DATA = 1L << 61;
    static final int ROUNDS_PER_CHECK = 500;

    public static void main(String[] args) throws Exception {
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 1;
        try (Runtime rt = Runtime.init();
             Context ctx = Context.create(Feature.TAG, Feature.AM, Feature.RMA, Feature.AMO64);
             Worker w = ctx.newWorker(); MemoryMap heap = ctx.memMap(HEAP, 0); Arena arena = Arena.ofConfined()) {
            int n = rt.size(), me = rt.rank(), right = (me + 1) % n, left = (me + n - 1) % n;
            if (n < 2) {
                throw new IllegalArgumentException("Soak needs 2 PEs or more");
            }
            fill(heap.segment(), READ_AREA, RMA_MAX, me, -1);
            byte[][] workers = rt.allgather(w.address());
            byte[][] keys = rt.allgather(heap.packRkey());
            Endpoint toRight = w.connect(workers[right]);
            Endpoint toLeft = left == right ? toRight : w.connect(workers[left]);
            Endpoint toZero = right == 0 ? toRight : left == 0 ? toLeft : w.connect(workers[0]);
            Rkey rightKey = toRight.unpackRkey(keys[right]);
            Rkey leftKey = toLeft.unpackRkey(keys[left]);
            Rkey zeroKey = toZero.unpackRkey(keys[0]);

            long[] amSeen = {0};
            String[] amError = {null};
            w.setAmHandler(1, (h, ho, hl, d, dof, dl, msg) -> {
                long round = h.get(JAVA_LONG.withByteAlignment(1), ho);
                long want = size(round, left, 3, AM_MAX);
                String bad = dl != want ? "AM of round " + round + " has " + dl + " bytes, want " + want
                    : check(d, dof, dl, left, round * 4 + 3);
                if (bad != null && amError[0] == null) {
                    amError[0] = bad;
                }
                amSeen[0]++;
                return Status.OK;
            }, 0);
            rt.barrier();

            MemorySegment tx = arena.allocate(TAG_MAX, 64), rx = arena.allocate(TAG_MAX, 64);
            MemorySegment amHeader = arena.allocate(8), ack = arena.allocate(8), fetched = arena.allocate(8);
            long adds = 0, sum = 0, squares = 0, rounds = 0, bytes = 0;
            List<long[]> samples = new ArrayList<>();
            long start = System.nanoTime(), nextSample = start;
            boolean stop = false;
            while (!stop) {
                for (int k = 0; k < ROUNDS_PER_CHECK; k++, rounds++) {
                    long r = rounds;
                    // tagged message and ack from the left, posted first
                    Request fromLeft = w.recvTag(rx, 0, TAG_MAX, DATA | r, -1L);
                    // our put into the right neighbour's heap, flushed before the message that announces it
                    long putLen = size(r, me, 1, RMA_MAX);
                    if (r > 0) {
                        ok(w.recvTag(ack, 0, 8, ACK | (r - 1), -1L)); // the right PE checked our last put
                    }
                    fill(tx, 0, putLen, me, r * 4 + 1);
                    ok(toRight.put(tx, 0, putLen, rightKey.base() + PUT_AREA, rightKey));
                    ok(toRight.flush());
                    amHeader.set(JAVA_LONG, 0, r);
                    long amLen = size(r, me, 3, AM_MAX);
                    fill(tx, 0, amLen, me, r * 4 + 3);
                    ok(toRight.sendAm(1, amHeader, 0, 8, tx, 0, amLen, AmFlags.SEND_EAGER));
                    long tagLen = size(r, me, 0, TAG_MAX);
                    fill(tx, 0, tagLen, me, r * 4);
                    ok(toRight.sendTag(DATA | r, tx, 0, tagLen));
                    fromLeft.await();
                    long want = size(r, left, 0, TAG_MAX);
                    if (fromLeft.length() != want) {
                        throw new IllegalStateException("round " + r + ": tagged message of " + fromLeft.length()
                            + " bytes from PE " + left + ", want " + want);
                    }
                    fromLeft.release();
                    fail(check(rx, 0, want, left, r * 4), r);
                    fail(check(heap.segment(), PUT_AREA, size(r, left, 1, RMA_MAX), left, r * 4 + 1), r);
                    ok(toLeft.sendTag(ACK | r, ack, 0, 8));
                    // a get from the left neighbour's read-only area
                    long getLen = size(r, me, 2, RMA_MAX), getOff = Math.floorMod(mix(r, me, 5), RMA_MAX - getLen + 1);
                    ok(toLeft.get(rx, 0, getLen, leftKey.base() + READ_AREA + getOff, leftKey));
                    fail(checkAt(rx, getLen, left, getOff), r);
                    // a fetch-add on rank 0's counter
                    ok(toZero.atomicFetch(AtomicOp.ADD, 1, fetched, 0, zeroKey.base() + COUNTER, zeroKey));
                    long v = fetched.get(JAVA_LONG, 0);
                    adds++;
                    sum += v;
                    squares += v * v;
                    bytes += putLen + amLen + tagLen + getLen;
                    if (amError[0] != null) {
                        throw new IllegalStateException(amError[0]);
                    }
                }
                long now = System.nanoTime();
                if (now >= nextSample) {
                    samples.add(sample((now - start) / 1_000_000_000L));
                    nextSample = now + 20_000_000_000L;
                }
                // rank 0 decides when to stop, every ROUNDS_PER_CHECK rounds, so that all stop after the same
                // round (rarely: each Runtime.allgather leaves its key in the job's key-value store)
                byte[] flag = {(byte) (me == 0 && now - start > minutes * 60e9 ? 1 : 0)};
                stop = rt.allgather(flag)[0][0] == 1;
            }
            ok(w.recvTag(ack, 0, 8, ACK | (rounds - 1), -1L));
            ok(toRight.flush());
            long amDeadline = System.nanoTime() + 60_000_000_000L; // the left PE's last AMs are on their way
            while (amSeen[0] < rounds && System.nanoTime() < amDeadline) {
                w.progress();
            }
            rt.barrier();
            long seenFromLeft = amSeen[0];
            samples.add(sample((System.nanoTime() - start) / 1_000_000_000L));

            ByteBuffer mine = ByteBuffer.allocate(40).putLong(adds).putLong(sum).putLong(squares).putLong(bytes)
                .putLong(seenFromLeft);
            byte[][] all = rt.allgather(mine.array());
            rt.barrier();
            if (me == 0) {
                long total = 0, s = 0, q = 0, moved = 0;
                for (byte[] b : all) {
                    ByteBuffer bb = ByteBuffer.wrap(b);
                    total += bb.getLong(0);
                    s += bb.getLong(8);
                    q += bb.getLong(16);
                    moved += bb.getLong(24);
                    if (bb.getLong(32) != rounds) {
                        throw new IllegalStateException("a PE saw " + bb.getLong(32) + " active messages, want " + rounds);
                    }
                }
                long counter = heap.segment().get(JAVA_LONG, COUNTER);
                long t = total;
                long wantSum = t * (t - 1) / 2;
                // sum of squares of 0..t-1 = (t-1) t (2t-1) / 6, computed modulo 2^64 as the PEs' sums are
                long wantSquares = java.math.BigInteger.valueOf(t - 1).multiply(java.math.BigInteger.valueOf(t))
                    .multiply(java.math.BigInteger.valueOf(2 * t - 1)).divide(java.math.BigInteger.valueOf(6)).longValue();
                if (counter != total || s != wantSum || q != wantSquares) {
                    throw new IllegalStateException("fetch-add: counter " + counter + " after " + total
                        + " adds; sums " + s + "/" + q + ", want " + wantSum + "/" + wantSquares);
                }
                System.out.printf("soak: %d PEs, %d rounds in %.1f min, %.2f GB checked, %d fetch-adds unique%n",
                    n, rounds, (System.nanoTime() - start) / 60e9, moved / 1e9, total);
                System.out.println("  t(s)   heap-after-GC(KiB)  resident(KiB)  fds");
                for (long[] x : samples) {
                    System.out.printf("  %5d %12d %14d %6d%n", x[0], x[1] / 1024, x[2] / 1024, x[3]);
                }
                int base = Math.max(1, samples.size() / 10);
                long[] b = samples.get(Math.min(base, samples.size() - 1)), e = samples.get(samples.size() - 1);
                String grew = e[1] - b[1] > 4 << 20 ? "heap" : e[2] - b[2] > 32 << 20 ? "resident memory"
                    : e[3] != b[3] ? "descriptors" : null;
                if (grew != null) {
                    throw new IllegalStateException("rank 0's " + grew + " grew from t=" + b[0] + " s to the end");
                }
                System.out.println("  flat from t=" + b[0] + " s to the end: OK");
            }
        }
    }

    /** A size in [0, max] for (round, rank, kind): mostly small, sometimes up to max. */
    static long size(long round, int rank, int kind, long max) {
        long m = mix(round, rank, kind);
        int bucket = (int) Math.floorMod(m, 8);
        long bound = bucket < 3 ? 64 : bucket < 5 ? 8192 : bucket < 7 ? 128 << 10 : max;
        return Math.floorMod(m >>> 8, Math.min(bound, max) + 1);
    }

    static long mix(long round, int rank, int kind) {
        return new SplittableRandom(round * 1_000_003L + rank * 31L + kind).nextLong();
    }

    /** The byte at i of the pattern (rank, seed): seed -1 is the read-only area. */
    static byte at(long i, int rank, long seed) {
        return (byte) (i * 131 + (i >>> 9) + rank * 17 + seed * 7);
    }

    static void fill(MemorySegment m, long off, long len, int rank, long seed) {
        for (long i = 0; i < len; i++) {
            m.set(JAVA_BYTE, off + i, at(i, rank, seed));
        }
    }

    static String check(MemorySegment m, long off, long len, int rank, long seed) {
        for (long i = 0; i < len; i++) {
            if (m.get(JAVA_BYTE, off + i) != at(i, rank, seed)) {
                return "byte " + i + " of " + len + " from PE " + rank + " (seed " + seed + ") is wrong";
            }
        }
        return null;
    }

    /** Checks a get of the read-only area of {@code rank} that started at {@code from}. */
    static String checkAt(MemorySegment m, long len, int rank, long from) {
        for (long i = 0; i < len; i++) {
            if (m.get(JAVA_BYTE, i) != at(from + i, rank, -1)) {
                return "got byte " + (from + i) + " of PE " + rank + "'s read-only area wrong";
            }
        }
        return null;
    }

    /** Waits for a request, throwing on error, and returns it to the worker's pool. */
    static void ok(Request r) {
        r.await();
        r.release();
    }

    static void fail(String problem, long round) {
        if (problem != null) {
            throw new IllegalStateException("round " + round + ": " + problem);
        }
    }

    /** {seconds, heap after GC, resident, open descriptors}. */
    static long[] sample(long seconds) throws java.io.IOException {
        System.gc();
        long heap = java.lang.Runtime.getRuntime().totalMemory() - java.lang.Runtime.getRuntime().freeMemory();
        long rss = 0;
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) {
                rss = Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        long fds;
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        return new long[] {seconds, heap, rss, fds};
    }
}
