package weft.shmem;

/**
 * Team bookkeeping: the predefined teams, the slots of the service area this PE's teams use, and team
 * creation. A new team's slot is agreed over its parent team: every parent member contributes its mask of
 * free slots to a bitwise-AND reduction and the lowest slot free everywhere is taken (teams with no PE in
 * common may hold the same slot index). Members zero the slot's counters, then the parent synchronizes, so
 * nobody signals into the slot before every member reset it.
 */
final class Teams {
    private final Collectives coll;
    private final int worldSize;
    private final int worldMe;
    private final ShmemTeam world;
    private final ShmemTeam shared;
    /** Bit i set = slot i is free on this PE. */
    private long freeSlots = -1L;

    Teams(final Collectives coll, final int worldSize, final int worldMe, final int[] nodeOfPe) {
        this.coll = coll;
        this.worldSize = worldSize;
        this.worldMe = worldMe;
        final int[] all = new int[worldSize];
        int local = 0;
        for (int i = 0; i < worldSize; i++) {
            all[i] = i;
            local += nodeOfPe[i] == nodeOfPe[worldMe] ? 1 : 0;
        }
        final int[] node = new int[local];
        for (int i = 0, j = 0; i < worldSize; i++) {
            if (nodeOfPe[i] == nodeOfPe[worldMe]) {
                node[j++] = i;
            }
        }
        this.world = take(new ShmemTeam("world", all, worldSize, worldMe, 0, ShmemTeamConfig.DEFAULT));
        this.shared = take(new ShmemTeam("shared", node, worldSize, worldMe, 1, ShmemTeamConfig.DEFAULT));
    }

    private ShmemTeam take(final ShmemTeam t) {
        freeSlots &= ~(1L << t.slot);
        coll.resetSlot(t);
        return t;
    }

    ShmemTeam world() {
        return world;
    }

    /**
     * The live team {@code team} names.
     *
     * @throws IllegalArgumentException for {@link Shmem#TEAM_INVALID}, null, or a destroyed team
     */
    ShmemTeam resolve(final ShmemTeam team) {
        if (team == Shmem.TEAM_WORLD) {
            return world;
        }
        if (team == Shmem.TEAM_SHARED) {
            return shared;
        }
        if (team == null || team == Shmem.TEAM_INVALID || team.isHandle()) {
            throw new IllegalArgumentException("not a valid team: " + team);
        }
        if (team.destroyed) {
            throw new IllegalArgumentException("the team was destroyed: " + team);
        }
        return team;
    }

    /**
     * Creates the team of {@code parent}'s members {@code members} (parent indices in new-team order; null
     * when this PE is not in it). Collective over {@code parent}; members of different new teams may pass
     * different lists as long as the teams are disjoint.
     *
     * @return the new team, or {@link Shmem#TEAM_INVALID} for a PE outside it
     * @throws IllegalStateException when no slot is free on every parent member (too many live teams)
     */
    ShmemTeam create(final ShmemTeam parent, final int[] members, final ShmemTeamConfig config, final String name) {
        final long common = coll.allAnd(parent, freeSlots);
        if (common == 0) {
            throw new IllegalStateException("no team slot is free on every PE of " + parent + " (at most "
                + Collectives.MAX_TEAMS + " live teams per PE, world and shared included): destroy teams first");
        }
        ShmemTeam t = Shmem.TEAM_INVALID;
        if (members != null) {
            final int[] pes = new int[members.length];
            for (int i = 0; i < members.length; i++) {
                pes[i] = parent.pes[members[i]];
            }
            t = take(new ShmemTeam(name, pes, worldSize, worldMe, Long.numberOfTrailingZeros(common), config));
        }
        coll.barrier(parent);
        return t;
    }

    /** Releases the team's slot (after the members synchronized). */
    void destroy(final ShmemTeam t) {
        if (t == world || t == shared) {
            throw new IllegalArgumentException("the predefined teams cannot be destroyed: " + t);
        }
        t.destroyed = true;
        freeSlots |= 1L << t.slot;
    }

    int liveTeams() {
        return Long.bitCount(~freeSlots);
    }
}
