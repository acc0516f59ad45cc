package weft.ucp.conformance;

import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AtomicOp;
import weft.uct.IoVector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exact one-sided semantics, run by {@link RmaExactConformanceTest} over every transport set and
 * mode: fence ordering seen by a reader spinning on the target, flush as remote completion, atomics
 * of every kind under contention with the target's own CPU atomics (final values exact), every
 * operation × size × alignment (contiguous, iov, heap buffers, nbi + flush), and failures (out of
 * range, closed key, use after the owner unmapped).
 */
public final class RmaExactScenarios {
    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle I32 = ValueLayout.JAVA_INT.varHandle();

    private RmaExactScenarios() {
    }

    static void flush(final Pe pe, final String what) {
        final Request f = pe.ep().flush();
        assertEquals(Status.OK, pe.await(f), "flush after " + what);
        f.release();
    }

    static void awaitOk(final Pe pe, final Request r, final String what) {
        assertEquals(Status.OK, pe.await(r), what);
        r.release();
    }

    /**
     * The memory of a scenario: allocated by Weft (shm file where peers map it) or the user's own
     * off-heap memory registered (cma or tcp serve it; shm cannot register).
     */
    static MemoryMap map(final Pe pe, final long len, final boolean registered) {
        final var ctx = pe.worker().context();
        return registered ? ctx.memMap(pe.arena().allocate(len, 4096), 0) : ctx.memMap(len, 0);
    }

    /** True if the key has atomics (a lane, or emulated at the target); checks UNSUPPORTED otherwise. */
    static boolean atomics(final Pe pe, final Rkey rk, final MemorySegment scratch) {
        if (!rk.describe().contains("amo=none")) {
            return true;
        }
        final Request r = pe.ep().atomicFetch(AtomicOp.ADD, 1, scratch, 0, rk.base(), rk);
        assertEquals(Status.UNSUPPORTED, pe.await(r), "an atomic on a key without an atomic lane");
        r.release();
        return false;
    }

    static boolean tcp(final Pe pe) {
        return pe.tls().startsWith("tcp");
    }

    /** Byte {@code i} of the pattern {@code seed}. */
    static byte pat(final long i, final int seed) {
        return (byte) (i * 131 + seed * 17 + (i >>> 9));
    }

    static void fill(final MemorySegment m, final long off, final long n, final int seed) {
        for (long i = 0; i < n; i++) {
            m.set(ValueLayout.JAVA_BYTE, off + i, pat(i, seed));
        }
    }

