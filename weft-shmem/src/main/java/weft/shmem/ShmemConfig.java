package weft.shmem;

import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;

import java.util.List;
import java.util.function.Function;

/** The OpenSHMEM layer's tunables, in Weft's configuration registry ({@code weft info -c}). */
public final class ShmemConfig {
    /** The standard variable, read before {@link #SYMMETRIC_SIZE}. */
    public static final String SHMEM_SYMMETRIC_SIZE = "SHMEM_SYMMETRIC_SIZE";

    /** Bytes of symmetric heap per PE (what {@code shmem.malloc} hands out, plus the layer's own service area). */
    public static final ConfigVar<Long> SYMMETRIC_SIZE = ConfigRegistry.register("SYMMETRIC_SIZE", ConfigType.SIZE,
        "256m", "Size of the OpenSHMEM symmetric heap of each PE; SHMEM_SYMMETRIC_SIZE, when set, takes precedence "
            + "(k/m/g suffixes, fractions such as 1.5g)");

    /**
     * Spins of a wait before it starts yielding the processor between checks; {@code auto}: 4096, or 16 when the
     * node's PEs outnumber its CPUs (a spinning PE then holds a CPU the PE it waits for may need).
     */
    public static final ConfigVar<Integer> WAIT_SPINS = ConfigRegistry.register("SHMEM_WAIT_SPINS",
        ConfigType.COUNT_OR_AUTO, "auto", "Checks of a shmem wait (waitUntil, barrier, lock) before it yields the CPU "
            + "between checks; auto: 16 when the node's PEs outnumber its CPUs, else 4096");

    /** The spins {@code auto} stands for on a node whose PEs fit its CPUs, and on one they outnumber. */
    static final int SPINS = 4096;
    static final int OVERSUBSCRIBED_SPINS = 16;

    /** {@link #WAIT_SPINS} resolved for a node running {@code localPes} PEs. */
    static int waitSpins(final int configured, final int localPes) {
        if (configured >= 0) {
            return configured;
        }
        return weft.ucs.Cpus.oversubscribed(localPes) ? OVERSUBSCRIBED_SPINS : SPINS;
    }

    /**
     * How long a wait yields the processor between checks before it sleeps between them; {@code auto}: 10 ms when
     * the node's PEs outnumber its CPUs, else never (a sleeping PE answers other PEs' gets and atomics over tcp
     * only when it wakes up, and a PE with a CPU of its own has no one to give it to).
     */
    public static final ConfigVar<Long> WAIT_BLOCK_AFTER = ConfigRegistry.register("SHMEM_WAIT_BLOCK_AFTER",
        ConfigType.TIME_OR_AUTO, "auto", "How long a shmem wait (waitUntil, barrier, collective, lock) yields the CPU "
            + "between checks, after its spins, before it sleeps (at most 1 ms at a time) between checks; auto: 10ms "
            + "when the node's PEs outnumber its CPUs, else inf");

    /** The block-after time {@code auto} stands for when the node is oversubscribed. */
    static final long OVERSUBSCRIBED_BLOCK_AFTER_NS = 10_000_000L;

    /** {@link #WAIT_BLOCK_AFTER} resolved for a node running {@code localPes} PEs. */
    static long blockAfterNs(final long configured, final int localPes) {
        if (configured >= 0) {
            return configured;
        }
        return weft.ucs.Cpus.oversubscribed(localPes) ? OVERSUBSCRIBED_BLOCK_AFTER_NS : Long.MAX_VALUE;
    }

    /** Radix of the broadcast tree: a member forwards to up to (radix - 1) children per level. */
    public static final ConfigVar<Integer> BCAST_RADIX = ConfigRegistry.register("SHMEM_BCAST_RADIX", ConfigType.INT,
        "4", "Radix k of the k-nomial tree of shmem broadcasts (>= 2; 2 is a binomial tree)");

    /** Result size from which fcollect and collect use a ring instead of Bruck's dissemination. */
    public static final ConfigVar<Long> COLLECT_RING_BYTES = ConfigRegistry.register("SHMEM_COLLECT_RING_BYTES",
        ConfigType.SIZE, "256k", "Bytes of an fcollect/collect result from which it runs as a ring (n-1 steps to one "
            + "neighbour) rather than Bruck's dissemination (log2 n rounds, doubling blocks)");

    /** Reduction size from which reductions on more than 2 PEs use a ring reduce-scatter and allgather. */
    public static final ConfigVar<Long> REDUCE_RING_BYTES = ConfigRegistry.register("SHMEM_REDUCE_RING_BYTES",
        ConfigType.SIZE, "64k", "Bytes of a shmem reduction from which teams of more than 2 PEs reduce with a ring "
            + "reduce-scatter + allgather rather than recursive doubling");

    /**
     * How long finalize ({@code Shmem.close()}) waits for the other PEs: a PE whose program failed inside
     * {@code try (Shmem s = ...)} reaches finalize while the others wait for it elsewhere; it then reports
     * instead of waiting forever.
     */
    public static final ConfigVar<Long> FINALIZE_TIMEOUT = ConfigRegistry.register("SHMEM_FINALIZE_TIMEOUT",
        ConfigType.TIME, "120s", "How long shmem finalize (Shmem.close) waits for every PE to reach it before it "
            + "fails with an error naming a missing PE");

    /** Largest heap accepted: a typo such as 256t must not try to map terabytes. */
    static final long MAX_HEAP = 1L << 40;

    private ShmemConfig() {
    }

    /** Every variable of the layer (touching this class registers them, for {@code weft info -c}). */
    public static List<ConfigVar<?>> configVars() {
        return List.of(SYMMETRIC_SIZE, WAIT_SPINS, WAIT_BLOCK_AFTER, BCAST_RADIX, COLLECT_RING_BYTES, REDUCE_RING_BYTES,
            FINALIZE_TIMEOUT);
    }

    /**
     * The heap size from {@code SHMEM_SYMMETRIC_SIZE} (in {@code env}), else {@code WEFT_SYMMETRIC_SIZE} (in
     * {@code config}).
     *
     * @throws IllegalArgumentException naming the variable and its value when it is not a size, or is
     *     smaller than {@code minimum} or larger than 1 TiB
     */
    static long symmetricSize(final Function<String, String> env, final Config config, final long minimum) {
        final String text = env.apply(SHMEM_SYMMETRIC_SIZE);
        final String name;
        final long size;
        if (text != null) {
            name = SHMEM_SYMMETRIC_SIZE + "='" + text + "'";
            try {
                size = ConfigType.SIZE.parse(text);
            } catch (final RuntimeException e) {
                throw new IllegalArgumentException(name + " is not a size: expected " + ConfigType.SIZE.accepted()
                    + (e.getMessage() == null ? "" : " [" + e.getMessage() + "]"), e);
            }
        } else {
            name = SYMMETRIC_SIZE.envName() + "='" + config.text(SYMMETRIC_SIZE) + "'";
            try {
                size = config.get(SYMMETRIC_SIZE);
            } catch (final RuntimeException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
        if (size < minimum || size > MAX_HEAP) {
            throw new IllegalArgumentException(name + " is out of range: the symmetric heap needs at least "
                + minimum + " bytes (the layer's service area and one page) and at most " + MAX_HEAP + " bytes");
        }
        return size;
    }
}
