package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.shmem.PeChecks.check;
import static weft.shmem.PeChecks.pattern;
import static weft.shmem.PeChecks.verify;

/**
 * A PE of {@link ShmemLocalCompletionTest}: collectives end with local completion only (no round trip), so
 * (1) a member may overwrite what its puts read (the root's source and destination of a broadcast, its
 * forwarded destination, a reduction's source) as soon as the call returns, and the others still get the
 * values of the call; (2) a team destroyed right after its collectives leaves no signal on its way into the
 * slot the next team reuses. Sizes from 8 bytes to 1 MiB (tcp's zero-copy puts read the source late).
 * Prints {@code ok local-completion}.
 */
public final class ShmemLocalCompletionPe {
    private static final long[] SIZES = {8, 4096, 256 << 10, 1 << 20};
    private static final int ITERS = 6;

    private ShmemLocalCompletionPe() {
    }

    public static void main(final String[] args) {
        final Shmem shmem = Shmem.init();
        final int me = shmem.myPe();
        final int n = shmem.nPes();
        final long max = SIZES[SIZES.length - 1];
        final MemorySegment dest = shmem.malloc(max);
        final MemorySegment src = Arena.ofAuto().allocate(max, 8);
        final MemorySegment sum = shmem.malloc(max);
        shmem.barrierAll();
        for (final long size : SIZES) {
            for (int i = 0; i < ITERS; i++) {
                final int root = i % n;
                final int seed = (int) (size * 31 + i);
                final String what = size + " bytes, iteration " + i;
                if (me == root) {
                    pattern(src, size, seed);
                }
                shmem.broadcastmem(Shmem.TEAM_WORLD, dest, src, size, root);
                verify(dest, size, seed, "broadcast of " + what + " from " + root);
                dest.asSlice(0, size).fill((byte) 0x5a); // what a pending put still reading it would send
                src.asSlice(0, size).fill((byte) 0x5a);
                shmem.barrierAll(); // every destination is ready again before the next call

                final long count = size / 8;
                for (long e = 0; e < count; e++) {
                    src.setAtIndex(ValueLayout.JAVA_LONG, e, e * (i + 1) + me);
                }
                shmem.longSumReduce(Shmem.TEAM_WORLD, sum, src, count);
                src.asSlice(0, size).fill((byte) 0x5a);
                for (long e = 0; e < count; e++) {
                    check(sum.getAtIndex(ValueLayout.JAVA_LONG, e) == n * e * (i + 1) + (long) n * (n - 1) / 2,
                        "sum of " + what + " element " + e);
                }
                shmem.barrierAll();
            }
        }
        // teams created and destroyed right after their collectives, their slots reused by the next ones
        final MemorySegment small = Arena.ofAuto().allocate(64, 8);
        for (int i = 0; i < 40; i++) {
            final ShmemTeam t = shmem.teamSplitStrided(Shmem.TEAM_WORLD, 0, 1, n, null, 0);
            check(t != Shmem.TEAM_INVALID, "team " + i + " created");
            for (int k = 0; k < 3; k++) {
                small.set(ValueLayout.JAVA_LONG, 0, i * 10L + k + me);
                shmem.longSumReduce(t, sum, small, 1);
                check(sum.get(ValueLayout.JAVA_LONG, 0) == n * (i * 10L + k) + (long) n * (n - 1) / 2,
                    "team " + i + " reduction " + k);
                shmem.longFcollect(t, dest, small, 1);
                for (int p = 0; p < n; p++) {
                    check(dest.getAtIndex(ValueLayout.JAVA_LONG, p) == i * 10L + k + p, "team " + i + " fcollect " + k);
                }
                shmem.teamSync(t); // dest and sum are reused by the next call
            }
            shmem.teamDestroy(t);
        }
        shmem.barrierAll();
        System.out.println("ok local-completion");
        shmem.close();
    }
}
