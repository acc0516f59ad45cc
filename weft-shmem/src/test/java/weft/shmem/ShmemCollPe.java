package weft.shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.shmem.PeChecks.check;
import static weft.shmem.PeChecks.expect;

/**
 * Collectives and teams ({@link ShmemConformanceTest}): broadcast from every root, fcollect, collect of
 * unequal blocks, alltoall, reductions of every operator over several types (sizes past the scratch area,
 * in place), inclusive and exclusive scans, on the world, a strided team, a negative-stride team, a 3-PE
 * team (not a power of two), 2-D split teams and a 1-PE team; team queries and translation; destroying and
 * re-creating more teams than there are slots. The world and the 3-PE team run everything twice: with the
 * configured thresholds and with the other algorithms forced (binomial broadcast, ring collects, ring
 * reductions from the first byte), so each algorithm meets power-of-two and other team sizes.
 */
final class ShmemCollPe {
    private ShmemCollPe() {
    }

    static void run(final Shmem shmem) {
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        check(shmem.teamNPes(Shmem.TEAM_WORLD) == n && shmem.teamMyPe(Shmem.TEAM_WORLD) == me, "world team");
        check(shmem.teamNPes(Shmem.TEAM_SHARED) == n, "one node: the shared team is the world");
        final MemorySegment d = shmem.malloc(8L * 20_000);
        final MemorySegment s = shmem.malloc(8L * 20_000);
        onTeam(shmem, Shmem.TEAM_WORLD, "world", d, s);
        final Collectives.Tuning tuning = shmem.coll.tuning;
        final int radix = tuning.bcastRadix;
        final long collectRing = tuning.collectRingBytes;
        final long reduceRing = tuning.reduceRingBytes;
        tuning.bcastRadix = 2;
        tuning.collectRingBytes = 0;
        tuning.reduceRingBytes = 0;
        onTeam(shmem, Shmem.TEAM_WORLD, "world (other algorithms)", d, s);
        if (n >= 4) {
            final ShmemTeam three = shmem.teamSplitStrided(Shmem.TEAM_WORLD, 1, 1, 3, null, 0);
            if (three != Shmem.TEAM_INVALID) {
                onTeam(shmem, three, "three (other algorithms)", d, s);
                tuning.bcastRadix = radix;
                tuning.collectRingBytes = collectRing;
                tuning.reduceRingBytes = reduceRing;
                onTeam(shmem, three, "three", d, s);
                shmem.teamDestroy(three);
            } else {
                shmem.teamDestroy(three);
            }
            shmem.syncAll();
        }
        tuning.bcastRadix = radix;
        tuning.collectRingBytes = collectRing;
        tuning.reduceRingBytes = reduceRing;
        final ShmemTeam even = shmem.teamSplitStrided(Shmem.TEAM_WORLD, 0, 2, (n + 1) / 2, null, 0);
        check((even == Shmem.TEAM_INVALID) == (me % 2 == 1), "odd PEs are outside the even team");
        if (even != Shmem.TEAM_INVALID) {
            check(shmem.teamMyPe(even) == me / 2 && shmem.teamNPes(even) == (n + 1) / 2, "even team numbering");
            check(shmem.teamTranslatePe(even, 1, Shmem.TEAM_WORLD) == (n > 2 ? 2 : -1), "translate even 1 → world");
            onTeam(shmem, even, "even", d, s);
        }
        check(shmem.teamTranslatePe(Shmem.TEAM_WORLD, 1, even) == -1 || me % 2 == 0, "world 1 is not in the even team");
        final ShmemTeam reversed = shmem.teamSplitStrided(Shmem.TEAM_WORLD, n - 1, -1, n, null, 0);
        check(shmem.teamMyPe(reversed) == n - 1 - me, "negative stride numbers the PEs backwards");
        onTeam(shmem, reversed, "reversed", d, s);
        final ShmemTeam[] grid = shmem.teamSplit2d(Shmem.TEAM_WORLD, 2, null, 0, null, 0);
        check(shmem.teamNPes(grid[0]) == Math.min(2, n - (me / 2) * 2), "x team size");
        check(shmem.teamMyPe(grid[1]) == me / 2, "y team numbering");
        onTeam(shmem, grid[0], "x", d, s);
        onTeam(shmem, grid[1], "y", d, s);
        final ShmemTeam single = shmem.teamSplitStrided(Shmem.TEAM_WORLD, 0, 1, 1,
            new ShmemTeamConfig(2), ShmemTeamConfig.NUM_CONTEXTS);
        if (me == 0) {
            check(shmem.teamNPes(single) == 1 && shmem.teamGetConfig(single, ShmemTeamConfig.NUM_CONTEXTS)
                .numContexts() == 2, "1-PE team and its config");
            onTeam(shmem, single, "single", d, s);
        }
        for (final ShmemTeam t : new ShmemTeam[] {even, reversed, grid[0], grid[1], single}) {
            shmem.teamDestroy(t);
        }
        expect(IllegalArgumentException.class, "destroyed", () -> shmem.teamSync(reversed));
        // more creations than slots: destroyed teams give their slots back
        for (int i = 0; i < 70; i++) {
            final ShmemTeam t = shmem.teamSplitStrided(Shmem.TEAM_WORLD, 0, 1, n, null, 0);
            shmem.teamSync(t);
            shmem.teamDestroy(t);
        }
        expect(IllegalArgumentException.class, "predefined", () -> shmem.teamDestroy(Shmem.TEAM_WORLD));
        expect(IllegalArgumentException.class, "does not select", () -> shmem.teamSplitStrided(Shmem.TEAM_WORLD, 0, 1,
            n + 1, null, 0));
        shmem.syncAll();
        shmem.free(s);
        shmem.free(d);
    }

