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
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A PE of {@link AtomicContentionJobTest}: every PE hammers the same words on every other PE with
 * every atomic op (64 and 32 bit: post and fetch add, xor, or/and, swap, compare-and-swap), while
 * each target runs its own CPU atomics on those words. Ops are designed so that the final values
 * are exact: adds sum, xors are known to the target (a function of sender and iteration), or/and
 * work on bits each sender owns (with the old values checked), swaps conserve tokens, cswap loops
 * count increments. Args: {@code PIDDIR alloc|registered ITERS}. Prints {@code ok RANK} at the end.
 */
public final class AtomicContentionPe {
    // 64-bit words, then 32-bit words
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
    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle I32 = ValueLayout.JAVA_INT.varHandle();
    private static final long DONE = 128; // a counter: other PEs add 1 once their ops on me are flushed

    private AtomicContentionPe() {
    }

    static long mix(final long i, final int who) {
        long z = i * 0x9E3779B97F4A7C15L + who;
        z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 29);
    }

    public static void main(final String[] args) throws Exception {
        Files.writeString(Path.of(args[0]).resolve(Long.toString(ProcessHandle.current().pid())), "");
        final boolean registered = args[1].equals("registered");
        final int iters = Integer.parseInt(args[2]);
        try (Runtime rt = Runtime.init();
             Context ctx = Context.create(Feature.TAG, Feature.RMA, Feature.AMO32, Feature.AMO64);
             Worker w = ctx.newWorker(); Arena arena = Arena.ofShared();
             MemoryMap heap = registered ? ctx.memMap(arena.allocate(4096, 4096), 0) : ctx.memMap(4096, 0)) {
            final int n = rt.size();
            final int me = rt.rank();
            if (n > 7) {
                throw new IllegalArgumentException("bit lanes fit 7 PEs");
            }
            final MemorySegment mine = heap.segment();
            mine.fill((byte) 0);
            mine.set(ValueLayout.JAVA_LONG, SWAP, 1000 + me);
            mine.set(ValueLayout.JAVA_INT, SWAP32, 1000 + me);
            final byte[][] addrs = rt.allgather(w.address());
            final byte[][] keys = rt.allgather(heap.packRkey());
            final Endpoint[] eps = new Endpoint[n];
            final Rkey[] rks = new Rkey[n];
            String lanes = "";
            for (int j = 0; j < n; j++) {
                if (j != me) {
                    eps[j] = w.connect(addrs[j]);
                    rks[j] = eps[j].unpackRkey(keys[j]);
                    lanes = rks[j].describe();
                }
            }
            final MemorySegment res = arena.allocate(8, 8);
            final long[] heldR = new long[n]; // my token for PE j's swap word
            final int[] heldR32 = new int[n];
            final long[] casR = new long[n];
            final int[] casR32 = new int[n];
            for (int j = 0; j < n; j++) {
                heldR[j] = 3000 + 10L * me + j;
                heldR32[j] = 3000 + 10 * me + j;
            }
            long heldL = 2000 + me;
            int heldL32 = 2000 + me;
            long localXor = 0;
            for (int i = 0; i < iters; i++) {
                for (int d = 1; d < n; d++) {
                    final int j = (me + d) % n; // everyone starts on a different target
                    final Endpoint ep = eps[j];
                    final Rkey rk = rks[j];
                    final long b = rk.base();
                    post(w, ep.atomicPost(AtomicOp.ADD, 1, b + ADD, rk));
                    fetch(w, ep.atomicFetch(AtomicOp.ADD, 2, res, 0, b + ADD, rk));
                    post(w, ep.atomicPost32(AtomicOp.ADD, 1, b + ADD32, rk));
                    fetch(w, ep.atomicFetch32(AtomicOp.ADD, 2, res, 0, b + ADD32, rk));
                    post(w, ep.atomicPost(AtomicOp.XOR, mix(i, 2 * me), b + XOR, rk));
                    fetch(w, ep.atomicFetch(AtomicOp.XOR, mix(i, 2 * me + 1), res, 0, b + XOR, rk));
                    post(w, ep.atomicPost32(AtomicOp.XOR, (int) mix(i, 2 * me), b + XOR32, rk));
                    fetch(w, ep.atomicFetch32(AtomicOp.XOR, (int) mix(i, 2 * me + 1), res, 0, b + XOR32, rk));
                    // or/and on my own bits of the word: 8 per PE (64 bit), 4 per PE (32 bit)
                    final long bit = 1L << (8 * me + i % 8);
                    final int bit32 = 1 << (4 * me + i % 4);
                    fetch(w, ep.atomicFetch(AtomicOp.OR, bit, res, 0, b + BITS, rk));
                    check((res.get(ValueLayout.JAVA_LONG, 0) & bit) == 0, "fetch-or: my bit was already set");
                    fetch(w, ep.atomicFetch32(AtomicOp.OR, bit32, res, 0, b + BITS32, rk));
                    check((res.get(ValueLayout.JAVA_INT, 0) & bit32) == 0, "fetch-or32: my bit was already set");
                    if ((i & 1) == 0) {
                        fetch(w, ep.atomicFetch(AtomicOp.AND, ~bit, res, 0, b + BITS, rk));
                        check((res.get(ValueLayout.JAVA_LONG, 0) & bit) != 0, "fetch-and: my bit was lost");
                        fetch(w, ep.atomicFetch32(AtomicOp.AND, ~bit32, res, 0, b + BITS32, rk));
                        check((res.get(ValueLayout.JAVA_INT, 0) & bit32) != 0, "fetch-and32: my bit was lost");
                    } else {
                        post(w, ep.atomicPost(AtomicOp.AND, ~bit, b + BITS, rk));
                        post(w, ep.atomicPost32(AtomicOp.AND, ~bit32, b + BITS32, rk));
                    }
                    fetch(w, ep.atomicFetch(AtomicOp.SWAP, heldR[j], res, 0, b + SWAP, rk));
                    heldR[j] = res.get(ValueLayout.JAVA_LONG, 0);
                    fetch(w, ep.atomicFetch32(AtomicOp.SWAP, heldR32[j], res, 0, b + SWAP32, rk));
                    heldR32[j] = res.get(ValueLayout.JAVA_INT, 0);
                    while (true) {
                        fetch(w, ep.atomicCswap(casR[j], casR[j] + 1, res, 0, b + CAS, rk));
                        final long old = res.get(ValueLayout.JAVA_LONG, 0);
                        if (old == casR[j]) {
                            casR[j]++;
                            break;
                        }
                        casR[j] = old;
                    }
                    while (true) {
                        fetch(w, ep.atomicCswap32(casR32[j], casR32[j] + 1, res, 0, b + CAS32, rk));
                        final int old = res.get(ValueLayout.JAVA_INT, 0);
                        if (old == casR32[j]) {
                            casR32[j]++;
                            break;
                        }
                        casR32[j] = old;
                    }
                }
                // my own CPU atomics on my words, which the others hammer meanwhile
                I64.getAndAdd(mine, ADD, 10L);
                I32.getAndAdd(mine, ADD32, 10);
                final long y = mix(i, 100 + me);
                I64.getAndBitwiseXor(mine, XOR, y);
                I32.getAndBitwiseXor(mine, XOR32, (int) y);
                localXor ^= y;
                final long lbit = 1L << (56 + i % 8);
                final int lbit32 = 1 << (28 + i % 4);
                check(((long) I64.getAndBitwiseOr(mine, BITS, lbit) & lbit) == 0, "local or");
                check(((long) I64.getAndBitwiseAnd(mine, BITS, ~lbit) & lbit) != 0, "local and");
                check(((int) I32.getAndBitwiseOr(mine, BITS32, lbit32) & lbit32) == 0, "local or32");
                check(((int) I32.getAndBitwiseAnd(mine, BITS32, ~lbit32) & lbit32) != 0, "local and32");
                heldL = (long) I64.getAndSet(mine, SWAP, heldL);
                heldL32 = (int) I32.getAndSet(mine, SWAP32, heldL32);
                for (long cur = (long) I64.getVolatile(mine, CAS); ; ) {
                    final long old = (long) I64.compareAndExchange(mine, CAS, cur, cur + 1);
                    if (old == cur) {
                        break;
                    }
                    cur = old;
                }
                for (int cur = (int) I32.getVolatile(mine, CAS32); ; ) {
                    final int old = (int) I32.compareAndExchange(mine, CAS32, cur, cur + 1);
                    if (old == cur) {
                        break;
                    }
                    cur = old;
                }
                w.progress();
            }
            // final bit patterns: each PE leaves 0x55 in its lane, the owner 0x55 in the top lane
            for (int j = 0; j < n; j++) {
                if (j != me) {
                    post(w, eps[j].atomicPost(AtomicOp.OR, 0x55L << (8 * me), rks[j].base() + BITS, rks[j]));
                    post(w, eps[j].atomicPost32(AtomicOp.OR, 0x5 << (4 * me), rks[j].base() + BITS32, rks[j]));
                }
            }
            I64.getAndBitwiseOr(mine, BITS, 0x55L << 56);
            I32.getAndBitwiseOr(mine, BITS32, 0x5 << 28);
            // remote completion of everything to PE j, then tell j (its counter); wait for everyone's word
            for (int j = 0; j < n; j++) {
                if (j != me) {
                    fetch(w, eps[j].flush());
                    post(w, eps[j].atomicPost(AtomicOp.ADD, 1, rks[j].base() + DONE, rks[j]));
                    fetch(w, eps[j].flush());
                }
            }
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while ((long) I64.getVolatile(mine, DONE) != n - 1) {
                idle(w);
                check(System.nanoTime() < deadline, "the others' done counts did not arrive: "
                    + mine.get(ValueLayout.JAVA_LONG, DONE));
            }
            // every operation on my words is in: check them
            final String on = " on PE " + me + " of " + n + " over " + lanes;
            final long others = n - 1;
            eq(3 * iters * others + 10L * iters, mine.get(ValueLayout.JAVA_LONG, ADD), "64-bit add" + on);
            eq(3 * iters * others + 10L * iters, mine.get(ValueLayout.JAVA_INT, ADD32), "32-bit add" + on);
            long xor = localXor;
            for (int s = 0; s < n; s++) {
                for (int i = 0; s != me && i < iters; i++) {
                    xor ^= mix(i, 2 * s) ^ mix(i, 2 * s + 1);
                }
            }
            eq(xor, mine.get(ValueLayout.JAVA_LONG, XOR), "64-bit xor" + on);
            eq((int) xor, mine.get(ValueLayout.JAVA_INT, XOR32), "32-bit xor" + on);
            long bits = 0x55L << 56;
            int bits32 = 0x5 << 28;
            for (int s = 0; s < n; s++) {
                if (s != me) {
                    bits |= 0x55L << (8 * s);
                    bits32 |= 0x5 << (4 * s);
                }
            }
            eq(bits, mine.get(ValueLayout.JAVA_LONG, BITS), "64-bit or/and" + on);
            eq(bits32, mine.get(ValueLayout.JAVA_INT, BITS32), "32-bit or/and" + on);
            eq(iters * others + iters, mine.get(ValueLayout.JAVA_LONG, CAS), "64-bit cswap increments" + on);
            eq(iters * others + iters, mine.get(ValueLayout.JAVA_INT, CAS32), "32-bit cswap increments" + on);
            // swap tokens are conserved: gather every holder's tokens
            final MemorySegment tok = arena.allocate(16L * n + 32);
            for (int j = 0; j < n; j++) {
                tok.set(ValueLayout.JAVA_LONG, 16L * j, heldR[j]);
                tok.set(ValueLayout.JAVA_LONG, 16L * j + 8, heldR32[j]);
            }
            tok.set(ValueLayout.JAVA_LONG, 16L * n, heldL);
            tok.set(ValueLayout.JAVA_LONG, 16L * n + 8, heldL32);
            tok.set(ValueLayout.JAVA_LONG, 16L * n + 16, mine.get(ValueLayout.JAVA_LONG, SWAP));
            tok.set(ValueLayout.JAVA_LONG, 16L * n + 24, mine.get(ValueLayout.JAVA_INT, SWAP32));
            final byte[][] all = rt.allgather(tok.toArray(ValueLayout.JAVA_BYTE));
            for (final boolean wide : new boolean[] {true, false}) {
                final long[] got = new long[n + 1];
                final long[] want = new long[n + 1];
                int k = 0;
                for (int s = 0; s < n; s++) {
                    if (s != me) {
                        got[k] = MemorySegment.ofArray(all[s]).get(ValueLayout.JAVA_LONG_UNALIGNED, 16L * me + (wide ? 0 : 8));
                        want[k++] = 3000 + 10L * s + me;
                    }
                }
                got[k] = tok.get(ValueLayout.JAVA_LONG, 16L * n + (wide ? 0 : 8));
                want[k++] = 2000 + me;
                got[k] = tok.get(ValueLayout.JAVA_LONG, 16L * n + (wide ? 16 : 24));
                want[k] = 1000 + me;
                Arrays.sort(got);
                Arrays.sort(want);
                eq(Arrays.toString(want), Arrays.toString(got), (wide ? "64" : "32") + "-bit swap tokens conserved" + on);
            }
            System.out.println("ok " + me + " " + lanes);
            rt.barrier();
            for (int j = 0; j < n; j++) {
                if (rks[j] != null) {
                    rks[j].close();
                }
            }
        }
    }

    private static void check(final boolean cond, final String what) {
        if (!cond) {
            throw new AssertionError(what);
        }
    }

    private static void eq(final Object want, final Object got, final String what) {
        if (!want.equals(got)) {
            throw new AssertionError(what + ": expected " + want + " but was " + got);
        }
    }

    private static void eq(final long want, final long got, final String what) {
        if (want != got) {
            throw new AssertionError(what + ": expected " + want + " but was " + got);
        }
    }

    private static void post(final Worker w, final Status st) {
        check(st == Status.OK || st == Status.IN_PROGRESS, "atomic post: " + st);
    }

    private static void fetch(final Worker w, final Request r) {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!r.isCompleted()) {
            idle(w);
            check(System.nanoTime() < deadline, "an operation did not complete in 30 s");
        }
        final Status st = r.status();
        r.release();
        check(st == Status.OK, "operation: " + st);
    }

    /** A wait's step: progress, and leave the CPU to the others when there was nothing to do (4 PEs, 2 cores). */
    private static void idle(final Worker w) {
        if (w.progress() == 0) {
            Thread.yield();
        }
    }
}
