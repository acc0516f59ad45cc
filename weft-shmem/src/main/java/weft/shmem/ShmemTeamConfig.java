package weft.shmem;

/**
 * A team's configuration ({@code shmem_team_config_t}): the number of contexts the program means to create
 * on it. Given to {@code teamSplitStrided} with a mask saying which fields count.
 *
 * @param numContexts contexts the team will need (a hint)
 */
public record ShmemTeamConfig(int numContexts) {
    /** The mask bit of {@link #numContexts} ({@code SHMEM_TEAM_NUM_CONTEXTS}). */
    public static final long NUM_CONTEXTS = 1;
    /** The configuration of a team made without one. */
    public static final ShmemTeamConfig DEFAULT = new ShmemTeamConfig(0);

    public ShmemTeamConfig {
        if (numContexts < 0) {
            throw new IllegalArgumentException("numContexts must be >= 0, got " + numContexts);
        }
    }

    /** The fields of {@code config} that {@code mask} selects, defaults elsewhere. */
    static ShmemTeamConfig masked(final ShmemTeamConfig config, final long mask) {
        return config == null || (mask & NUM_CONTEXTS) == 0 ? DEFAULT : config;
    }
}