    /** Every collective on {@code team}; {@code d} and {@code s} are symmetric scratch (20000 longs each). */
    private static void onTeam(final Shmem shmem, final ShmemTeam team, final String name, final MemorySegment d,
                               final MemorySegment s) {
        final int tn = shmem.teamNPes(team);
        final int tme = shmem.teamMyPe(team);
        for (int root = 0; root < tn; root++) {
            final long[] v = new long[1000];
            for (int i = 0; i < v.length; i++) {
                v[i] = root * 1_000_000L + i;
            }
            d.fill((byte) 0);
            shmem.teamSync(team);
            shmem.longBroadcast(team, d, MemorySegment.ofArray(v), v.length, root);
            for (int i = 0; i < v.length; i++) {
                check(d.getAtIndex(ValueLayout.JAVA_LONG, i) == root * 1_000_000L + i, name + " broadcast from " + root);
            }
        }
        // fcollect and collect, small and past the scratch area; fcollect has no entry barrier, so d must be ready
        // on every member (done checking the broadcast) before any enters it
        shmem.teamSync(team);
        final int[] mine = {tme, tme * 10, tme * 100};
        shmem.intFcollect(team, d, MemorySegment.ofArray(mine), 3);
        for (int p = 0; p < tn; p++) {
            check(d.getAtIndex(ValueLayout.JAVA_INT, 3L * p + 2) == p * 100, name + " fcollect block " + p);
        }
        shmem.teamSync(team); // the same for the next fcollect into d
        final int big = 20_000 / tn;
        for (int i = 0; i < big; i++) {
            s.setAtIndex(ValueLayout.JAVA_LONG, i, tme * 1_000_000L + i);
        }
        shmem.longFcollect(team, d, s, big);
        for (int p = 0; p < tn; p++) {
            for (int i = 0; i < big; i += 97) {
                check(d.getAtIndex(ValueLayout.JAVA_LONG, (long) p * big + i) == p * 1_000_000L + i,
                    name + " large fcollect block " + p + " element " + i);
            }
        }
        final long[] var = new long[tme + 1];
        java.util.Arrays.fill(var, tme);
        shmem.longCollect(team, d, MemorySegment.ofArray(var), var.length);
        long at = 0;
        for (int p = 0; p < tn; p++) {
            for (int k = 0; k <= p; k++) {
                check(d.getAtIndex(ValueLayout.JAVA_LONG, at++) == p, name + " collect block " + p);
            }
        }
        // alltoall
        final long[] out = new long[2 * tn];
        for (int p = 0; p < tn; p++) {
            out[2 * p] = tme * 100L + p;
            out[2 * p + 1] = -1;
        }
        shmem.longAlltoall(team, d, MemorySegment.ofArray(out), 2);
        for (int p = 0; p < tn; p++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, 2L * p) == p * 100L + tme, name + " alltoall from " + p);
        }
        // strided alltoall: 2 elements, source stride 3, destination stride 2
        final long[] st = new long[6 * tn];
        for (int p = 0; p < tn; p++) {
            st[6 * p] = tme * 100L + p;
            st[6 * p + 3] = -(tme * 100L + p);
        }
        d.fill((byte) 0);
        shmem.longAlltoalls(team, d, MemorySegment.ofArray(st), 2, 3, 2);
        for (int p = 0; p < tn; p++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, 4L * p) == p * 100L + tme
                && d.getAtIndex(ValueLayout.JAVA_LONG, 4L * p + 2) == -(p * 100L + tme)
                && d.getAtIndex(ValueLayout.JAVA_LONG, 4L * p + 1) == 0, name + " alltoalls from " + p);
        }
        // reductions: 20000 longs is past the scratch area (several chunks)
        final int count = "tcp".equals(System.getenv("WEFT_TLS")) ? 6_000 : 20_000; // both several scratch chunks
        for (int i = 0; i < count; i++) {
            s.setAtIndex(ValueLayout.JAVA_LONG, i, (long) (tme + 1) * (i % 7 + 1));
        }
        shmem.longSumReduce(team, d, s, count);
        final long tri = (long) tn * (tn + 1) / 2;
        for (int i = 0; i < count; i++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, i) == tri * (i % 7 + 1), name + " long sum " + i);
        }
        shmem.longMaxReduce(team, s, s, count); // in place
        check(s.getAtIndex(ValueLayout.JAVA_LONG, 5) == (long) tn * 6, name + " long max in place");
        final int[] iv = {tme + 1, 1 << tme, ~(1 << tme), tme % 2};
        shmem.intProdReduce(team, d, MemorySegment.ofArray(iv), 1);
        long fact = 1;
        for (int p = 1; p <= tn; p++) {
            fact *= p;
        }
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == (int) fact, name + " int prod");
        shmem.int32OrReduce(team, d, MemorySegment.ofArray(iv).asSlice(4), 1);
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == (1 << tn) - 1, name + " int32 or");
        shmem.int32AndReduce(team, d, MemorySegment.ofArray(iv).asSlice(8), 1);
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == ~((1 << tn) - 1), name + " int32 and");
        shmem.int32XorReduce(team, d, MemorySegment.ofArray(iv).asSlice(12), 1);
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == (tn / 2) % 2, name + " int32 xor");
        shmem.intMinReduce(team, d, MemorySegment.ofArray(iv), 1);
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == 1, name + " int min");
        final double[] dv = {tme + 0.5, -tme};
        shmem.doubleSumReduce(team, d, MemorySegment.ofArray(dv), 2);
        check(d.getAtIndex(ValueLayout.JAVA_DOUBLE, 0) == tri - tn * 0.5 && d.getAtIndex(ValueLayout.JAVA_DOUBLE, 1)
            == -(tri - tn), name + " double sum");
        shmem.doubleMinReduce(team, d, MemorySegment.ofArray(dv), 2);
        check(d.getAtIndex(ValueLayout.JAVA_DOUBLE, 1) == -(tn - 1), name + " double min");
        final int[] uv = {tme == 0 ? -1 : tme};
        shmem.uintMaxReduce(team, d, MemorySegment.ofArray(uv), 1);
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == -1, name + " uint max compares unsigned");
        shmem.intMaxReduce(team, d, MemorySegment.ofArray(uv), 1);
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == (tn == 1 ? -1 : tn - 1), name + " int max compares signed");
        final short[] sv = {(short) (tme + 1)};
        shmem.shortSumReduce(team, d, MemorySegment.ofArray(sv), 1);
        check(d.getAtIndex(ValueLayout.JAVA_SHORT, 0) == (short) tri, name + " short sum");
        final byte[] bv = {(byte) (1 << tme)};
        shmem.ucharOrReduce(team, d, MemorySegment.ofArray(bv), 1);
        check(d.get(ValueLayout.JAVA_BYTE, 0) == (byte) ((1 << tn) - 1), name + " uchar or");
        shmem.longSumReduce(team, d, s, 0); // zero-size
        scans(shmem, team, name, d, s, count);
        shmem.teamSync(team);
    }

    /** Inclusive and exclusive sum scans: long (several chunks, in place too), double, int and uchar. */
    private static void scans(final Shmem shmem, final ShmemTeam team, final String name, final MemorySegment d,
                              final MemorySegment s, final int count) {
        final int tme = shmem.teamMyPe(team);
        final long before = (long) tme * (tme + 1) / 2; // sum of (p + 1) over p < tme
        final long upTo = before + tme + 1;
        for (int i = 0; i < count; i++) {
            s.setAtIndex(ValueLayout.JAVA_LONG, i, (long) (tme + 1) * (i % 5 + 1));
        }
        shmem.longSumInscan(team, d, s, count);
        for (int i = 0; i < count; i++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, i) == upTo * (i % 5 + 1), name + " long inscan " + i);
        }
        d.fill((byte) 1);
        shmem.longSumExscan(team, d, s, count);
        for (int i = 0; i < count; i++) {
            check(d.getAtIndex(ValueLayout.JAVA_LONG, i) == before * (i % 5 + 1), name + " long exscan " + i
                + " (zeros on member 0)");
        }
        shmem.longSumExscan(team, s, s, count); // in place
        check(s.getAtIndex(ValueLayout.JAVA_LONG, count - 1) == before * ((count - 1) % 5 + 1), name + " exscan in place");
        final double[] dv = {tme + 0.25};
        shmem.doubleSumInscan(team, d, MemorySegment.ofArray(dv), 1);
        check(d.getAtIndex(ValueLayout.JAVA_DOUBLE, 0) == upTo - 0.75 * (tme + 1), name + " double inscan");
        final int[] iv = {-(tme + 1)};
        shmem.intSumExscan(team, d, MemorySegment.ofArray(iv), 1);
        check(d.getAtIndex(ValueLayout.JAVA_INT, 0) == (int) -before, name + " int exscan");
        final byte[] bv = {(byte) 100};
        shmem.ucharSumInscan(team, d, MemorySegment.ofArray(bv), 1);
        check(d.get(ValueLayout.JAVA_BYTE, 0) == (byte) (100 * (tme + 1)), name + " uchar inscan wraps");
        shmem.intSumInscan(team, d, MemorySegment.ofArray(iv), 0); // zero-size
    }
}
