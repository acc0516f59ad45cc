package weft.mpi;

import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;

import java.util.List;

/**
 * The MPI layer's tunables: where its collectives switch from the latency-bound algorithm to the
 * bandwidth-bound one, and how waits poll (read at {@code MPI.Init}; printed by {@code weft info -c}).
 */
public final class MpiConfig {
    /** Broadcasts of at least this many bytes (on enough ranks) scatter, then allgather. */
    public static final ConfigVar<Long> BCAST_LARGE = ConfigRegistry.register("MPI_BCAST_LARGE", ConfigType.SIZE,
        "512k", "MPI broadcasts of at least this many bytes go scatter + ring allgather (each rank sends about the "
            + "message once) instead of a binomial tree (the root's subtree roots each send it whole).");
    /** The smallest communicator on which a large broadcast scatters. */
    public static final ConfigVar<Integer> BCAST_LARGE_MIN_RANKS = ConfigRegistry.register("MPI_BCAST_LARGE_RANKS",
        ConfigType.INT, "4", "Smallest communicator on which large MPI broadcasts use scatter + allgather.");
    /** Allreduces of at least this many bytes with a commutative operation use the ring. */
    public static final ConfigVar<Long> ALLREDUCE_LARGE = ConfigRegistry.register("MPI_ALLREDUCE_LARGE",
        ConfigType.SIZE, "64k", "MPI allreduces of at least this many bytes with a commutative operation go as a "
            + "ring (reduce-scatter then allgather: each rank sends about twice the message) instead of recursive "
            + "doubling (log2(ranks) whole messages).");

    /** Whether an MPI wait that finds nothing to do lets other threads run. */
    public static final ConfigVar<String> YIELD_WHEN_IDLE = ConfigRegistry.register("MPI_YIELD_WHEN_IDLE",
        ConfigType.oneOf("auto", "y", "n"), "auto", "Whether a waiting MPI call that keeps finding nothing to do "
            + "yields its CPU (Thread.yield) between polls after 2000 idle polls: auto = only when this node runs more "
            + "ranks than the process has CPUs (the peer may need this CPU to answer), and then after 16; n = always "
            + "poll (Open MPI's default, mpi_yield_when_idle=0: on a busy machine a yield can lose the CPU for a "
            + "whole time slice).");

    /** For how long after MPI.Init a wait that keeps finding nothing to do yields, whatever YIELD_WHEN_IDLE says. */
    public static final ConfigVar<Long> WARMUP_YIELD = ConfigRegistry.register("MPI_WARMUP_YIELD",
        ConfigType.TIME, "2s", "For how long after MPI.Init a waiting MPI call that keeps finding nothing to do "
            + "(2000 polls) yields its CPU whatever MPI_YIELD_WHEN_IDLE says: while the JIT compiles the message "
            + "path its compiler threads share a bound rank's CPU, and then run while the rank waits for a slow peer "
            + "rather than while it has a message to answer (and on a machine busy with other work, they run "
            + "then too). 0 = never.");

    /** Which ucp path carries point-to-point messages (and so the collectives built on them). */
    public static final ConfigVar<String> TRANSPORT = ConfigRegistry.register("MPI_TRANSPORT",
        ConfigType.oneOf("tag", "am"), "tag", "What carries MPI's messages: tag = ucp tag matching (the 64-bit tag "
            + "holds context, source and tag; the matching is ucp's); am = ucp active messages only, matched by the "
            + "MPI layer's own posted and unexpected queues (eager data in the message, copied to a bounce buffer when "
            + "it arrives first; rendezvous data pulled into the receive buffer once matched). One-sided windows use "
            + "ucp RMA either way.");

    private MpiConfig() {
    }

    /** Every variable of the MPI layer. */
    public static List<ConfigVar<?>> configVars() {
        return List.of(BCAST_LARGE, BCAST_LARGE_MIN_RANKS, ALLREDUCE_LARGE, YIELD_WHEN_IDLE, WARMUP_YIELD, TRANSPORT);
    }

    /** The values in force, read once from the environment. */
    public record Thresholds(long bcastLarge, int bcastLargeMinRanks, long allreduceLarge) {
        /** Reads the thresholds from {@code config}. */
        public static Thresholds of(final Config config) {
            return new Thresholds(config.get(BCAST_LARGE), config.get(BCAST_LARGE_MIN_RANKS),
                config.get(ALLREDUCE_LARGE));
        }
    }
}