    static void check(final MemorySegment m, final long off, final long n, final int seed, final String what) {
        for (long i = 0; i < n; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, off + i) != pat(i, seed)) {
                throw new AssertionError(what + ": byte " + i + " of " + n + " is "
                    + m.get(ValueLayout.JAVA_BYTE, off + i) + ", want " + pat(i, seed));
            }
        }
    }

    /**
     * put-fence-put: each PE writes data block k then (after a fence) flag k into the peer's heap, for
     * every k, with sizes from 1 B to 64 KiB and flags set alternately by put and by atomic; meanwhile it
     * spins on its own heap (with a deadline) and checks that every flag it sees set has its whole block.
     * Then put + flush: the data is at the target once the flush completes.
     */
    public static final class FenceAndFlush implements Scenario {
        @Override
        public void run(final Pe pe) {
            run(pe, false);
            run(pe, true);
        }

        private void run(final Pe pe, final boolean registered) {
            final int n = tcp(pe) ? 300 : 1000;
            final long[] sizes = {8, 1, 100, 4099, 65537};
            final long[] offs = new long[n + 1];
            final long flags = 0;
            long at = 8L * n + 64;
            for (int k = 0; k < n; k++) {
                offs[k] = at;
                at += sizes[k % sizes.length] + 3;
            }
            final long heapLen = at + (1 << 20) + 64;
            final var ctx = pe.worker().context();
            try (MemoryMap heap = map(pe, heapLen, registered);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6001 + (registered ? 16 : 0))) {
                final MemorySegment mine = heap.segment();
                mine.fill((byte) 0);
                pe.barrier();
                final long base = rk.base();
                final MemorySegment src = pe.arena().allocate(at); // block k's bytes stay put until the flush
                final MemorySegment one = pe.arena().allocate(8);
                one.set(ValueLayout.JAVA_LONG, 0, 1L);
                final boolean amo = !rk.describe().contains("amo=none");
                int seen = 0;
                for (int k = 0; k < n; k++) {
                    final long len = sizes[k % sizes.length];
                    fill(src, offs[k], len, k);
                    final Status d = pe.ep().putNbi(src, offs[k], len, base + offs[k], rk);
                    assertTrue(d == Status.OK || d == Status.IN_PROGRESS, "data put " + k + ": " + d);
                    pe.worker().fence();
                    final Status f = (k & 1) == 0 || !amo ? pe.ep().putNbi(one, 0, 8, base + flags + 8L * k, rk)
                        : pe.ep().atomicPost(AtomicOp.ADD, 1, base + flags + 8L * k, rk);
                    assertTrue(f == Status.OK || f == Status.IN_PROGRESS, "flag " + k + ": " + f);
                    pe.worker().progress();
                    seen = scan(pe, mine, offs, sizes, seen, n);
                }
                flush(pe, "the last fenced put");
                final long deadline = System.nanoTime() + (long) (Pe.WAIT_SECONDS * 1e9);
                while (seen < n) {
                    pe.worker().progress();
                    seen = scan(pe, mine, offs, sizes, seen, n);
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("PE " + pe.rank() + ": only " + seen + " of " + n + " flags arrived");
                    }
                }
                pe.barrier();
                // put then flush: remote completion, the data is there when the peer hears of the flush
                final long big = 1 << 20;
                final MemorySegment blk = pe.arena().allocate(big);
                fill(blk, 0, big, 77 + pe.rank());
                final Status p = pe.ep().putNbi(blk, 0, big, base + at, rk);
                assertTrue(p == Status.OK || p == Status.IN_PROGRESS, "1 MiB put: " + p);
                final Request wf = pe.worker().flush();
                assertEquals(Status.OK, pe.await(wf), "worker flush");
                wf.release();
                pe.barrier();
                check(mine, at, big, 77 + (1 - pe.rank()), "1 MiB put visible after the peer's flush");
                pe.barrier();
            }
        }

        /** Checks flags from {@code seen} on; returns how many are in, in order. */
        private static int scan(final Pe pe, final MemorySegment mine, final long[] offs, final long[] sizes,
                                int seen, final int n) {
            while (seen < n) {
                final long flag = (long) I64.getAcquire(mine, 8L * seen); // acquire: block reads come after
                if (flag == 0) {
                    break;
                }
                assertEquals(1L, flag, "flag " + seen);
                check(mine, offs[seen], sizes[seen % sizes.length], seen,
                    "PE " + pe.rank() + " saw flag " + seen + " before its data (put-fence-put over " + pe.tls() + ")");
                seen++;
            }
            return seen;
        }
    }

    /**
     * Every atomic op, 64 and 32 bit, from the peer (over the key's single atomic lane) against the
     * target's own VarHandle atomics on the same words. Final values are exact because every op is
     * designed so: adds sum, xors commute, or/and on bits each side owns (with the old values checked),
     * swaps conserve the tokens, cswap loops count increments.
     */
    public static final class AtomicContention implements Scenario {
        // 64-bit words at 0..56, 32-bit words at 64..96, the peer's swap token at 128 (+8 for 32 bit), posted sets at 152, 160
        static final long ADD = 0;
        static final long XOR = 8;
        static final long BITS = 16;
        static final long SWAP = 24;
        static final long CAS = 32;
        static final long ADD32 = 64;
        static final long XOR32 = 68;
        static final long BITS32 = 72;
        static final long SWAP32 = 76;
        static final long CAS32 = 80;
        static final long TOKEN = 128;
        static final long TOKEN32 = 136;

        static long mix(final long i, final int who) {
            long z = i * 0x9E3779B97F4A7C15L + who;
            z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
            return z ^ (z >>> 29);
        }

        @Override
        public void run(final Pe pe) {
            run(pe, false);
            run(pe, true);
        }

        private void run(final Pe pe, final boolean registered) {
            final int iters = tcp(pe) ? 200 : 2000;
            final int me = pe.rank();
            final var ctx = pe.worker().context();
            try (MemoryMap heap = map(pe, 4096, registered);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6002 + (registered ? 16 : 0))) {
                final String lanes = rk.describe();
                assertTrue(!lanes.contains("amo=none"), "an atomic lane: " + lanes);
                if (registered && !pe.tls().contains("tcp") && pe.tls().contains("cma")) {
                    // cma has no atomics and shm cannot register user memory: emulated at the target
                    assertTrue(lanes.contains("amo=emulated("), "emulated atomics: " + lanes);
                }
                final MemorySegment w = heap.segment();
                w.fill((byte) 0);
                // swap tokens: the word starts with 1000+me, the local side holds 2000+me, the peer 3000+peer
                w.set(ValueLayout.JAVA_LONG, SWAP, 1000 + me);
                w.set(ValueLayout.JAVA_INT, SWAP32, 1000 + me);
                pe.barrier();
                final long b = rk.base();
                final MemorySegment res = pe.arena().allocate(8);
                long expectXorRemote = 0;
                long localXor = 0;
                long heldR = 3000 + me; // my token for the peer's swap word
                int heldR32 = 3000 + me;
                long heldL = 2000 + me; // my token for my own swap word
                int heldL32 = 2000 + me;
                long casR = 0;
                int casR32 = 0;
                for (int i = 0; i < iters; i++) {
                    // ---- remote, on the peer's words
                    post(pe, AtomicOp.ADD, 1, b + ADD, rk, true);
                    assertEquals(Status.OK, fetch(pe, AtomicOp.ADD, 2, res, b + ADD, rk, true));
                    post(pe, AtomicOp.ADD, 1, b + ADD32, rk, false);
                    assertEquals(Status.OK, fetch(pe, AtomicOp.ADD, 2, res, b + ADD32, rk, false));
                    final long x1 = mix(i, me);
                    final long x2 = mix(i + iters, me);
                    post(pe, AtomicOp.XOR, x1, b + XOR, rk, true);
                    assertEquals(Status.OK, fetch(pe, AtomicOp.XOR, x2, res, b + XOR, rk, true));
                    post(pe, AtomicOp.XOR, (int) x1, b + XOR32, rk, false);
                    assertEquals(Status.OK, fetch(pe, AtomicOp.XOR, (int) x2, res, b + XOR32, rk, false));
                    expectXorRemote ^= x1 ^ x2;
                    // or/and on the remote side's bits (the low half of each word)
                    final long bit = 1L << (i % 32);
                    final int bit32 = 1 << (i % 16);
                    fetch(pe, AtomicOp.OR, bit, res, b + BITS, rk, true);
                    assertEquals(0, res.get(ValueLayout.JAVA_LONG, 0) & bit, "remote fetch-or " + i + ": bit was set");
                    fetch(pe, AtomicOp.OR, bit32, res, b + BITS32, rk, false);
                    assertEquals(0, res.get(ValueLayout.JAVA_INT, 0) & bit32, "remote fetch-or32 " + i);
                    if ((i & 1) == 0) {
                        fetch(pe, AtomicOp.AND, ~bit, res, b + BITS, rk, true);
                        assertTrue((res.get(ValueLayout.JAVA_LONG, 0) & bit) != 0, "remote fetch-and " + i + ": bit lost");
                        fetch(pe, AtomicOp.AND, ~bit32, res, b + BITS32, rk, false);
                        assertTrue((res.get(ValueLayout.JAVA_INT, 0) & bit32) != 0, "remote fetch-and32 " + i);
                    } else {
                        post(pe, AtomicOp.AND, ~bit, b + BITS, rk, true);
                        post(pe, AtomicOp.AND, ~bit32, b + BITS32, rk, false);
                    }
                    // swap: pass tokens around
                    fetch(pe, AtomicOp.SWAP, heldR, res, b + SWAP, rk, true);
                    heldR = res.get(ValueLayout.JAVA_LONG, 0);
                    fetch(pe, AtomicOp.SWAP, heldR32, res, b + SWAP32, rk, false);
                    heldR32 = res.get(ValueLayout.JAVA_INT, 0);
                    // cswap increment loops
                    while (true) {
                        final Request c = pe.ep().atomicCswap(casR, casR + 1, res, 0, b + CAS, rk);
                        awaitOk(pe, c, "cswap");
                        final long old = res.get(ValueLayout.JAVA_LONG, 0);
                        if (old == casR) {
                            casR++;
                            break;
                        }
                        casR = old;
                    }
                    while (true) {
                        final Request c = pe.ep().atomicCswap32(casR32, casR32 + 1, res, 0, b + CAS32, rk);
                        awaitOk(pe, c, "cswap32");
                        final int old = res.get(ValueLayout.JAVA_INT, 0);
                        if (old == casR32) {
                            casR32++;
                            break;
                        }
                        casR32 = old;
                    }
                    // ---- local CPU atomics on my own words (the peer hammers them at the same time)
                    I64.getAndAdd(w, ADD, 10L);
                    I32.getAndAdd(w, ADD32, 10);
                    final long y = mix(i, 100 + me);
                    I64.getAndBitwiseXor(w, XOR, y);
                    I32.getAndBitwiseXor(w, XOR32, (int) y);
                    localXor ^= y;
                    final long hi = 1L << (32 + i % 32);
                    final int hi32 = 1 << (16 + i % 16);
                    assertEquals(0, (long) I64.getAndBitwiseOr(w, BITS, hi) & hi, "local or " + i);
                    assertEquals(0, (int) I32.getAndBitwiseOr(w, BITS32, hi32) & hi32, "local or32 " + i);
                    assertTrue(((long) I64.getAndBitwiseAnd(w, BITS, ~hi) & hi) != 0, "local and " + i + ": bit lost");
                    assertTrue(((int) I32.getAndBitwiseAnd(w, BITS32, ~hi32) & hi32) != 0, "local and32 " + i);
                    heldL = (long) I64.getAndSet(w, SWAP, heldL);
                    heldL32 = (int) I32.getAndSet(w, SWAP32, heldL32);
                    for (long cur = (long) I64.getVolatile(w, CAS); ; ) {
                        final long old = (long) I64.compareAndExchange(w, CAS, cur, cur + 1);
                        if (old == cur) {
                            break;
                        }
                        cur = old;
                    }
                    for (int cur = (int) I32.getVolatile(w, CAS32); ; ) {
                        final int old = (int) I32.compareAndExchange(w, CAS32, cur, cur + 1);
                        if (old == cur) {
                            break;
                        }
                        cur = old;
                    }
                    pe.worker().progress();
                }
                // final bit patterns: each side leaves 0x5555 in its half
                post(pe, AtomicOp.OR, 0x5555_5555L, b + BITS, rk, true);
                post(pe, AtomicOp.OR, 0x5555, b + BITS32, rk, false);
                I64.getAndBitwiseOr(w, BITS, 0x5555_5555L << 32);
                I32.getAndBitwiseOr(w, BITS32, 0x5555 << 16);
                // hand my remote tokens and xor to the peer
                final MemorySegment out = pe.arena().allocate(24);
                out.set(ValueLayout.JAVA_LONG, 0, heldR);
                out.set(ValueLayout.JAVA_LONG, 8, heldR32);
                out.set(ValueLayout.JAVA_LONG, 16, expectXorRemote);
                awaitOk(pe, pe.ep().put(out, 0, 24, b + TOKEN, rk), "token put");
                flush(pe, "atomics");
                pe.barrier();
                final String on = " over " + lanes + " (" + pe.tls() + ")";
                assertEquals(iters * 3L + iters * 10L, w.get(ValueLayout.JAVA_LONG, ADD), "64-bit add" + on);
                assertEquals(iters * 3 + iters * 10, w.get(ValueLayout.JAVA_INT, ADD32), "32-bit add" + on);
                final long peerXor = w.get(ValueLayout.JAVA_LONG, TOKEN + 16);
                assertEquals(peerXor ^ localXor, w.get(ValueLayout.JAVA_LONG, XOR), "64-bit xor" + on);
                assertEquals((int) (peerXor ^ localXor), w.get(ValueLayout.JAVA_INT, XOR32), "32-bit xor" + on);
                assertEquals(0x5555_5555_5555_5555L, w.get(ValueLayout.JAVA_LONG, BITS), "64-bit or/and" + on);
                assertEquals(0x5555_5555, w.get(ValueLayout.JAVA_INT, BITS32), "32-bit or/and" + on);
                final int peer = 1 - me;
                final long[] tokens = {w.get(ValueLayout.JAVA_LONG, SWAP), heldL, w.get(ValueLayout.JAVA_LONG, TOKEN)};
                Arrays.sort(tokens);
                assertEquals(Arrays.toString(new long[] {1000 + me, 2000 + me, 3000 + peer}), Arrays.toString(tokens),
                    "64-bit swap tokens conserved" + on);
                final long[] t32 = {w.get(ValueLayout.JAVA_INT, SWAP32), heldL32, w.get(ValueLayout.JAVA_LONG, TOKEN + 8)};
                Arrays.sort(t32);
                assertEquals(Arrays.toString(new long[] {1000 + me, 2000 + me, 3000 + peer}), Arrays.toString(t32),
                    "32-bit swap tokens conserved" + on);
                assertEquals(2L * iters, w.get(ValueLayout.JAVA_LONG, CAS), "64-bit cswap increments" + on);
                assertEquals(2 * iters, w.get(ValueLayout.JAVA_INT, CAS32), "32-bit cswap increments" + on);
                pe.barrier();
                // a posted SWAP is a set (no old value, no reply) on every atomic lane, emulated included
                post(pe, AtomicOp.SWAP, 7000 + me, b + TOKEN + 24, rk, true);
                post(pe, AtomicOp.SWAP, 8000 + me, b + TOKEN + 32, rk, false);
                flush(pe, "posted sets");
                pe.barrier();
                assertEquals(7000 + peer, w.get(ValueLayout.JAVA_LONG, TOKEN + 24), "64-bit posted set" + on);
                assertEquals(8000 + peer, w.get(ValueLayout.JAVA_INT, TOKEN + 32), "32-bit posted set" + on);
                pe.barrier();
            }
        }

        private static void post(final Pe pe, final AtomicOp op, final long v, final long addr, final Rkey rk,
                                 final boolean is64) {
            final Status st = is64 ? pe.ep().atomicPost(op, v, addr, rk) : pe.ep().atomicPost32(op, (int) v, addr, rk);
            assertTrue(st == Status.OK || st == Status.IN_PROGRESS, op + " post: " + st);
        }

        private static Status fetch(final Pe pe, final AtomicOp op, final long v, final MemorySegment res,
                                    final long addr, final Rkey rk, final boolean is64) {
            final Request r = is64 ? pe.ep().atomicFetch(op, v, res, 0, addr, rk)
                : pe.ep().atomicFetch32(op, (int) v, res, 0, addr, rk);
            final Status st = pe.await(r);
            r.release();
            assertEquals(Status.OK, st, op + " fetch");
            return st;
        }
    }

    /**
     * Every size × remote and local alignment: put/get requests, putNbi/getNbi + flush, iov put/get,
     * and user buffers on the Java heap (the lane cannot reach them: bounce buffers).
     */
    public static final class SizesAlignmentsIov implements Scenario {
        static final long[] SIZES = {0, 1, 7, 8, 9, 4095, 4096, 65537, 1 << 20};

        @Override
        public void run(final Pe pe) {
            run(pe, false);
            run(pe, true);
        }

        private void run(final Pe pe, final boolean registered) {
            final long max = 1 << 20;
            final var ctx = pe.worker().context();
            try (MemoryMap heap = map(pe, 4 * max, registered);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6003 + (registered ? 16 : 0))) {
                pe.barrier();
                final long b = rk.base();
                final MemorySegment src = pe.arena().allocate(max + 64, 64);
                final MemorySegment dst = pe.arena().allocate(max + 64, 64);
                int seed = 1;
                for (final long n : SIZES) {
                    for (final int ro : new int[] {0, 3}) {
                        final int lo = ro == 0 ? 0 : 5;
                        final String what = n + " B remote+" + ro + " local+" + lo + " over " + rk.describe();
                        // request put, request get
                        fill(src, lo, n, seed);
                        awaitOk(pe, pe.ep().put(src, lo, n, b + ro, rk), "put " + what);
                        flush(pe, "put " + what);
                        dst.fill((byte) 0);
                        awaitOk(pe, pe.ep().get(dst, lo, n, b + ro, rk), "get " + what);
                        check(dst, lo, n, seed, "get after put " + what);
                        seed++;
                        // nbi + flush, into the second MiB
                        fill(src, lo, n, seed);
                        final Status p = pe.ep().putNbi(src, lo, n, b + max + 64 + ro, rk);
                        assertTrue(p == Status.OK || p == Status.IN_PROGRESS, "putNbi " + what + ": " + p);
                        flush(pe, "putNbi " + what);
                        dst.fill((byte) 0);
                        final Status g = pe.ep().getNbi(dst, lo, n, b + max + 64 + ro, rk);
                        assertTrue(g == Status.OK || g == Status.IN_PROGRESS, "getNbi " + what + ": " + g);
                        flush(pe, "getNbi " + what);
                        check(dst, lo, n, seed, "getNbi after putNbi " + what);
                        seed++;
                    }
                }
                // iov: three local pieces (one empty, unaligned) <-> one remote range
                final MemorySegment a = pe.arena().allocate(5000);
                final MemorySegment c = pe.arena().allocate(80_000);
                final long[] lens = {4099, 0, 1, 70_001};
                final IoVector out = new IoVector(1).add(a, 3, lens[0]).add(c, 0, 0).add(c, 7, lens[2])
                    .add(c, 9, lens[3]);
                fill(a, 3, lens[0], 40);
                fill(c, 7, lens[2], 41);
                fill(c, 9, lens[3], 42);
                final long total = out.totalLength();
                final long roff = 2 * max + 129 + pe.rank();
                awaitOk(pe, pe.ep().putIov(out, b + roff, rk), "putIov");
                flush(pe, "putIov");
                final MemorySegment flat = pe.arena().allocate(total);
                awaitOk(pe, pe.ep().get(flat, 0, total, b + roff, rk), "get of the iov put");
                check(flat, 0, lens[0], 40, "iov piece 0");
                check(flat, lens[0], lens[2], 41, "iov piece 2");
                check(flat, lens[0] + lens[2], lens[3], 42, "iov piece 3");
                final MemorySegment a2 = pe.arena().allocate(5000);
                final MemorySegment c2 = pe.arena().allocate(80_000);
                final IoVector in = new IoVector(4).add(a2, 1, lens[0]).add(c2, 0, 0).add(c2, 11, lens[2])
                    .add(c2, 13, lens[3]);
                awaitOk(pe, pe.ep().getIov(in, b + roff, rk), "getIov");
                check(a2, 1, lens[0], 40, "getIov piece 0");
                check(c2, 11, lens[2], 41, "getIov piece 2");
                check(c2, 13, lens[3], 42, "getIov piece 3");
                final Status gn = pe.ep().getIovNbi(in.clear().add(c2, 100, lens[3]), b + roff + lens[0] + lens[2], rk);
                assertTrue(gn == Status.OK || gn == Status.IN_PROGRESS, "getIovNbi: " + gn);
                flush(pe, "getIovNbi");
                check(c2, 100, lens[3], 42, "getIovNbi");
                // an iov of 40 entries: more than one lane piece takes (16), so several pieces in flight
                final IoVector many = new IoVector(4);
                for (int i = 0; i < 40; i++) {
                    many.add(c2, 1000L * i + 1, 997);
                }
                fill(flat, 0, 40 * 997, 43);
                awaitOk(pe, pe.ep().put(flat, 0, 40 * 997, b + roff, rk), "put for the 40-entry iov");
                flush(pe, "put");
                c2.fill((byte) 0);
                awaitOk(pe, pe.ep().getIov(many, b + roff, rk), "getIov of 40 entries");
                for (int i = 0; i < 40; i++) {
                    for (int j = 0; j < 997; j++) {
                        assertEquals(pat(997L * i + j, 43), c2.get(ValueLayout.JAVA_BYTE, 1000L * i + 1 + j),
                            "getIov of 40 entries: entry " + i + " byte " + j);
                    }
                }
                fill(c2, 0, 40_000, 44);
                awaitOk(pe, pe.ep().putIov(many, b + roff, rk), "putIov of 40 entries");
                flush(pe, "putIov of 40 entries");
                awaitOk(pe, pe.ep().get(flat, 0, 40 * 997, b + roff, rk), "get of the 40-entry iov put");
                for (int i = 0; i < 40; i++) {
                    for (int j = 0; j < 997; j++) {
                        assertEquals(pat(1000L * i + 1 + j, 44), flat.get(ValueLayout.JAVA_BYTE, 997L * i + j),
                            "putIov of 40 entries: entry " + i + " byte " + j);
                    }
                }
                // user buffers on the Java heap: no lane can hand them to the kernel, Weft bounces them
                for (final int n : new int[] {8, 5000, 300_000}) {
                    final byte[] arr = new byte[n + 3];
                    final MemorySegment hs = MemorySegment.ofArray(arr);
                    fill(hs, 3, n, 50 + n);
                    awaitOk(pe, pe.ep().put(hs, 3, n, b + 3 * max + 1, rk), "put from a heap array of " + n);
                    flush(pe, "heap put");
                    final byte[] back = new byte[n + 1];
                    final MemorySegment hb = MemorySegment.ofArray(back);
                    awaitOk(pe, pe.ep().get(hb, 1, n, b + 3 * max + 1, rk), "get into a heap array of " + n);
                    check(hb, 1, n, 50 + n, "heap get of " + n);
                    Arrays.fill(back, (byte) 0);
                    final Status g = pe.ep().getNbi(hb, 1, n, b + 3 * max + 1, rk);
                    assertTrue(g == Status.OK || g == Status.IN_PROGRESS, "heap getNbi: " + g);
                    flush(pe, "heap getNbi");
                    check(hb, 1, n, 50 + n, "heap getNbi of " + n);
                    // putNbi from the heap too (the short-put shortcut leaves it to the general path)
                    fill(hs, 3, n, 60 + n);
                    final Status p = pe.ep().putNbi(hs, 3, n, b + 3 * max + 1, rk);
                    assertTrue(p == Status.OK || p == Status.IN_PROGRESS, "heap putNbi: " + p);
                    flush(pe, "heap putNbi");
                    awaitOk(pe, pe.ep().get(hb, 1, n, b + 3 * max + 1, rk), "get after a heap putNbi of " + n);
                    check(hb, 1, n, 60 + n, "heap putNbi of " + n);
                }
                // atomics need aligned words: a clear error otherwise
                if (atomics(pe, rk, dst)) {
                    final Request mis = pe.ep().atomicFetch(AtomicOp.ADD, 1, dst, 0, b + 4, rk);
                    assertEquals(Status.INVALID_PARAM, pe.await(mis), "misaligned 64-bit atomic");
                    mis.release();
                }
                pe.barrier();
            }
        }
    }

    /**
     * Failures: out of range (across the end, before the start, after the end, overflowing) fails
     * with OUT_OF_RANGE and writes nothing; a closed key is refused; a key used after its owner
     * unmapped the memory (even if new memory took its place) fails clearly and writes nothing.
     */
    public static final class Failures implements Scenario {
        @Override
        public void run(final Pe pe) {
            run(pe, false);
            run(pe, true);
        }

        private void run(final Pe pe, final boolean registered) {
            final long len = 64 * 1024;
            final var ctx = pe.worker().context();
            try (MemoryMap heap = map(pe, len, registered);
                 Rkey rk = RmaScenarios.exchange(pe, heap, 0x6004 + (registered ? 16 : 0))) {
                final MemorySegment mine = heap.segment();
                mine.fill((byte) 0x5A);
                pe.barrier();
                final long b = rk.base();
                final MemorySegment buf = pe.arena().allocate(8192);
                buf.fill((byte) 0x11);
                final long[][] bad = { // address, length
                    {b + len - 4, 8}, {b + len - 100, 4096}, {b - 8, 8}, {b - 8, 16}, {b + len, 8},
                    {b + len + 4096, 1}, {b + len, 0 + 1}, {Long.MAX_VALUE - 3, 8}, {b + 8, Long.MAX_VALUE},
                };
                for (final long[] x : bad) {
                    final long n = Math.min(x[1], 4096);
                    final String what = "[0x" + Long.toHexString(x[0]) + ", +" + n + ") of [0x" + Long.toHexString(b)
                        + ", +" + len + ") over " + rk.describe();
                    if (x[1] == Long.MAX_VALUE) {
                        // a length beyond the local buffer is the caller's error, found before anything is sent
                        assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class,
                            () -> pe.ep().put(buf, 0, x[1], x[0], rk)).status(), "huge length");
                        continue;
                    }
                    expectOor(pe, pe.ep().put(buf, 0, n, x[0], rk), "put " + what);
                    expectOor(pe, pe.ep().get(buf, 0, n, x[0], rk), "get " + what);
                    final Status nbi = pe.ep().putNbi(buf, 0, n, x[0], rk);
                    if (nbi != Status.OUT_OF_RANGE) {
                        assertEquals(Status.IN_PROGRESS, nbi, "putNbi " + what);
                        final Request f = pe.ep().flush();
                        assertEquals(Status.OUT_OF_RANGE, pe.await(f), "flush after a bad putNbi " + what);
                        f.release();
                    }
                }
                // atomics on words outside the region (before, after, far after, at the top of the address space)
                for (final long wa : atomics(pe, rk, buf) ? new long[] {b - 8, b + len, b + len + 4096,
                    Long.MAX_VALUE - 7} : new long[0]) {
                    final String what = "word 0x" + Long.toHexString(wa) + " of [0x" + Long.toHexString(b) + ", +" + len
                        + ") over " + rk.describe();
                    final Status ap = pe.ep().atomicPost(AtomicOp.ADD, 1, wa, rk);
                    if (ap != Status.OUT_OF_RANGE) {
                        assertEquals(Status.IN_PROGRESS, ap, "atomic post " + what);
                        final Request f = pe.ep().flush();
                        assertEquals(Status.OUT_OF_RANGE, pe.await(f), "flush after a bad atomic post " + what);
                        f.release();
                    }
                    expectOor(pe, pe.ep().atomicFetch(AtomicOp.ADD, 1, buf, 0, wa, rk), "fetch-add " + what);
                    expectOor(pe, pe.ep().atomicCswap(0, 1, buf, 0, wa, rk), "cswap " + what);
                    expectOor(pe, pe.ep().atomicFetch32(AtomicOp.SWAP, 1, buf, 0, wa + 4, rk), "swap32 " + what);
                    expectOor(pe, pe.ep().atomicCswap32(0, 1, buf, 0, wa, rk), "cswap32 " + what);
                }
                // the endpoint still works after all that
                awaitOk(pe, pe.ep().put(buf, 0, 16, b + 16, rk), "a good put after the bad ones");
                flush(pe, "good put");
                pe.barrier();
                for (long i = 0; i < len; i++) {
                    final byte want = i >= 16 && i < 32 ? (byte) 0x11 : (byte) 0x5A;
                    if (mine.get(ValueLayout.JAVA_BYTE, i) != want) {
                        throw new AssertionError("PE " + pe.rank() + ": byte " + i + " of the region is "
                            + mine.get(ValueLayout.JAVA_BYTE, i) + " after out-of-range accesses (" + pe.tls() + ")");
                    }
                }
                pe.barrier();
                // a closed key is refused at once
                final Rkey k2 = RmaScenarios.exchange(pe, heap, 0x6005);
                k2.close();
                k2.close(); // idempotent
                assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
                    () -> pe.ep().put(buf, 0, 8, b, k2)).status(), "put on a closed key");
                assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
                    () -> pe.ep().getNbi(buf, 0, 8, b, k2)).status(), "getNbi on a closed key");
                assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
                    () -> pe.ep().atomicPost(AtomicOp.ADD, 1, b, k2)).status(), "atomic on a closed key");
                assertEquals(Status.INVALID_RKEY, assertThrows(WeftException.class,
                    () -> k2.ptr(b, 8)).status(), "ptr of a closed key");
                if (registered) {
                    if (rk.describe().contains("amo=emulated(")) {
                        // emulated atomics can revoke: the target no longer knows the map
                        final MemoryMap gone = map(pe, 4096, true);
                        final Rkey stale = RmaScenarios.exchange(pe, gone, 0x6007);
                        pe.barrier();
                        gone.close();
                        pe.barrier();
                        final String on = " after the owner unmapped (" + stale.describe() + ")";
                        expectStale(pe, pe.ep().atomicFetch(AtomicOp.ADD, 1, buf, 0, stale.base(), stale),
                            "emulated fetch-add" + on);
                        expectStale(pe, pe.ep().atomicCswap32(0, 1, buf, 0, stale.base() + 4, stale),
                            "emulated cswap32" + on);
                        assertEquals(Status.IN_PROGRESS, pe.ep().atomicPost(AtomicOp.ADD, 1, stale.base(), stale),
                            "emulated post" + on);
                        final Request f = pe.ep().flush();
                        assertEquals(Status.INVALID_RKEY, pe.await(f), "flush after an emulated post" + on);
                        f.release();
                        final Request f2 = pe.ep().flush();
                        assertEquals(Status.OK, pe.await(f2), "the next flush" + on + " reports nothing old");
                        f2.release();
                        stale.close();
                    }
                    pe.barrier();
                    return; // cma cannot revoke access to user memory (documented): allocated memory only
                }
                // use after the owner unmapped: each PE maps a region, the peer takes its key, the owner
                // unmaps it and maps a new one (which may land at the same address)
                final MemoryMap gone = ctx.memMap(len, 0);
                final Rkey stale = RmaScenarios.exchange(pe, gone, 0x6006);
                awaitOk(pe, pe.ep().put(buf, 0, 8, stale.base(), stale), "put before the unmap");
                flush(pe, "put before the unmap");
                pe.barrier();
                gone.close();
                try (MemoryMap fresh = ctx.memMap(len, 0)) {
                    fresh.segment().fill((byte) 0x5A);
                    pe.barrier();
                    final long sb = stale.base();
                    final String on = " after the owner unmapped (" + stale.describe() + ")";
                    expectStalePut(pe, pe.ep().put(buf, 0, 8, sb, stale), "put" + on);
                    expectStalePut(pe, pe.ep().put(buf, 0, 4096, sb + 64, stale), "put 4 KiB" + on);
                    expectStale(pe, pe.ep().get(buf, 0, 64, sb, stale), "get" + on);
                    expectStale(pe, pe.ep().atomicFetch(AtomicOp.ADD, 1, buf, 0, sb, stale), "fetch-add" + on);
                    final Status ps = pe.ep().atomicPost(AtomicOp.ADD, 1, sb + 8, stale);
                    if (!ps.isError()) {
                        final Request f = pe.ep().flush();
                        final Status fs = pe.await(f);
                        f.release();
                        assertTrue(fs == Status.INVALID_RKEY || fs == Status.OUT_OF_RANGE, "flush after atomic post"
                            + on + ": " + fs);
                    } else {
                        assertTrue(ps == Status.INVALID_RKEY || ps == Status.OUT_OF_RANGE, "atomic post" + on + ": " + ps);
                    }
                    stale.close();
                    // the endpoint still works, and the new memory is untouched
                    awaitOk(pe, pe.ep().get(buf, 0, 8, b, rk), "a good get after the stale accesses");
                    pe.barrier();
                    for (long i = 0; i < len; i += 8) {
                        assertEquals(0x5A5A_5A5A_5A5A_5A5AL, fresh.segment().get(ValueLayout.JAVA_LONG, i),
                            "PE " + pe.rank() + ": new memory written through a stale key at " + i);
                    }
                }
                pe.barrier();
            }
        }

        private static void expectOor(final Pe pe, final Request r, final String what) {
            final Status st = pe.await(r);
            r.release();
            assertEquals(Status.OUT_OF_RANGE, st, what);
        }

        /** A put request completes locally: the target's refusal may come with the next flush instead. */
        private static void expectStalePut(final Pe pe, final Request r, final String what) {
            Status st = pe.await(r);
            r.release();
            if (st == Status.OK) {
                final Request f = pe.ep().flush();
                st = pe.await(f);
                f.release();
            }
            assertTrue(st == Status.INVALID_RKEY || st == Status.OUT_OF_RANGE, what + " (or the flush after it): " + st);
        }

        private static void expectStale(final Pe pe, final Request r, final String what) {
            final Status st = pe.await(r);
            r.release();
            assertTrue(st == Status.INVALID_RKEY || st == Status.OUT_OF_RANGE, what + ": " + st);
        }
    }

    /**
     * put and get of more than 2 GiB (several lane pieces on tcp, whose limit is 1 GiB), with iov
     * pieces of 1 GiB + the rest for the get back: rank 1 owns the memory, rank 0 writes it, the owner
     * checks every word, rank 0 reads it back. About 4.3 GiB of native memory in all.
     */
    public static final class Huge implements Scenario {
        static final long SIZE = (2L << 30) + 8 * 1001;

        @Override
        public void run(final Pe pe) {
            final long len = pe.rank() == 1 ? SIZE + 64 : 4096;
            try (MemoryMap heap = map(pe, len, false); Rkey rk = RmaScenarios.exchange(pe, heap, 0x6100)) {
                if (pe.rank() == 0) {
                    final MemorySegment buf = pe.arena().allocate(SIZE, 4096);
                    for (long i = 0; i < SIZE; i += 8) {
                        buf.set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
                        if ((i & ((64 << 20) - 1)) == 0) {
                            pe.worker().progress(); // keepalives: a busy PE is not a dead one
                        }
                    }
                    long t = System.nanoTime();
                    final Request p = pe.ep().put(buf, 0, SIZE, rk.base() + 64, rk);
                    assertEquals(Status.OK, pe.await(p, 300), "put of " + SIZE + " over " + rk.describe());
                    p.release();
                    final Request f = pe.ep().flush();
                    assertEquals(Status.OK, pe.await(f, 300), "flush");
                    f.release();
                    System.out.printf("put of %d B over %s: %.2f s%n", SIZE, rk.describe(), (System.nanoTime() - t) / 1e9);
                    pe.barrier(300); // the owner checks
                    pe.barrier(300);
                    buf.fill((byte) 0);
                    t = System.nanoTime();
                    final Request g = pe.ep().get(buf, 0, SIZE, rk.base() + 64, rk);
                    assertEquals(Status.OK, pe.await(g, 300), "get of " + SIZE + " over " + rk.describe());
                    g.release();
                    System.out.printf("get of %d B over %s: %.2f s%n", SIZE, rk.describe(), (System.nanoTime() - t) / 1e9);
                    checkWords(pe, buf, 0, "get back");
                } else {
                    pe.barrier(300);
                    checkWords(pe, heap.segment(), 64, "the owner's memory after the put");
                    pe.barrier(300);
                }
                pe.barrier(300);
            }
        }

        private static void checkWords(final Pe pe, final MemorySegment m, final long off, final String what) {
            for (long i = 0; i < SIZE; i += 8) {
                if ((i & ((64 << 20) - 1)) == 0) {
                    pe.worker().progress();
                }
                if (m.get(ValueLayout.JAVA_LONG, off + i) != i * 0x9E3779B97F4A7C15L) {
                    throw new AssertionError(what + ": wrong data at byte " + i + " of " + SIZE);
                }
            }
        }
    }
}
