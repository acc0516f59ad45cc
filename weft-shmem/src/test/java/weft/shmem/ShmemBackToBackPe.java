package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.shmem.PeChecks.check;

/**
 * A PE of {@link ShmemBackToBackTest}: broadcasts (runs of them on the world, a new root each call), fcollects
 * and sum reductions back to back on the world, a reversed team and (3 PEs or more) the team of PEs 1..n-1,
 * with no synchronization between the calls, while a PE sleeps now and then before a broadcast in which it
 * forwards, so that the others run ahead into the next broadcasts (other roots, other trees).
 * Every call writes a destination of its own (the caller's precondition of a collective: the destination is
 * ready on every member before any enters) and each PE checks it right after the call returns. Three passes:
 * the configured algorithms, radix 2 with the ring fcollect, radix 3. Args: the iterations of a pass
 * (default 200). Prints {@code ok back-to-back}.
 */
public final class ShmemBackToBackPe {
    private static final int WIDTH = 8;
    /** Broadcasts in a row on the world, each from the next root, before anything that synchronizes the PEs. */
    private static final int RUN = 4;
    private static final int CALLS = RUN + 5;

    private ShmemBackToBackPe() {
    }

    public static void main(final String[] args) throws InterruptedException {
        final int iters = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        final Shmem shmem = Shmem.init();
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final ShmemTeam reversed = shmem.teamSplitStrided(Shmem.TEAM_WORLD, n - 1, -1, n, null, 0);
        final ShmemTeam rest = n >= 3 ? shmem.teamSplitStrided(Shmem.TEAM_WORLD, 1, 1, n - 1, null, 0) : Shmem.TEAM_INVALID;
        final long region = 8L * WIDTH * n;
        final MemorySegment d = shmem.calloc((long) iters * CALLS * WIDTH * n, 8);
        final MemorySegment src = Arena.ofAuto().allocate(8L * WIDTH, 8);
        final Collectives.Tuning tuning = shmem.coll.tuning;
        final int radix = tuning.bcastRadix;
        final long ring = tuning.collectRingBytes;
        for (int pass = 0; pass < 3; pass++) {
            tuning.bcastRadix = pass == 0 ? radix : pass + 1;
            tuning.collectRingBytes = pass == 1 ? 0 : ring;
            d.fill((byte) 0);
            shmem.barrierAll(); // the destinations are ready everywhere before the first call of the pass
            for (int i = 0; i < iters; i++) {
                MemorySegment at = d.asSlice((long) i * CALLS * region, CALLS * region);
                final String what = "pass " + pass + " iteration " + i;
                for (int b = 0; b < RUN; b++) {
                    if (me == (i + b) % n && i % 3 == b % 3) {
                        Thread.sleep(1); // a forwarder of some trees falls behind while the others go on
                    }
                    broadcast(shmem, Shmem.TEAM_WORLD, at.asSlice(b * region, region), (i * 3 + b * 5 + 1) % n, i,
                        what + " world broadcast " + b);
                }
                at = at.asSlice(RUN * region);
                broadcast(shmem, reversed, at.asSlice(0, region), (i * 7 + 1) % n, i, what + " reversed broadcast");
                fcollect(shmem, Shmem.TEAM_WORLD, at.asSlice(region, region), src, i, what + " world fcollect");
                for (int e = 0; e < WIDTH; e++) {
                    src.setAtIndex(ValueLayout.JAVA_LONG, e, (long) i * e + me);
                }
                final MemorySegment sum = at.asSlice(2 * region, region);
                shmem.longSumReduce(Shmem.TEAM_WORLD, sum, src, WIDTH);
                for (int e = 0; e < WIDTH; e++) {
                    check(sum.getAtIndex(ValueLayout.JAVA_LONG, e) == (long) n * i * e + (long) n * (n - 1) / 2,
                        what + " world sum element " + e);
                }
                if (rest != Shmem.TEAM_INVALID) {
                    broadcast(shmem, rest, at.asSlice(3 * region, region), (i * 5) % (n - 1), i, what + " rest broadcast");
                    fcollect(shmem, rest, at.asSlice(4 * region, region), src, i, what + " rest fcollect");
                }
            }
        }
        tuning.bcastRadix = radix;
        tuning.collectRingBytes = ring;
        shmem.barrierAll();
        shmem.teamDestroy(reversed);
        shmem.teamDestroy(rest);
        System.out.println("ok back-to-back");
        shmem.close();
    }

    private static long value(final int i, final int member, final int e) {
        return i * 1_000_000L + member * 1000L + e + 1;
    }

    /** Root {@code root} of {@code team} broadcasts WIDTH values of iteration {@code i} into {@code dest}; all check them. */
    private static void broadcast(final Shmem shmem, final ShmemTeam team, final MemorySegment dest, final int root,
                                  final int i, final String what) {
        final long[] v = new long[WIDTH];
        for (int e = 0; e < WIDTH; e++) {
            v[e] = value(i, root, e);
        }
        shmem.longBroadcast(team, dest, MemorySegment.ofArray(v), WIDTH, root);
        for (int e = 0; e < WIDTH; e++) {
            check(dest.getAtIndex(ValueLayout.JAVA_LONG, e) == value(i, root, e), what + " from " + root + " element " + e);
        }
    }

    /** Each member of {@code team} contributes WIDTH values of iteration {@code i}; every member checks all blocks. */
    private static void fcollect(final Shmem shmem, final ShmemTeam team, final MemorySegment dest,
                                 final MemorySegment src, final int i, final String what) {
        final int tme = shmem.teamMyPe(team);
        for (int e = 0; e < WIDTH; e++) {
            src.setAtIndex(ValueLayout.JAVA_LONG, e, value(i, tme, e));
        }
        shmem.longFcollect(team, dest, src, WIDTH);
        for (int p = 0; p < shmem.teamNPes(team); p++) {
            for (int e = 0; e < WIDTH; e++) {
                check(dest.getAtIndex(ValueLayout.JAVA_LONG, (long) p * WIDTH + e) == value(i, p, e),
                    what + " block " + p + " element " + e);
            }
        }
    }
}
