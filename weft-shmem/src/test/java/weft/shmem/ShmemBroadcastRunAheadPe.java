package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static weft.shmem.PeChecks.check;

/**
 * A PE of {@link ShmemBackToBackTest#broadcastsIntoOneDestinationWhileAMemberIsLate}: PE 0 broadcasts
 * values in a row into the same destination, with nothing in between, while every other PE
 * sleeps first; once with one long (through the receivers' slots: a member reads exactly value {@code i} after
 * its broadcast {@code i}), once with more than a slot holds (straight into dest: the root runs at most one
 * broadcast ahead of a member, so it reads {@code i} or {@code i + 1}). A root that ran further ahead made the
 * late members count its later signals for their earlier broadcasts (they read the last value at once and
 * then waited for broadcasts that never came). Args: the broadcast radix, and the broadcasts of each size
 * (default 2000). Prints {@code ok run-ahead}.
 */
public final class ShmemBroadcastRunAheadPe {
    private ShmemBroadcastRunAheadPe() {
    }

    public static void main(final String[] args) throws InterruptedException {
        final int count = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        final Shmem shmem = Shmem.init();
        shmem.coll.tuning.bcastRadix = Integer.parseInt(args[0]);
        final int me = shmem.myPe();
        final long large = Collectives.BCAST_SLOT_MAX / 8 + 1; // longs: above the slots, straight into dest
        final MemorySegment dest = shmem.calloc(large, 8);
        final MemorySegment src = Arena.ofAuto().allocate(8 * large, 8);
        for (final long nelems : new long[] {1, large}) {
            shmem.barrierAll();
            if (me != 0) {
                Thread.sleep(300); // the root could finish every broadcast before this PE takes part
            }
            for (int i = 0; i < count; i++) {
                src.set(ValueLayout.JAVA_LONG, 0, i);
                src.set(ValueLayout.JAVA_LONG, 8 * (nelems - 1), i);
                shmem.longBroadcast(Shmem.TEAM_WORLD, dest, src, nelems, 0);
                final long v = dest.get(ValueLayout.JAVA_LONG, 0);
                // through the slots the root never writes dest; straight into dest it may have put the next one
                check(v == i || nelems > 1 && me != 0 && v == i + 1, "PE " + me + " broadcast " + i + " of " + nelems
                    + " longs read " + v);
            }
        }
        shmem.barrierAll();
        src.set(ValueLayout.JAVA_LONG, 0, -7);
        shmem.longBroadcast(Shmem.TEAM_WORLD, dest, src, 1, 0);
        check(dest.get(ValueLayout.JAVA_LONG, 0) == -7, "PE " + me + ": the broadcast after a barrier");
        System.out.println("ok run-ahead");
        shmem.close();
    }
}
