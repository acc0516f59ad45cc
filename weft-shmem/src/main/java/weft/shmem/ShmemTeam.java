package weft.shmem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * An OpenSHMEM team: an ordered set of PEs with its own numbering ({@code teamMyPe}, {@code teamNPes}) and
 * its own synchronization area in the symmetric heap (a slot of the service area; teams that share no PE
 * may share a slot index). The predefined handles {@link Shmem#TEAM_WORLD}, {@link Shmem#TEAM_SHARED} and
 * {@link Shmem#TEAM_INVALID} name the current instance's teams; other teams come from
 * {@code teamSplitStrided} and {@code teamSplit2d} and end with {@code teamDestroy}.
 */
public final class ShmemTeam {
    private final String name;
    /** World PE numbers in team order; null for a predefined handle. */
    final int[] pes;
    /** This PE's index in {@link #pes}. */
    final int me;
    /** Index of the team's slot in the service area. */
    final int slot;
    final ShmemTeamConfig config;
    /** world PE → team index, -1 outside. */
    private final int[] index;
    boolean destroyed;
    // collective epochs: each counter in the slot only grows, a wait is "counter >= expected"
    long barrierEpoch;
    long dataExpected;
    long sizesExpected;
    long reduceExpected;
    long agreeEpoch;
    /** Signals expected so far on each per-round counter (only the rounds in which this PE receives count). */
    final long[] rounds = new long[Collectives.ROUND_COUNTERS];
    /** Broadcast signals expected so far from the parent at each distance (see Collectives.broadcast). */
    final long[] bcastFrom = new long[Collectives.BCAST_COUNTERS];
    /** Broadcasts sent so far to the child at each distance (each acknowledges its receipt: Collectives.broadcast). */
    final long[] bcastSent = new long[Collectives.BCAST_COUNTERS];
    /** Small (slotted) broadcasts of this team so far: the same count on every member. */
    long bcastSeq;
    /** Per member: the small broadcasts it has passed (taken out of its slots), as this PE last read it (credits). */
    final long[] bcastTaken;
    /** Small broadcasts this PE has received in each of its slots. */
    final long[] bcastSlotUses = new long[Collectives.BCAST_SLOT_COUNT];
    /** Signals expected so far on each Bruck round counter of fcollect and collect. */
    final long[] bruck = new long[Collectives.ROUND_COUNTERS];
    long ringExpected;
    /** Recursive-doubling chunks reduced so far: their parity picks the scratch regions. */
    long doublingChunks;
    private long[] offsets;
    private MemorySegment work;

    private ShmemTeam(final String name) {
        this.name = name;
        this.pes = null;
        this.me = -1;
        this.slot = -1;
        this.config = null;
        this.index = null;
        this.bcastTaken = null;
    }

    ShmemTeam(final String name, final int[] pes, final int worldSize, final int worldMe, final int slot,
              final ShmemTeamConfig config) {
        this.name = name;
        this.pes = pes;
        this.slot = slot;
        this.config = config;
        this.index = new int[worldSize];
        Arrays.fill(index, -1);
        for (int i = 0; i < pes.length; i++) {
            index[pes[i]] = i;
        }
        this.me = index[worldMe];
        this.bcastTaken = new long[pes.length];
    }

    /** Block offsets of a collective (n + 1 entries), reused: collectives on one team never overlap. */
    long[] offsets() {
        if (offsets == null) {
            offsets = new long[pes.length + 1];
        }
        return offsets;
    }

    /** Local working memory of at least {@code bytes} (a reduction chunk), reused between collectives. */
    MemorySegment work(final long bytes) {
        if (work == null || work.byteSize() < bytes) {
            work = Arena.ofAuto().allocate(Math.max(bytes, 64), 8);
        }
        return work;
    }

    static ShmemTeam handle(final String name) {
        return new ShmemTeam(name);
    }

    boolean isHandle() {
        return pes == null;
    }

    int size() {
        return pes.length;
    }

    /** The team index of world PE {@code worldPe}, or -1. */
    int indexOf(final int worldPe) {
        return worldPe >= 0 && worldPe < index.length ? index[worldPe] : -1;
    }

    /** The world PE of team index {@code i}. */
    int worldPe(final int i) {
        if (i < 0 || i >= pes.length) {
            throw new IllegalArgumentException("PE " + i + " is out of range [0, " + pes.length + ") of team " + name);
        }
        return pes[i];
    }

    @Override
    public String toString() {
        return pes == null ? "ShmemTeam[" + name + "]" : "ShmemTeam[" + name + ", " + pes.length + " PEs, slot " + slot
            + (destroyed ? ", destroyed" : "") + "]";
    }
}
